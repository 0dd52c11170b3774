// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
import PhotoLibrary

/// A library on another machine, through a real SFTP server on loopback and gvfs: `photopick
/// albums` and `ls` as a script uses them on `--library sftp://…`.
final class RemoteLibraryTests: XCTestCase {
    private var generated: GeneratedLibrary { .shared }

    private func environment(_ server: SFTPServer, _ folder: URL) -> [String: String] {
        server.environment.merging(["XDG_DATA_HOME": folder.appendingPathComponent("data").path,
                                    "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]) { $1 }
    }

    /// The same tree gives the same albums and the same rows over SFTP as from the disk: dates,
    /// sizes, cameras, Live Photo pairs, names that are not UTF-8 and the files that cannot be
    /// read. The rows' paths are the files' URIs.
    func testARemoteFolderIsIndexedAsTheSameFolderIsLocally() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let folder = TestSupport.temporaryDirectory("remote-same")
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = ["XDG_DATA_HOME": folder.appendingPathComponent("local-data").path,
                     "XDG_CACHE_HOME": folder.appendingPathComponent("local-cache").path]
        let remote = environment(server, folder)
        let root = generated.root.path, uri = server.uri(root)
        for command in ["albums", "ls --errors"] {
            let arguments = command.split(separator: " ").map(String.init)
            let here = try TestSupport.run(TestSupport.photopick, arguments + ["--library", root], environment: local)
            let there = try TestSupport.run(TestSupport.photopick, arguments + ["--library", uri], environment: remote)
            XCTAssertEqual(there.status, here.status, there.error)
            var expected = String(decoding: here.output, as: UTF8.self)
            if command != "albums" {
                // (`ls --errors` names each file by its URI.)
                expected = expected.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    guard let colon = line.range(of: ": ") else { return String(line) }
                    return server.uri(String(line[..<colon.lowerBound])) + line[colon.lowerBound...]
                }.joined(separator: "\n")
            }
            XCTAssertEqual(String(decoding: there.output, as: UTF8.self), expected, command)
            XCTAssertFalse(there.output.isEmpty)
        }
        let here = try rows(TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", root], environment: local).output)
        let there = try rows(TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", uri], environment: remote).output)
        XCTAssertGreaterThan(here.count, 1000)
        let expected = Set(here.map { describe($0, uriPrefix: nil) }), found = Set(there.map { describe($0, uriPrefix: server.uriPrefix) })
        XCTAssertEqual(found.count, expected.count)
        XCTAssertEqual(Array(expected.subtracting(found).sorted().prefix(3)), [], "rows the remote index lacks or has otherwise")
        XCTAssertEqual(Array(found.subtracting(expected).sorted().prefix(3)), [], "rows the local index does not have")
        XCTAssertTrue(there.allSatisfy { ($0["path"] as? String)?.hasPrefix(server.uriPrefix + "/") == true })
    }

    /// A camera's 5 MB photo is dated and sized from its first kilobytes: the server reads at
    /// most 64 KB of it, for both passes of the scan together.
    func testARemotePhotoIsReadFromItsHeadersOnly() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let folder = TestSupport.temporaryDirectory("remote-bytes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let script = """
            import sys, random
            from PIL import Image
            random.seed(4)
            for index in range(3):
                image = Image.effect_noise((2600, 1950), 90).convert("RGB")
                exif = Image.Exif()
                exif[0x010F] = "Canon"; exif[0x0110] = "Canon EOS R6"
                image.save(f"{sys.argv[1]}/IMG_{index}.JPG", quality=97, exif=exif)
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        for index in 0..<3 {
            XCTAssertNil(try TestSupport.setCaptureDate("2021:06:0\(index + 1) 14:03:02", of: photos.appendingPathComponent("IMG_\(index).JPG").path))
        }
        let listed = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", server.uri(photos.path)],
                                         environment: environment(server, folder))
        XCTAssertEqual(listed.status, 0, listed.error)
        let found = try rows(listed.output).sorted { ($0["path"] as! String) < ($1["path"] as! String) }
        XCTAssertEqual(found.map { $0["captured_at"] as? String }, ["2021-06-01T14:03:02", "2021-06-02T14:03:02", "2021-06-03T14:03:02"])
        XCTAssertEqual(found.map { $0["width"] as? Int }, [2600, 2600, 2600])
        XCTAssertEqual(found.map { $0["camera"] as? String }, ["Canon EOS R6", "Canon EOS R6", "Canon EOS R6"])
        let read = server.bytesRead(waitingFor: (0..<3).map { photos.appendingPathComponent("IMG_\($0).JPG").path })
        for index in 0..<3 {
            let path = photos.appendingPathComponent("IMG_\(index).JPG").path
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            XCTAssertGreaterThan(size, 3_000_000)
            let bytes = try XCTUnwrap(read[path], "the server never opened \(path)")
            XCTAssertLessThanOrEqual(bytes, 64 * 1024, "\(path): \(bytes) of its \(size) bytes read")
        }
    }

    /// The server goes away: the photos stay listed as they were, with a line that says why, and
    /// the index loses nothing; once it answers again, the warning goes. A server never reached
    /// is a one-line failure.
    func testAServerThatGoesAwayKeepsItsPhotosListed() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let folder = TestSupport.temporaryDirectory("remote-away")
        defer { try? FileManager.default.removeItem(at: folder) }
        let uri = server.uri(generated.root.path)
        let environment = environment(server, folder)
        let before = try TestSupport.run(TestSupport.photopick, ["ls", "--library", uri], environment: environment)
        XCTAssertEqual(before.status, 0, before.error)
        XCTAssertEqual(before.error, "")
        try server.stop()
        let away = try TestSupport.run(TestSupport.photopick, ["ls", "--library", uri], environment: environment)
        XCTAssertEqual(away.status, 0, away.error)
        XCTAssertEqual(away.output, before.output, "every photo still listed, in the same order")
        XCTAssertTrue(away.error.hasPrefix("photopick: \(uri): cannot be reached ("), away.error)
        XCTAssertEqual(away.error.split(separator: "\n").count, 1, away.error)
        let never = try TestSupport.run(TestSupport.photopick, ["albums", "--library", uri],
                                        environment: environment.merging(["XDG_DATA_HOME": folder.appendingPathComponent("other").path]) { $1 })
        XCTAssertEqual(never.status, 1)
        XCTAssertTrue(never.error.hasPrefix("photopick: \(uri): cannot be reached ("), never.error)
        XCTAssertEqual(never.output, Data())
        try server.start()
        let back = try TestSupport.run(TestSupport.photopick, ["ls", "--library", uri], environment: environment)
        XCTAssertEqual(back.status, 0, back.error)
        XCTAssertEqual(back.error, "")
        XCTAssertEqual(back.output, before.output)
    }

