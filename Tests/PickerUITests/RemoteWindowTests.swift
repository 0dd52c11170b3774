// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The picker on a library on another machine (a real SFTP server on loopback), reached through
/// gvfs by its URI or mounted with sshfs: what it downloads to fill a screen.
final class RemoteWindowTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/exiftool", "/usr/bin/sshfs"] }

    /// Only the cells in sight download their photos, two at a time; the cells bound around the
    /// screen are painted from the EXIF previews of the photos' first kilobytes, and nothing is
    /// downloaded ahead.
    func testOnlyTheCellsInSightDownloadTheirPhotosTwoAtATime() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = try makePhotos()
        defer { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        let (read, atOnce) = try downloads(server, photos, library: server.uri(photos.path))
        XCTAssertLessThanOrEqual(atOnce, 2, "two downloads at a time")
        let previewed = read.filter { $0.value <= 64 * 1024 }
        XCTAssertGreaterThan(previewed.count, 20, "the bound cells off the screen were read for their previews only")
    }

    /// Scrolled down a few rows, the cells that come into sight download their photos too:
    /// they were bound and previewed before, and must not be left waiting for a turn.
    func testCellsScrolledIntoSightDownloadTheirPhotos() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = try makePhotos()
        defer { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        var first = 0
        let (read, _) = try downloads(server, photos, library: server.uri(photos.path)) { picker, downloaded in
            first = downloaded
            try picker.keys("Down", "Down", "Down", "Down", "Down", "Down", "Down")
        }
        let after = read.filter { $0.value > 100_000 }.count
        XCTAssertGreaterThanOrEqual(after, first + 7, "the rows scrolled into sight were downloaded: \(first), then \(after)")
    }

    /// The same over an sshfs mount: a network file system is told from its type, and its
    /// photos are treated as downloads too.
    func testAFolderOnANetworkFileSystemIsTreatedAsRemote() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = try makePhotos()
        defer { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        let mounted = try server.mountWithSSHFS(photos.path)
        // (How many at once is not checked here: the kernel passes a file's closing to sshfs
        // asynchronously (FUSE's release), so the server saw a third file open for a moment.)
        _ = try downloads(server, photos, library: mounted)
    }

    /// With `--uri`, photos picked on another machine are answered with their URIs, in pick
    /// order, and nothing is copied for it; without it, with local copies of them, in pick order,
    /// byte for byte the photos; with --copy-to, with copies of those in the folder.
    /// A location that is not a folder ends the window before it shows, as a wrong local folder
    /// does: one line that says why, and exit status 2. (It is checked while GTK starts; the
    /// index opened meanwhile is removed.)
    func testALocationThatIsNotAFolderIsSaidAndNoWindowShows() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let folder = TestSupport.temporaryDirectory("remote-wrong")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let environment = server.environment.merging(["DISPLAY": display.name, "XDG_DATA_HOME": dataHome.path,
                                                      "XDG_CACHE_HOME": cacheHome.path]) { $1 }
        for (path, reason) in [(folder.appendingPathComponent("nowhere").path, "No such file or directory"),
                               (folder.appendingPathComponent("notes.txt").path, "Not a directory")] {
            let uri = server.uri(path)
            let result = try TestSupport.run(TestSupport.photopick, ["--library", uri, "--no-camera", "--timeout", "20"],
                                             environment: environment, timeout: 60)
            XCTAssertEqual(result.status, 2, result.error)
            XCTAssertEqual(result.error, "photopick: --library \(uri): \(reason)\n")
            XCTAssertEqual(result.output, Data())
        }
        let indexes = (try? FileManager.default.contentsOfDirectory(atPath: dataHome.appendingPathComponent("photopick").path)) ?? []
        XCTAssertEqual(indexes.filter { $0.hasPrefix("index-") }, [], "no index is left of a library that never was")
    }

    func testPicksOnAnotherComputerAreAnsweredWithTheirURIsOrLocalCopies() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = TestSupport.temporaryDirectory("remote-picks").appendingPathComponent("photos")
        defer { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let script = """
            import sys
            from PIL import Image
            for index in range(4):
                Image.new("RGB", (320, 240), (60 * index, 90, 200)).save(f"{sys.argv[1]}/IMG_{index}.JPG", quality=90)
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        // Newest first: IMG_3 takes the first cell.
        for index in 0..<4 {
            XCTAssertNil(try TestSupport.setCaptureDate("2024:05:0\(index + 1) 12:00:00", of: photos.appendingPathComponent("IMG_\(index).JPG").path))
        }
        let library = server.uri(photos.path)
        for uri in [true, false] {
            let picker = try RunningPicker(display: display, arguments: ["--multiple", "--library", library] + (uri ? ["--uri"] : []),
                                           dataHome: dataHome, cacheHome: cacheHome, environment: server.environment)
            // The keys once the four photos are in the grid in their order, as a person sees them
            // (their thumbnails read every byte): in CI the keys came while the first run was
            // still dating them, and "Right, space" picked nothing.
            let files = (0..<4).map { photos.appendingPathComponent("IMG_\($0).JPG") }
            XCTAssertTrue(wait(seconds: 30) { server.hasReadWhole(files) }, "the photos were read: \(server.bytesRead())")
            usleep(500_000)
            try picker.keys("Right", "space", "Left", "space", "ctrl+Return")
            let (status, lines) = picker.finish()
            let errors = picker.errorText
            XCTAssertEqual(status, 0, errors)
            let fetched = cacheHome.appendingPathComponent("photopick/fetched")
            if uri {
                XCTAssertEqual(lines, [library + "/IMG_2.JPG", library + "/IMG_3.JPG"], "the URIs, in pick order")
                XCTAssertFalse(FileManager.default.fileExists(atPath: fetched.path), "nothing was copied")
            } else {
                XCTAssertEqual(lines.map { URL(fileURLWithPath: $0).lastPathComponent }, ["IMG_2.JPG", "IMG_3.JPG"], "local copies, in pick order")
                for (line, name) in zip(lines, ["IMG_2.JPG", "IMG_3.JPG"]) {
                    XCTAssertTrue(line.hasPrefix(fetched.path + "/"), line)
                    XCTAssertEqual(FileManager.default.contents(atPath: line), FileManager.default.contents(atPath: photos.appendingPathComponent(name).path))
                }
            }
        }
        // A script's --copy-to copies the local copies (the window waited for them).
        let folder = TestSupport.temporaryDirectory("remote-copy-to")
        defer { try? FileManager.default.removeItem(at: folder) }
        let picker = try RunningPicker(display: display, arguments: ["--multiple", "--library", library, "--copy-to", folder.path],
                                       dataHome: dataHome, cacheHome: cacheHome, environment: server.environment)
        try picker.keys("space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines, [folder.appendingPathComponent("IMG_3.JPG").path])
        XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                       FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_3.JPG").path))
    }

    /// A photo in sight that holds no embedded preview shows nothing until it is downloaded: it
    /// is downloaded first, before the photos whose cells show their previews already (it came
    /// in its turn, 30th here, and a first run's grid waited for it).
    func testACellWithoutAPreviewIsDownloadedFirst() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = TestSupport.temporaryDirectory("remote-no-preview").appendingPathComponent("photos")
        defer { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // 42 photos, IMG_41 the newest (the first cell); IMG_12, the 30th cell, without a preview.
        let script = """
            import os, sys
            from PIL import Image
            folder = sys.argv[1]
            Image.effect_noise((160, 120), 60).convert("RGB").save(f"{folder}/thumb.jpg", quality=80)
            arguments = []
            for index in range(42):
                name = f"{folder}/IMG_{index:02}.JPG"
                Image.effect_noise((800, 600), 40 + index).convert("RGB").save(name, quality=95)
                arguments += [f"-DateTimeOriginal=2024:05:01 12:{index:02}:00"]
                if index != 12:
                    arguments += [f"-ThumbnailImage<={folder}/thumb.jpg"]
                arguments += [name, "-execute"]
            with open(f"{folder}/../arguments.txt", "w") as out:
                out.write("\\n".join(arguments[:-1]) + "\\n")
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        let arguments = photos.deletingLastPathComponent().appendingPathComponent("arguments.txt").path
        let dated = try TestSupport.run("/usr/bin/exiftool", ["-@", arguments, "-common_args", "-overwrite_original", "-q"])
        XCTAssertEqual(dated.status, 0, dated.error)
        try FileManager.default.removeItem(atPath: photos.appendingPathComponent("thumb.jpg").path)
        let bare = photos.appendingPathComponent("IMG_12.JPG").path
        let size = try FileManager.default.attributesOfItem(atPath: bare)[.size] as? Int ?? 0
        let picker = try RunningPicker(display: display, arguments: ["--library", server.uri(photos.path)],
                                       dataHome: dataHome, cacheHome: cacheHome, environment: server.environment)
        defer { _ = picker.finish(timeout: 0) }
        let downloads = { self.downloadsInOrder(server) }
        XCTAssertTrue(wait(seconds: 30) { downloads().count >= 6 }, "the cells in sight downloaded their photos: \(downloads())")
        // (The first two may start before any preview is read: a first run asks for the first
        // screen before its cells are bound; and a third before its preview is found missing.)
        XCTAssertTrue(downloads().prefix(4).contains(bare),
                      "the photo without a preview (\(size) bytes) was among the first four downloads: \(downloads().prefix(6))")
    }

    /// The photos the server sent whole (at least 90 % of a file read at one opening), in order.
    private func downloadsInOrder(_ server: SFTPServer) -> [String] {
        server.closings().filter { closing in
            let size = (try? FileManager.default.attributesOfItem(atPath: closing.path)[.size] as? Int) ?? .max
            return closing.bytes * 10 >= size * 9
        }.map(\.path)
    }

    /// A pick on a network file system (an sshfs mount) is copied here as one behind a GIO
    /// location is, and answered with the local copy: the app given it reads a local file, not
    /// the network (and still has it when the server goes away).
    func testAPickOnANetworkFileSystemIsAnsweredWithItsLocalCopy() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = try twoPhotos("remote-sshfs-pick")
        // A name with what a URI escapes (issue 38: it arrived as "Strand%20&%20Meer%20%231.JPG").
        let name = "Strand & Meer #1.JPG"
        try FileManager.default.moveItem(at: photos.appendingPathComponent("IMG_1.JPG"), to: photos.appendingPathComponent(name))
        let mounted = try server.mountWithSSHFS(photos.path)
        let picker = try RunningPicker(display: display, arguments: ["--library", mounted], dataHome: dataHome, cacheHome: cacheHome,
                                       environment: server.environment)
        try picker.keys("space", "ctrl+Return")
        let (status, lines) = picker.finish()
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines.count, 1, picker.errorText)
        let copy = try XCTUnwrap(lines.first)
        XCTAssertTrue(copy.hasPrefix(cacheHome.appendingPathComponent("photopick/fetched").path + "/"), "a local copy, not the mount's path: \(copy)")
        XCTAssertEqual(URL(fileURLWithPath: copy).lastPathComponent, name, "the copy keeps the photo's name")
        XCTAssertEqual(FileManager.default.contents(atPath: copy), FileManager.default.contents(atPath: photos.appendingPathComponent(name).path))
    }

    /// A drag cannot wait for a copy, but a photo on a network file system needs none: not
    /// picked, it goes as its path, which the other app reads through the mount (570ddc8: e38e886
    /// had left it out); picked and copied, as its local copy, as the answer gives it.
    func testAPhotoOnANetworkFileSystemIsDraggedAsItsPathUntilItsCopyIsComplete() throws {
        let server = try SFTPServer()
        defer { server.close() }
        let photos = try twoPhotos("remote-sshfs-drag")
        let mounted = try server.mountWithSSHFS(photos.path)
        let target = try openDropTarget()
        defer { target.stop() }
        let picker = try WindowProcess(display: display, arguments: ["--multiple", "--no-camera", "--width", "700", "--height", "600", "--library", mounted],
                                       dataHome: dataHome, cacheHome: cacheHome,
                                       environment: server.environment.merging(["PHOTOPICK_TRACE_FETCH": "1"]) { $1 })
        defer { picker.stop() }
        let cell = (x: 75, y: 115), drop = (x: 900, y: 150)
        try display.drag(from: cell, to: drop)  // IMG_1, the newest, not picked
        XCTAssertFalse(picker.errorText.contains("photopick: fetch "), "the press that began the drag copied nothing: \(picker.errorText)")
        try display.xdotool(["windowfocus", "--sync", picker.windowID])
        try picker.keys("space")
        XCTAssertTrue(wait(seconds: 30) { picker.errorText.contains(" fetched ") }, picker.errorText)
        try display.drag(from: cell, to: drop)
        _ = picker.finish(timeout: 0)
        XCTAssertFalse(picker.errorText.contains(" cancelled"), "the drag kept the pick and its copy: \(picker.errorText)")
        let received = String(decoding: target.finishWithBytes(timeout: 0).output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(received.count, 4, "two drops of one file each: \(received) \(target.errorText)")
        guard received.count == 4 else { return }
        XCTAssertEqual(received[0], mounted + "/IMG_1.JPG", "not picked: the mount's path")
        XCTAssertTrue(received[2].hasPrefix(cacheHome.appendingPathComponent("photopick/fetched").path + "/"), "picked and copied: the local copy, \(received[2])")
        XCTAssertEqual(FileManager.default.contents(atPath: received[2]), FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_1.JPG").path))
    }

    /// Two small photos, IMG_0 and IMG_1, a day apart: IMG_1, the newest, takes the first cell.
    /// (Removed when the test ends.)
    private func twoPhotos(_ name: String) throws -> URL {
        let photos = TestSupport.temporaryDirectory(name).appendingPathComponent("photos")
        addTeardownBlock { try? FileManager.default.removeItem(at: photos.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let made = try TestSupport.run("/usr/bin/python3", ["-c", """
            import sys
            from PIL import Image
            for index in range(2):
                Image.new("RGB", (320, 240), (90, 60 * index, 200)).save(f"{sys.argv[1]}/IMG_{index}.JPG", quality=90)
            """, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        for index in 0..<2 {
            XCTAssertNil(try TestSupport.setCaptureDate("2024:05:0\(index + 1) 12:00:00", of: photos.appendingPathComponent("IMG_\(index).JPG").path))
        }
        return photos
    }

    /// 90 photos of 0.3-0.6 MB, each with a 160-pixel EXIF preview, as cameras write them:
    /// more than the screen (35 cells) and the rows GTK binds around it.
    private func makePhotos() throws -> URL {
        let photos = TestSupport.temporaryDirectory("remote-window").appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let script = """
            import sys
            from PIL import Image
            folder = sys.argv[1]
            Image.effect_noise((160, 120), 60).convert("RGB").save(f"{folder}/thumb.jpg", quality=80)
            for index in range(90):
                Image.effect_noise((800, 600), 40 + index % 50).convert("RGB").save(f"{folder}/IMG_{index:04}.JPG", quality=95)
            """
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, photos.path])
        XCTAssertEqual(made.status, 0, made.error)
        let thumb = photos.appendingPathComponent("thumb.jpg").path
        let dated = try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2024:05:01 12:00:00",
                                                              "-ThumbnailImage<=\(thumb)", photos.path, "-ext", "JPG"])
        XCTAssertEqual(dated.status, 0, dated.error)
        try FileManager.default.removeItem(atPath: thumb)
        return photos
    }

    /// Opens the picker on `library` (the photos through the server) until its downloads stop;
    /// checks that the screen's photos and only they were downloaded, and returns what the
    /// server read of each file and the most downloads it served at once.
    private func downloads(_ server: SFTPServer, _ photos: URL, library: String,
                           file: StaticString = #filePath, line: UInt = #line,
                           then act: ((RunningPicker, _ downloaded: Int) throws -> Void)? = nil) throws -> (read: [String: Int], atOnce: Int) {
        var sizes: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: photos.path) {
            let path = photos.appendingPathComponent(name).path
            sizes[path] = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        }
        XCTAssertEqual(sizes.count, 90, file: file, line: line)
        // A download: most of the file read (the headers and the preview are its first 64 KB).
        let isDownload = { (path: String, bytes: Int) in bytes * 10 >= (sizes[path] ?? .max) * 9 }
        let picker = try RunningPicker(display: display, arguments: ["--multiple", "--library", library],
                                       dataHome: dataHome, cacheHome: cacheHome, environment: server.environment)
        var downloaded: Set<String> = []
        func waitForTheDownloadsToStop() {
            var lastChange = Date()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, downloaded.isEmpty || Date().timeIntervalSince(lastChange) < 4 {
                usleep(250_000)
                let now = Set(server.bytesRead().filter { isDownload($0.key, $0.value) }.keys)
                if now != downloaded { downloaded = now; lastChange = Date() }
            }
        }
        waitForTheDownloadsToStop()
        if let act {
            let first = downloaded
            try act(picker, first.count)
            waitForTheDownloadsToStop()
            // (The screens after it download too: the check of the first screen's count is for it alone.)
            downloaded = first
        }
        _ = picker.finish(timeout: 0)
        let read = server.bytesRead()
        XCTAssertGreaterThanOrEqual(downloaded.count, 20, "the cells in sight were downloaded", file: file, line: line)
        XCTAssertLessThanOrEqual(downloaded.count, 49, "only the screen's cells (35, and a row more) were downloaded, not all 90",
                                 file: file, line: line)
        XCTAssertEqual(Set(read.keys).subtracting(sizes.keys), [], "nothing else was opened", file: file, line: line)
        return (read, server.mostReadsAtOnce(where: isDownload))
    }
}
