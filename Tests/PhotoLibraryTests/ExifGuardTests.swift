// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// What fuzzing found in exiv2 (the files are in Tests/Corpus/files): Debian's exiv2 0.27 aborts
/// the whole process on a damaged Matroska block, so it is never handed a video container; and
/// it throws C++ exceptions gexiv2 lets through, which the guard catches. Without either guard,
/// this test process would end.
final class ExifGuardTests: XCTestCase {
    private let foundByFuzzing = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-matroska-block.webm")

    func testTheWebMThatAbortedExiv2IsReadByOurReaderAndNeverByExiv2() throws {
        let path = FilePath(foundByFuzzing.path)
        let file = try OpenFile(path: path)
        XCTAssertNil(EmbeddedPreview.smallest(in: file, minimumSide: 64), "no preview, and no abort")
        XCTAssertThrowsError(try EmbeddedMetadata.read(file)) { error in
            XCTAssertTrue((error as? MetadataReadError)?.message.contains("Matroska") == true, "\(error)")
        }
        let outcome = MetadataReader.read(path: path, version: FileVersion(size: file.size, modificationTimeNanoseconds: 0, inode: 0))
        XCTAssertEqual(outcome, .failed("damaged or truncated video: no movie header"))
    }

    /// exiv2 throws std::overflow_error on this RAF header and gexiv2 does not catch it: it
    /// ended the process in std::terminate. The guard turns it into the file's problem.
    func testAnExceptionExiv2LetsThroughGexiv2IsTheFilesProblemNotACrash() throws {
        let path = FilePath(TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files/fuzz-raf-overflow.raf").path)
        let file = try OpenFile(path: path)
        XCTAssertThrowsError(try EmbeddedMetadata.read(file)) { error in
            // (exiv2 0.27's words; a later exiv2 may say it otherwise, through gexiv2's own error.)
            XCTAssertTrue((error as? MetadataReadError)?.message.hasPrefix("exiv2 failed") == true, "\(error)")
        }
        XCTAssertNil(EmbeddedPreview.smallest(in: file, minimumSide: 64))
        let outcome = MetadataReader.read(path: path, version: FileVersion(size: file.size, modificationTimeNanoseconds: 0, inode: 0))
        guard case .failed(let reason) = outcome else { return XCTFail("a problem: \(outcome)") }
        XCTAssertTrue(reason.hasPrefix("cannot read the image header: exiv2 failed"), reason)
    }

    func testImagesStillGoToExiv2AndVideoContainersDoNot() {
        func head(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } + [UInt8](repeating: 0, count: 32) }
        let ascii = { (text: String) in Array(text.utf8) }
        let size: (UInt8) -> [UInt8] = { [0, 0, 0, $0] }
        // Images: JPEG, PNG, TIFF, WebP, and HEIF/AVIF by their major or a compatible brand.
        XCTAssertNil(ExifLibrary.refusal(forHead: head([0xFF, 0xD8, 0xFF, 0xE1])))
        XCTAssertNil(ExifLibrary.refusal(forHead: head([0x89] + ascii("PNG\r\n\u{1A}\n"))))
        XCTAssertNil(ExifLibrary.refusal(forHead: head(ascii("II*\0"))))
        XCTAssertNil(ExifLibrary.refusal(forHead: head(ascii("RIFF"), [0, 0, 0, 0], ascii("WEBPVP8 "))))
        XCTAssertNil(ExifLibrary.refusal(forHead: head(size(24), ascii("ftypheic\0\0\0\0mif1heic"))))
        XCTAssertNil(ExifLibrary.refusal(forHead: head(size(24), ascii("ftypmsf1\0\0\0\0msf1avif"))))
        // Video containers: Matroska, AVI, ASF, MP4 and QuickTime.
        XCTAssertNotNil(ExifLibrary.refusal(forHead: head([0x1A, 0x45, 0xDF, 0xA3])))
        XCTAssertNotNil(ExifLibrary.refusal(forHead: head(ascii("RIFF"), [0, 0, 0, 0], ascii("AVI LIST"))))
        XCTAssertNotNil(ExifLibrary.refusal(forHead: head([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11])))
        XCTAssertNotNil(ExifLibrary.refusal(forHead: head(size(24), ascii("ftypisom\0\0\0\0isommp41"))))
        XCTAssertNotNil(ExifLibrary.refusal(forHead: head(size(20), ascii("ftypqt  \0\0\0\0qt  "))))
        XCTAssertNotNil(ExifLibrary.refusal(forHead: head(size(8), ascii("moov"))))
        // A brand list that runs past the bytes read is read as far as it goes.
        XCTAssertNotNil(ExifLibrary.refusal(forHead: Array(head(size(200), ascii("ftypisom\0\0\0\0isom")).prefix(20))))
    }
}