    /// GFiles of one remote location made and let go of on three threads at once, one through
    /// `RemoteFiles` as the scan's readers do and two through GIO directly as GTK's chooser and
    /// GLib's own threads do, for 4 s: gvfs 1.50's client corrupted its heap within seconds of
    /// this (a mount's shared description freed while another thread took it) until
    /// `RemoteFiles` kept a file of each mount. The probe runs in a process of its own.
    func testFilesOfOneRemoteLocationAreMadeAndFreedOnManyThreadsSafely() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                          TestSupport.packageRoot.appendingPathComponent(".build/debug")]
        let probe = try XCTUnwrap(candidates.map { $0.appendingPathComponent("remote-files-probe").path }
            .first(where: FileManager.default.isExecutableFile(atPath:)), "remote-files-probe is not built (swift build --build-tests builds it)")
        let uri = server.uri(generated.root.path)
        let result = try TestSupport.run(probe, [uri, "4"], environment: server.environment, timeout: 60)
        XCTAssertEqual(result.status, 0, "the probe ended with \(result.status): \(result.error.suffix(400))")
        XCTAssertTrue(String(decoding: result.output, as: UTF8.self).hasPrefix("made and let go of "), result.error)
    }

    private func rows(_ data: Data) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// A row without its id, its paths as the bytes of local paths (a name need not be UTF-8:
    /// `ls --json` gives those in base64 beside, and a URI escapes them).
    private func describe(_ row: [String: Any], uriPrefix: String?) -> String {
        var row = row
        row["id"] = nil
        for key in ["path", "live_photo_video"] {
            guard let path = row[key] as? String else { continue }
            var bytes = Array(path.utf8)
            if let encoded = row[key + "_base64"] as? String, let data = Data(base64Encoded: encoded) { bytes = Array(data) }
            if let uriPrefix, path.hasPrefix(uriPrefix) { bytes = FilePath.percentDecoded(Array(path.utf8.dropFirst(uriPrefix.utf8.count))) }
            row[key] = Data(bytes).base64EncodedString()
            row[key + "_base64"] = nil
        }
        let data = try! JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
