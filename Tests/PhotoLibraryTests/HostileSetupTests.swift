// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import TestSupport
import XCTest
@testable import PhotoLibrary

/// What an attacker (or an accident) can put around the library, not in it: configuration files
/// that are not files, roots that lead into the kernel's folders, names that speak to the
/// terminal, file times far ahead, a home folder that is not there (issue 20, findings 3-5, 8).
final class HostileSetupTests: XCTestCase {
    private var folders: [URL] = []

    override func tearDown() {
        folders.forEach { try? FileManager.default.removeItem(at: $0) }
        super.tearDown()
    }

    private func folder(_ name: String) -> URL {
        let url = TestSupport.temporaryDirectory(name)
        folders.append(url)
        return url
    }

    private func photo(in folder: URL, named name: String = "photo.jpg",
                       from demo: String = "Phone/PXL_20240612_081500123.jpg") throws -> URL {
        let source = TestSupport.packageRoot.appendingPathComponent("data/demo-library/" + demo)
        let target = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }

    /// A home of the test's own: every XDG folder inside it.
    private func environment(home: URL) -> [String: String] {
        ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
         "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path, "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
         "XDG_STATE_HOME": home.appendingPathComponent(".local/state").path]
    }

    private func makeFIFO(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(url.path, 0o600), 0)
    }

    func testConfigurationReadsOnlyRegularFilesOfBoundedSize() throws {
        let base = folder("config-files")
        let fifo = base.appendingPathComponent("fifo")
        try makeFIFO(fifo)
        let large = base.appendingPathComponent("large")
        try Data(repeating: 65, count: 2 << 20).write(to: large)
        let plain = base.appendingPathComponent("plain")
        try Data("XDG_PICTURES_DIR=\"/photos\"\n".utf8).write(to: plain)
        let device = base.appendingPathComponent("zero")
        try FileManager.default.createSymbolicLink(atPath: device.path, withDestinationPath: "/dev/zero")
        _ = ConfigurationFile.takeProblems()

        XCTAssertEqual(ConfigurationFile.read(FilePath(plain.path)).map { String(decoding: $0, as: UTF8.self) }, "XDG_PICTURES_DIR=\"/photos\"\n")
        XCTAssertNil(ConfigurationFile.read(FilePath(base.appendingPathComponent("missing").path)))
        XCTAssertEqual(ConfigurationFile.takeProblems(), [], "a missing file is no problem")
        // Each returns at once (a named pipe without a writer blocked open for ever).
        XCTAssertNil(ConfigurationFile.read(FilePath(fifo.path)))
        XCTAssertNil(ConfigurationFile.read(FilePath(large.path)))
        XCTAssertNil(ConfigurationFile.read(FilePath(device.path)))
        XCTAssertNil(ConfigurationFile.read(FilePath(base.path)))
        let problems = ConfigurationFile.takeProblems()
        XCTAssertEqual(problems.count, 4, "\(problems)")
        XCTAssertTrue(problems[0].contains("is not a regular file (a named pipe)"), problems[0])
        XCTAssertTrue(problems[1].contains("is larger than"), problems[1])
        XCTAssertTrue(problems[2].contains("a character device"), problems[2])
        XCTAssertTrue(problems[3].contains("a folder"), problems[3])
        XCTAssertNil(ConfigurationFile.read(FilePath(fifo.path)))
        XCTAssertEqual(ConfigurationFile.takeProblems(), [], "said once")
    }

    func testNamedPipesAsConfigurationNeitherBlockNorStaySilent() throws {
        let home = folder("config-home")
        _ = try photo(in: home.appendingPathComponent("Pictures"))
        try makeFIFO(home.appendingPathComponent(".config/photopick/folders"))
        try makeFIFO(home.appendingPathComponent(".config/user-dirs.dirs"))
        let started = Date()
        let result = try TestSupport.run(TestSupport.photopick, ["ls"], environment: environment(home: home), timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "ls ends (it waited for ever)")
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), home.appendingPathComponent("Pictures/photo.jpg").path + "\n")
        for name in ["photopick/folders", "user-dirs.dirs"] {
            XCTAssertEqual(result.error.components(separatedBy: name + " is not a regular file (a named pipe): it is ignored").count, 2,
                           "said once: \(result.error)")
        }
    }

    /// A named pipe as the index, or as a file SQLite keeps beside it, or as its damage mark:
    /// `ls` answers (from an index in memory, saying why) instead of waiting for ever, and the
    /// pipe is left as it is (issue 37).
    func testNamedPipesAsTheIndexOrBesideItNeitherBlockNorStaySilent() throws {
        let home = folder("index-fifo-home")
        let pictures = home.appendingPathComponent("Pictures")
        _ = try photo(in: pictures)
        let environment = environment(home: home)
        XCTAssertEqual(try TestSupport.run(TestSupport.photopick, ["index", "--library", pictures.path], environment: environment).status, 0)
        let data = home.appendingPathComponent(".local/share/photopick")
        let index = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: data.path).first { $0.hasSuffix(".sqlite") })
        for suffix in ["", "-wal", ".damaged"] {
            let pipe = data.appendingPathComponent(index + suffix)
            let moved = data.appendingPathComponent("kept-" + index + suffix)
            if FileManager.default.fileExists(atPath: pipe.path) { try FileManager.default.moveItem(at: pipe, to: moved) }
            try makeFIFO(pipe)
            let started = Date()
            let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", pictures.path], environment: environment, timeout: 30)
            XCTAssertLessThan(Date().timeIntervalSince(started), 20, "\(suffix): ls ends (it waited for ever)")
            XCTAssertEqual(result.status, 0, "\(suffix): \(result.error)")
            XCTAssertEqual(String(decoding: result.output, as: UTF8.self), pictures.appendingPathComponent("photo.jpg").path + "\n", suffix)
            XCTAssertTrue(result.error.contains("\(pipe.path) is not a regular file (a named pipe); the index is kept in memory only"),
                          "\(suffix): \(result.error)")
            var info = stat()
            XCTAssertEqual(lstat(pipe.path, &info), 0)
            XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "\(suffix): the pipe is left as it was")
            try FileManager.default.removeItem(at: pipe)
            if FileManager.default.fileExists(atPath: moved.path) { try FileManager.default.moveItem(at: moved, to: pipe) }
        }
    }

    func testALinkToProcIsLeftOutAsProcIs() throws {
        let base = folder("proc-link")
        let link = base.appendingPathComponent("photos")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/proc")
        let home = folder("proc-link-home")
        let started = Date()
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", link.path], environment: environment(home: home), timeout: 60)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "nothing of /proc is read")
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "")
        XCTAssertTrue(result.error.contains("/proc: system folders, not photos; left out"), result.error)
        let errors = try TestSupport.run(TestSupport.photopick, ["ls", "--errors", "--library", link.path], environment: environment(home: home))
        XCTAssertEqual(String(decoding: errors.output, as: UTF8.self), "", "not one file of /proc was looked at")
    }

    func testTerminalControlsInMessagesAreEscaped() throws {
        let home = folder("escapes-home")
        let pictures = home.appendingPathComponent("Pictures")
        _ = try photo(in: pictures)
        let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J"
        let album = try TestSupport.run(TestSupport.photopick, ["ls", "--album", hostile, "--library", pictures.path], environment: environment(home: home))
        XCTAssertNotEqual(album.status, 0)
        XCTAssertFalse(album.error.contains("\u{1B}"), "no raw escape reaches the terminal: \(album.error.debugDescription)")
        XCTAssertTrue(album.error.contains("\\x1b]0;owned\\x07\\x1b[2J"), album.error.debugDescription)

        let named = pictures.appendingPathComponent("bad\(hostile).jpg")
        try Data("not a photo".utf8).write(to: named)
        let thumbnail = try TestSupport.run(TestSupport.photopick, ["thumbnail", named.path], environment: environment(home: home))
        XCTAssertNotEqual(thumbnail.status, 0)
        XCTAssertFalse(thumbnail.error.isEmpty)
        XCTAssertFalse(thumbnail.error.contains("\u{1B}"), thumbnail.error.debugDescription)
        XCTAssertTrue(thumbnail.error.contains("bad\\x1b]0;owned"), thumbnail.error.debugDescription)
    }

    func testAFileTimeFarAheadIsNotBelieved() throws {
        let home = folder("future-home")
        let pictures = home.appendingPathComponent("Pictures")
        // (Screenshots: no date inside, so the file's time is their date.)
        _ = try photo(in: pictures, named: "today.png", from: "Screenshots/Screenshot_20240620-101500.png")
        let ahead = try photo(in: pictures, named: "ahead.png", from: "Screenshots/Screenshot_20240620-101500.png")
        let future = timespec(tv_sec: 10_413_792_000, tv_nsec: 0)  // 2300-01-01
        var times = [future, future]
        XCTAssertEqual(utimensat(AT_FDCWD, ahead.path, &times, 0), 0)
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", pictures.path], environment: environment(home: home))
        XCTAssertEqual(result.status, 0, result.error)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        XCTAssertEqual(rows.count, 2)
        let aheadRow = try XCTUnwrap(rows.first { ($0["path"] as? String)?.hasSuffix("ahead.png") == true })
        XCTAssertEqual(aheadRow["date_source"] as? String, "file-changed")
        let captured = try XCTUnwrap(aheadRow["captured_at"] as? String)
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        XCTAssertTrue(captured.hasPrefix(String(year)), "dated when it changed, not 2300: \(captured)")
    }

    /// An index of schema 4 believed the file time far ahead: the upgrade reads that row again.
    func testAnIndexThatBelievedAFileTimeFarAheadIsReadAgain() throws {
        let home = folder("future-upgrade-home")
        let pictures = home.appendingPathComponent("Pictures")
        let ahead = try photo(in: pictures, named: "ahead.png", from: "Screenshots/Screenshot_20240620-101500.png")
        let future = timespec(tv_sec: 10_413_792_000, tv_nsec: 0)
        var times = [future, future]
        XCTAssertEqual(utimensat(AT_FDCWD, ahead.path, &times, 0), 0)
        let environment = environment(home: home)
        XCTAssertEqual(try TestSupport.run(TestSupport.photopick, ["index", "--library", pictures.path], environment: environment).status, 0)
        let indexFolder = home.appendingPathComponent(".local/share/photopick")
        let database = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: indexFolder.path).first { $0.hasSuffix(".sqlite") })
        // As schema 4 stored it: the file's time of 2300, from the file itself.
        let downgrade = try TestSupport.run("/usr/bin/sqlite3", [indexFolder.appendingPathComponent(database).path, """
            UPDATE assets SET captured_at = 10413792000000, date_source = 0;
            DROP INDEX assets_refused_date;
            ALTER TABLE assets DROP COLUMN refused_date_ms;
            DROP TABLE picks;
            DROP INDEX assets_burst_keys;
            PRAGMA user_version = 4;
            """])
        XCTAssertEqual(downgrade.status, 0, downgrade.error)
        // (The file is as it was: only the upgrade can have it read again.)
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--json", "--library", pictures.path], environment: environment)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]], result.error)
        XCTAssertEqual(rows.first?["date_source"] as? String, "file-changed", "\(rows)")
        XCTAssertEqual((rows.first?["captured_at"] as? String)?.hasPrefix("2300"), false)
    }

    /// An index of schema 5 kept a photo as failed because its metadata worker was killed from
    /// outside ("the metadata reader stopped on this file"): the upgrade reads it again (issue 37).
    func testAPhotoAnEarlierBuildBlamedForAKilledWorkerIsReadAgain() throws {
        let home = folder("killed-upgrade-home")
        let pictures = home.appendingPathComponent("Pictures")
        let photo = try photo(in: pictures)
        let environment = environment(home: home)
        XCTAssertEqual(try TestSupport.run(TestSupport.photopick, ["index", "--library", pictures.path], environment: environment).status, 0)
        let indexFolder = home.appendingPathComponent(".local/share/photopick")
        let database = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: indexFolder.path).first { $0.hasSuffix(".sqlite") })
        // As schema 5 stored it: not an asset, with the reason.
        let downgrade = try TestSupport.run("/usr/bin/sqlite3", [indexFolder.appendingPathComponent(database).path, """
            UPDATE assets SET kind = 0, error = 'the metadata reader stopped on this file';
            DROP INDEX assets_refused_date;
            ALTER TABLE assets DROP COLUMN refused_date_ms;
            DROP TABLE picks;
            DROP INDEX assets_burst_keys;
            PRAGMA user_version = 5;
            """])
        XCTAssertEqual(downgrade.status, 0, downgrade.error)
        // (The file is as it was: only the upgrade can have it read again.)
        let listed = try TestSupport.run(TestSupport.photopick, ["ls", "--library", pictures.path], environment: environment)
        XCTAssertEqual(String(decoding: listed.output, as: UTF8.self), photo.path + "\n", listed.error)
        let errors = try TestSupport.run(TestSupport.photopick, ["ls", "--errors", "--library", pictures.path], environment: environment)
        XCTAssertFalse(String(decoding: errors.output, as: UTF8.self).contains("stopped on this file"), String(decoding: errors.output, as: UTF8.self))
    }

    /// 2 KB of random bytes over the middle of the index (a bad sector, a stray write): `ls`
    /// listed 59,078 of 59,089 assets with no word, twice, or failed halfway. The index is not
    /// as Photopick left it, so every page is checked, and it is rebuilt (issue 20, finding 7).
    func testRandomBytesInTheMiddleOfTheIndexAreFoundAndEveryAssetIsListed() throws {
        let base = folder("damaged-index")
        let pictures = base.appendingPathComponent("Pictures")
        let made = try TestSupport.run(TestSupport.makeLibrary, ["--out", pictures.path, "-n", "20000", "--flat", "--no-video", "--seed", "7", "--force"])
        XCTAssertEqual(made.status, 0, made.error)
        let clean = base.appendingPathComponent("clean")
        var environment = self.environment(home: base)
        environment["XDG_DATA_HOME"] = clean.path
        XCTAssertEqual(try TestSupport.run(TestSupport.photopick, ["index", "--library", pictures.path], environment: environment).status, 0)
        let expected = try TestSupport.run(TestSupport.photopick, ["ls", "--library", pictures.path], environment: environment).output
        let count = expected.filter { $0 == UInt8(ascii: "\n") }.count
        XCTAssertGreaterThan(count, 19_000)
        for seed in [3, 4, 11] {
            let damaged = base.appendingPathComponent("damaged-\(seed)")
            try FileManager.default.copyItem(at: clean, to: damaged)
            let folder = damaged.appendingPathComponent("photopick")
            let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".sqlite") })
            let index = try FileHandle(forUpdating: folder.appendingPathComponent(name))
            let size = try index.seekToEnd()
            var generator = SeededGenerator(seed: UInt64(seed))
            try index.seek(toOffset: size / 2 + UInt64.random(in: 0..<(size / 4), using: &generator))
            try index.write(contentsOf: Data((0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            try index.close()
            environment["XDG_DATA_HOME"] = damaged.path
            for run in 1...2 {
                let listed = try TestSupport.run(TestSupport.photopick, ["ls", "--library", pictures.path], environment: environment)
                if run == 2 || listed.output != expected {
                    XCTAssertEqual(listed.output.filter { $0 == UInt8(ascii: "\n") }.count, count, "seed \(seed), run \(run): \(listed.error)")
                    XCTAssertEqual(listed.status, 0, "seed \(seed), run \(run): \(listed.error)")
                }
            }
        }
    }

    func testAMissingHomeIsNotMade() throws {
        let base = folder("missing-home")
        let pictures = base.appendingPathComponent("Pictures")
        _ = try photo(in: pictures)
        let home = base.appendingPathComponent("not/there")
        let result = try TestSupport.run(TestSupport.photopick, ["ls", "--library", pictures.path],
                                         environment: ["HOME": home.path, "XDG_DATA_HOME": "", "XDG_CACHE_HOME": "", "XDG_STATE_HOME": "",
                                                       "XDG_CONFIG_HOME": ""])
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), pictures.appendingPathComponent("photo.jpg").path + "\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base.appendingPathComponent("not").path), "nothing made where HOME points")
        XCTAssertTrue(result.error.contains("does not exist"), result.error)
    }
}

/// A small reproducible random source (SplitMix64): the same damage on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
