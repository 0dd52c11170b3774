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
