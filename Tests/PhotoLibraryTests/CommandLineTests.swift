// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// `photopick albums`, `ls` and `index` as a script uses them: exit statuses, one-line errors,
/// and output that parses.
final class CommandLineTests: XCTestCase {
    private var generated: GeneratedLibrary { .shared }
    nonisolated(unsafe) private static var dataHome: String = ""

    override class func setUp() {
        super.setUp()
        dataHome = TestSupport.temporaryDirectory("cli-data").path
    }

    private func photopick(_ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        try TestSupport.run(TestSupport.photopick, arguments, environment: ["XDG_DATA_HOME": Self.dataHome])
    }

    private func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    /// `photopick ls | head -1`: the reader leaving early is not an error (not 141, SIGPIPE's).
    func testAReaderThatStopsEarlyIsNotAnError() throws {
        let script = "\"$0\" ls --library \"$1\" | (exec 0<&-; true); echo \"${PIPESTATUS[0]}\""
        let result = try TestSupport.run("/bin/bash", ["-c", script, TestSupport.photopick, generated.root.path],
                                         environment: ["XDG_DATA_HOME": Self.dataHome])
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "0\n", result.error)
        XCTAssertEqual(result.error, "", "nothing to say: the reader had what it wanted")
    }

    /// A photo whose thumbnail could not be made (a damaged file, a decoder that crashed on it)
    /// is listed by `ls --errors` with the recorded reason, beside what the index could not read.
    func testLsErrorsListsAFileWhoseThumbnailFailed() throws {
        let folder = TestSupport.temporaryDirectory("thumbnail-errors")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let source = generated.files.first { $0["kind"] as? String == "photo" && ($0["path"] as? String)?.hasSuffix(".jpg") == true && $0["corrupt"] == nil }!
        let whole = try Data(contentsOf: URL(fileURLWithPath: generated.path(of: source).displayString))
        try whole.write(to: library.appendingPathComponent("good.jpg"))
        // A download that stopped halfway: its header is whole, its picture cut off.
        try whole.prefix(whole.count / 2).write(to: library.appendingPathComponent("cut.jpg"))
        let environment = ["XDG_DATA_HOME": Self.dataHome, "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]
        let thumbnails = try TestSupport.run(TestSupport.photopick, ["thumbnail", library.appendingPathComponent("good.jpg").path,
                                                                     library.appendingPathComponent("cut.jpg").path], environment: environment)
        XCTAssertEqual(thumbnails.status, 1, "one of the two failed")
        let errors = try TestSupport.run(TestSupport.photopick, ["ls", "--errors", "--library", library.path], environment: environment)
        XCTAssertEqual(errors.status, 0, errors.error)
        XCTAssertEqual(String(decoding: errors.output, as: UTF8.self),
                       library.appendingPathComponent("cut.jpg").path + ": no thumbnail: cannot decode: the JPEG file is cut off (no end of image)\n")
    }

    /// A full disk (here /dev/full) is a failure that says so, not a silent status 1.
    func testWritingToAFullDeviceSaysWhy() throws {
        let script = "\"$0\" ls --library \"$1\" >/dev/full"
        let result = try TestSupport.run("/bin/bash", ["-c", script, TestSupport.photopick, generated.root.path],
                                         environment: ["XDG_DATA_HOME": Self.dataHome])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.error, "photopick: cannot write the output: No space left on device\n")
    }

    /// Names with a newline or escape bytes: `ls --errors` and `albums` keep one line per entry
    /// (escaped), -0 keeps the bytes exact, and `albums --json` gives non-UTF-8 paths in base64.
    func testHostileNamesStayOneLineAndExactWhereAsked() throws {
        let root = TestSupport.temporaryDirectory("cli-hostile")
        let data = TestSupport.temporaryDirectory("cli-hostile-data").path
        let folderName = Array("two\nlines\u{1B}[31m".utf8), latin1: [UInt8] = Array("caf".utf8) + [0xE9]
        for name in [folderName, latin1] {
            let folder = FilePath(root.path).appending(name)
            XCTAssertEqual(folder.withCString { mkdir($0, 0o755) }, 0)
            // (Through the bytes: a name that is not UTF-8 has no String.)
            let empty = folder.appending("empty\nfile.jpg").withCString { open($0, O_CREAT | O_WRONLY | O_EXCL, 0o644) }
            XCTAssertGreaterThanOrEqual(empty, 0)
            close(empty)
            let made = try TestSupport.run("/usr/bin/convert", ["-size", "32x24", "xc:teal", root.appendingPathComponent("photo.jpg").path])
            XCTAssertEqual(made.status, 0, made.error)
            XCTAssertEqual(FilePath(root.appendingPathComponent("photo.jpg").path).withCString { from in
                folder.appending("photo.jpg").withCString { rename(from, $0) } }, 0)
        }
        func run(_ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
            try TestSupport.run(TestSupport.photopick, arguments + ["--library", root.path], environment: ["XDG_DATA_HOME": data])
        }
        let errors = try run(["ls", "--errors"])
        XCTAssertEqual(errors.status, 0, errors.error)
        let errorLines = String(decoding: errors.output, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(errorLines.count, 2, "one line per file: \(errorLines)")
        XCTAssertTrue(errorLines.contains { $0.hasSuffix("/two\\nlines\\x1b[31m/empty\\nfile.jpg: empty file") }, "\(errorLines)")
        XCTAssertFalse(errors.output.contains(0x1B), "no escape byte reaches a terminal")
        let exact = try run(["ls", "--errors", "-0"])
        let records = exact.output.split(separator: 0)
        XCTAssertEqual(records.count, 2)
        XCTAssertTrue(records.contains { Array($0) == FilePath(root.path).appending(folderName).appending("empty\nfile.jpg").bytes + Array(": empty file".utf8) })

        let albums = try run(["albums"])
        let albumLines = String(decoding: albums.output, as: UTF8.self).split(separator: "\n")
        XCTAssertTrue(albumLines.contains { $0.hasSuffix("  two\\nlines\\x1b[31m") }, "\(albumLines)")
        XCTAssertFalse(albumLines.contains { $0.hasSuffix("lines") || $0.hasPrefix("lines") }, "the name was not split: \(albumLines)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: run(["albums", "--json"]).output) as? [[String: Any]])
        let latinAlbum = try XCTUnwrap(json.first { ($0["path_base64"] as? String) != nil }, "\(json)")
        XCTAssertEqual(Data(base64Encoded: latinAlbum["path_base64"] as! String).map(Array.init), FilePath(root.path).appending(latin1).bytes)
        XCTAssertEqual(json.filter { $0["path_base64"] != nil }.count, 1, "only the name that is not UTF-8")
    }

    /// data/photopick.1 is what the option tables give today (after changing an option:
    /// `photopick --man-page > data/photopick.1`), and troff reads it without a warning.
    func testTheManPageIsCurrentAndClean() throws {
        let generated = try photopick(["--man-page"])
        XCTAssertEqual(generated.status, 0)
        let committed = try Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("data/photopick.1"))
        XCTAssertEqual(generated.output, committed, "data/photopick.1 is out of date: photopick --man-page > data/photopick.1")
        // (-P -cbou: plain text, without the overstrikes of bold and underline.)
        let rendered = try TestSupport.run("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-P", "-cbou", TestSupport.packageRoot.appendingPathComponent("data/photopick.1").path])
        XCTAssertEqual(rendered.error, "", "troff's warnings")
        let text = String(decoding: rendered.output, as: UTF8.self)
        for option in ["--file-selection", "--separator", "--copy-to", "--timeout", "--errors", "--stream", "--output"] {
            XCTAssertTrue(text.contains(option), option)
        }
        for command in ["albums", "ls", "index", "thumbnail", "cameras", "capture"] { XCTAssertTrue(text.contains("photopick \(command) [OPTION"), command) }
    }

    func testABadOptionIsOneLineAndStatusTwo() throws {
        let result = try photopick(["ls", "--no-such-option"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(lines(result.error).count, 1, result.error)
        XCTAssertTrue(result.error.contains("--no-such-option"), result.error)
        XCTAssertTrue(result.output.isEmpty)
    }

    func testAMissingFolderIsOneLineAndStatusTwo() throws {
        let result = try photopick(["albums", "--library", "/no/such/folder"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.error, "photopick: --library /no/such/folder: No such file or directory\n")
    }

    func testAnUnknownAlbumOrCommandIsOneLine() throws {
        let album = try photopick(["ls", "--library", generated.root.path, "--album", "Nope"])
        XCTAssertEqual(album.status, 2)
        XCTAssertEqual(lines(album.error).count, 1, album.error)
        let command = try photopick(["frobnicate"])
        XCTAssertEqual(command.status, 2)
        XCTAssertEqual(lines(command.error).count, 1)
    }

    func testHelpListsEveryOption() throws {
        let top = try photopick(["--help"])
        XCTAssertEqual(top.status, 0)
        let topText = String(decoding: top.output, as: UTF8.self)
        for command in ["albums", "ls", "index"] { XCTAssertTrue(topText.contains("  \(command) "), command) }
        let ls = try photopick(["ls", "--help"])
        XCTAssertEqual(ls.status, 0)
        let lsText = String(decoding: ls.output, as: UTF8.self)
        for option in ["--library=DIR", "--album=NAME", "--limit=N", "--json", "--null", "--errors", "--cached"] {
            XCTAssertTrue(lsText.contains(option), option)
        }
    }

    func testAlbumsJSONCountsMatchTheLibrary() throws {
        let result = try photopick(["albums", "--json", "--library", generated.root.path])
        XCTAssertEqual(result.status, 0, result.error)
        let albums = try JSONSerialization.jsonObject(with: result.output) as! [[String: Any]]
        let names = albums.map { $0["name"] as! String }
        XCTAssertEqual(Array(names.prefix(9)), SmartAlbum.allCases.map(\.name))
        let videos = try XCTUnwrap(albums.first { $0["name"] as? String == "Videos" })
        XCTAssertEqual(videos["count"] as? Int, generated.files.filter { $0["kind"] as? String == "video" }.count)
        XCTAssertTrue(names.contains("Screenshots"))
        XCTAssertTrue(names.contains("Edge cases/names"))
    }

    func testListWithNULSeparatorsKeepsHostileNamesWhole() throws {
        let result = try photopick(["ls", "-0", "--library", generated.root.path, "--album", "Edge cases/names"])
        XCTAssertEqual(result.status, 0, result.error)
        let paths = result.output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { Array($0) }
        XCTAssertTrue(paths.contains(Array((generated.root.path + "/Edge cases/names/line\nbreak.jpg").utf8)))
        XCTAssertTrue(paths.contains(Array((generated.root.path + "/Edge cases/names/").utf8) + [0xFF, 0xFE] + Array("-bad-bytes.jpg".utf8)))
        XCTAssertEqual(result.output.last, 0)
    }

    func testListLimitAndJSONFields() throws {
        let result = try photopick(["ls", "--json", "--limit", "5", "--album", "Favorites", "--library", generated.root.path])
        XCTAssertEqual(result.status, 0, result.error)
        let assets = try JSONSerialization.jsonObject(with: result.output) as! [[String: Any]]
        XCTAssertEqual(assets.count, 5)
        for asset in assets {
            for key in ["id", "path", "kind", "mime_type", "width", "height", "orientation", "captured_at", "duration", "favorite", "albums"] {
                XCTAssertTrue(asset.keys.contains(key), key)
            }
            XCTAssertEqual(asset["favorite"] as? Bool, true)
        }
        let plain = try photopick(["ls", "--limit", "5", "--album", "favorites", "--library", generated.root.path])
        XCTAssertEqual(lines(String(decoding: plain.output, as: UTF8.self)).map(String.init), assets.map { $0["path"] as! String })
    }

    func testErrorsListEachBrokenFileWithItsReason() throws {
        let result = try photopick(["ls", "--errors", "--library", generated.root.path])
        XCTAssertEqual(result.status, 0, result.error)
        let text = String(decoding: result.output, as: UTF8.self)
        XCTAssertTrue(text.contains("/Edge cases/corrupt/zero-byte.jpg: empty file\n"), text)
        XCTAssertTrue(text.contains("/Edge cases/corrupt/text-named.png: not a PNG image"), text)
    }

    func testIndexPrintsProgressLinesWhenNotATerminal() throws {
        let data = TestSupport.temporaryDirectory("cli-index").path
        let result = try TestSupport.run(TestSupport.photopick, ["index", "--library", generated.root.path], environment: ["XDG_DATA_HOME": data])
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertTrue(result.error.contains("photopick: indexed"), result.error)
        XCTAssertFalse(result.error.contains("\r"), "no bar drawing into a pipe")
        XCTAssertTrue(String(decoding: result.output, as: UTF8.self).hasPrefix("Indexed "))
    }
}
