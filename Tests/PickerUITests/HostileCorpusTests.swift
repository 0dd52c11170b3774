// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Every kind of bad file found so far (Tests/Corpus/make-hostile-corpus writes them, with what
/// must become of each) through everything a person or a script does with a library: index it,
/// list it and its problems, make every thumbnail, open the window, scroll it end to end and pick.
/// Each step has a time limit per file; nothing may crash, hang, go missing or be changed.
final class HostileCorpusTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/python3"] }

    private struct Entry {
        let path: Data
        let expect: String
        let why: String
    }

    /// Seconds each file may cost a whole-library command (index, ls): they read headers only.
    private let secondsPerFile = 1.0
    /// Seconds one `photopick thumbnail FILE` may take: the thumbnailer deadline (20 s, met by
    /// the SVG whose filter would render for hours) and room for a loaded machine (a CI run once
    /// stalled 15 s inside that one command; 20.0-20.1 s otherwise).
    private let thumbnailLimit = 60.0

    private func makeCorpus() throws -> (root: URL, entries: [Entry]) {
        let folder = TestSupport.temporaryDirectory("hostile-corpus")
        let root = folder.appendingPathComponent("library"), manifest = folder.appendingPathComponent("manifest.json")
        let writer = TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/make-hostile-corpus").path
        let made = try TestSupport.run(writer, ["--out", root.path, "--manifest", manifest.path], timeout: 120)
        XCTAssertEqual(made.status, 0, made.error)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as! [String: Any]
        let entries = (json["entries"] as! [[String: Any]]).map { entry -> Entry in
            let relative = (entry["path"] as? String).map { Data($0.utf8) }
                ?? Data(base64Encoded: entry["path_base64"] as! String)!
            return Entry(path: Data(root.path.utf8) + Data("/".utf8) + relative, expect: entry["expect"] as! String, why: entry["why"] as! String)
        }
        return (root, entries)
    }

    /// The paths (exact bytes) and one more field of each object of a JSON array printed by ls.
    private func listed(_ arguments: [String], field: String, root: URL, timeout: TimeInterval) throws -> [Data: String] {
        let result = try TestSupport.run(TestSupport.photopick, arguments + ["--json", "--library", root.path],
                                         environment: ["XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path], timeout: timeout)
        XCTAssertEqual(result.status, 0, "photopick \(arguments.joined(separator: " ")): \(result.error)")
        let objects = try JSONSerialization.jsonObject(with: result.output) as! [[String: Any]]
        var paths: [Data: String] = [:]
        for object in objects {
            let path = (object["path_base64"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data((object["path"] as! String).utf8)
            paths[path] = "\(object[field] ?? "")"
        }
        return paths
    }

    /// Every entry's kind, size and modification time (a sparse 64 GB file is never read whole).
    private func snapshot(_ root: URL) throws -> String {
        let result = try TestSupport.run("/usr/bin/python3", ["-c", """
            import os, sys
            root = os.fsencode(sys.argv[1])
            for folder, folders, files in os.walk(root):
                for name in sorted(folders + files):
                    info = os.lstat(os.path.join(folder, name))
                    print(os.path.join(folder, name), info.st_mode, info.st_size, info.st_mtime_ns)
            """, root.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self)
    }

    func testEveryHostileFileIsListedOrReportedAndNothingHangsCrashesOrChanges() throws {
        let (root, entries) = try makeCorpus()
        XCTAssertGreaterThan(entries.count, 50)
        let before = try snapshot(root)
        let budget = Double(entries.count) * secondsPerFile

        // Index: every file read within its budget, exit 0 (problems are reported, not fatal).
        let started = Date()
        let indexed = try TestSupport.run(TestSupport.photopick, ["index", "--library", root.path],
                                          environment: ["XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path], timeout: budget)
        XCTAssertEqual(indexed.status, 0, indexed.error)
        XCTAssertLessThan(Date().timeIntervalSince(started), budget, "indexing the corpus stayed within \(secondsPerFile) s a file")

        // What the index made of each entry: in Recents, in the problems with a reason, or neither.
        let media = try listed(["ls", "--cached"], field: "kind", root: root, timeout: budget)
        let problems = try listed(["ls", "--cached", "--errors"], field: "reason", root: root, timeout: budget)
        for entry in entries {
            let name = String(decoding: entry.path, as: UTF8.self)
            if entry.expect == "unreadable" && !FileManager.default.isReadableFile(atPath: name) {
                // The file, or the folder that could not be entered, is the problem.
                let folder = Data(URL(fileURLWithPath: name).deletingLastPathComponent().path.utf8)
                XCTAssertNil(media[entry.path], "\(name) (\(entry.why)) is not in Recents")
                XCTAssertTrue(problems[entry.path] != nil || problems[folder] != nil, "\(name) (\(entry.why)) or its folder is reported")
                continue
            }
            // (Root reads a mode-000 file: then it is simply a photo.)
            let expect = entry.expect == "unreadable" ? "photo" : entry.expect
            switch expect {
            case "photo", "video":
                XCTAssertEqual(media[entry.path], expect, "\(name) (\(entry.why)) is a \(expect) in Recents")
                XCTAssertNil(problems[entry.path], "\(name) is not also a problem")
            case "problem":
                XCTAssertNil(media[entry.path], "\(name) (\(entry.why)) is not in Recents")
                XCTAssertFalse(problems[entry.path]?.isEmpty ?? true, "\(name) (\(entry.why)) is reported with a reason")
            default:
                XCTAssertNil(media[entry.path], "\(name) (\(entry.why)) is not in Recents")
                XCTAssertNil(problems[entry.path], "\(name) (\(entry.why)) is not a problem either")
            }
        }
        let known = Set(entries.map(\.path))
        for path in Set(media.keys).union(problems.keys) where !known.contains(path) {
            XCTFail("\(String(decoding: path, as: UTF8.self)) was listed: nothing else (no path through a looping link, no shared thumbnail)")
        }

        // Thumbnails, one command per file: made, or refused with a reason naming the file, in time.
        for path in media.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let argument = String(decoding: path, as: UTF8.self), name = argument
            guard Data(argument.utf8) == path else { continue }  // (Process takes Strings: not a name in invalid UTF-8)
            let began = Date()
            let result = try TestSupport.run(TestSupport.photopick, ["thumbnail", "--", argument],
                                             environment: ["XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path],
                                             timeout: thumbnailLimit)
            XCTAssertLessThan(Date().timeIntervalSince(began), thumbnailLimit, "\(name): thumbnail within its limit")
            if result.status == 0 {
                let thumbnail = String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .newlines)
                let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: thumbnail)).readData(ofLength: 24)
                let width = header.count == 24 ? header[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
                XCTAssertTrue((1...256).contains(width), "\(name): a large thumbnail, at most 256 px wide (\(width))")
            } else {
                XCTAssertEqual(result.status, 1, "\(name): refused, not crashed: \(result.error)")
                XCTAssertTrue(result.error.contains(argument) && result.error.count > argument.count + 12,
                              "\(name): the message names the file and why: \(result.error)")
            }
        }

        // The window: open on the corpus at the good photo (zenity's --filename), scroll through
        // every cell to the end and back with the wheel (the focus stays), then pick it. (A
        // damaged file cannot be picked, and one of them may well come first in Recents.)
        let control = root.appendingPathComponent("good/control.jpg").path
        let picker = try WindowProcess(display: display, arguments: ["--library", root.path, "--no-camera", "--filename", control],
                                       dataHome: dataHome, cacheHome: cacheHome)
        try display.xdotool(["mousemove", "400", "400", "click", "--repeat", "60", "--delay", "30", "5"])
        Thread.sleep(forTimeInterval: 2)
        try display.xdotool(["mousemove", "400", "400", "click", "--repeat", "60", "--delay", "30", "4"])
        Thread.sleep(forTimeInterval: 2)
        try picker.keys("space", "ctrl+Return")
        let picked = picker.finish(timeout: budget)
        XCTAssertEqual(picked.status, 0, "the window lived through the corpus and answered: \(picker.errorText)")
        XCTAssertEqual(picked.lines, [control], "the good photo, picked")

        XCTAssertEqual(try snapshot(root), before, "every entry of the corpus as it was")
    }
}
