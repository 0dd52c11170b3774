// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import PhotoLibrary

/// A library folder on another machine is named by its GIO location URI, which stands where a
/// path stands: its files are the URI with their names appended, escaped.
final class LocationURITests: XCTestCase {
    func testWhatCountsAsALocationURI() {
        for uri in ["sftp://nas/photos", "smb://nas/share", "dav+sd://host/", "google-drive://me@gmail.com/", "mtp://Pixel_7/"] {
            XCTAssertTrue(FilePath(uri).isLocationURI, uri)
            XCTAssertTrue(FilePath(uri).isAbsolute, uri)
            XCTAssertEqual(FilePath(uri).absolute(), FilePath(uri), "a URI is never joined to the working folder")
        }
        for path in ["/home/me/Pictures", "Pictures", "file:///home/me", "sftp:/nas", "my photos://x", "2024://x", "://x", ""] {
            XCTAssertFalse(FilePath(path).isLocationURI, path)
        }
    }

    func testNamesBelowAURIAreEscapedAndComeBackExactly() {
        let folder = FilePath("sftp://me@nas:2222/photos/Summer%202024")
        let name: [UInt8] = Array("IMG #1 ?100%.jpg".utf8) + [0xE9, 0xFF]
        let file = folder.appending(name)
        XCTAssertEqual(file.displayString, "sftp://me@nas:2222/photos/Summer%202024/IMG%20%231%20%3F100%25.jpg%E9%FF")
        XCTAssertEqual(file.lastName, name)
        XCTAssertEqual(file.parent, folder)
        XCTAssertEqual(file.relative(to: folder).map(FilePath.percentDecoded), name)
        XCTAssertEqual(folder.appending("a-b_c.d~e!$&'()*+,;=:@").displayString, folder.displayString + "/a-b_c.d~e!$&'()*+,;=:@",
                       "what a path segment allows is kept as it is")
        XCTAssertEqual(FilePath("/local/dir").appending(name).lastName, name, "a local path is never escaped")
        XCTAssertEqual(FilePath.percentDecoded(Array("100%".utf8)), Array("100%".utf8), "a lone % is a %")
    }

    func testAURIIsSpelledAsGIOSpellsIt() {
        XCTAssertEqual(RemoteFiles.canonical(FilePath("sftp://me@127.0.0.1:2222/photos/")).displayString, "sftp://me@127.0.0.1:2222/photos")
        XCTAssertEqual(RemoteFiles.canonical(FilePath("sftp://nas/")).displayString, "sftp://nas/")
        XCTAssertEqual(PhotoLibrary.normalise([FilePath("sftp://nas/photos/"), FilePath("sftp://nas/photos/2024")]).map(\.displayString),
                       ["sftp://nas/photos"], "a folder inside another root is in that root")
        XCTAssertEqual(RemoteFiles.localPath(ofFileURI: FilePath("file:///tmp/My%20Photos")), FilePath("/tmp/My Photos"))
    }
}
