// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import TestSupport
import XCTest
@testable import PhotoLibrary

/// The crash journal (issue 20): a process that crashed while it read a file leaves that file
/// under suspicion; the next start lists it with the reason instead of reading it, until it
/// changes. A process that ended any other way leaves nothing behind. The crashing process is
/// `crash-journal-probe`, which ends inside a journalled read as a reader's bug would.
final class CrashJournalTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = TestSupport.temporaryDirectory("crash-journal")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private var probe: String {
        get throws {
            let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                              TestSupport.packageRoot.appendingPathComponent(".build/debug")]
            guard let path = candidates.map({ $0.appendingPathComponent("crash-journal-probe").path })
                .first(where: FileManager.default.isExecutableFile(atPath:)) else {
                throw NSError(domain: "crash-journal-probe is not built (swift build --build-tests builds it)", code: 1)
            }
            return path
        }
    }

    /// A library of two real photos; returns it with its index's path (what the probe journals for).
    private func library(named name: String = "Pictures") throws -> (root: URL, suspect: URL, location: IndexLocation) {
        let root = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let photos = GeneratedLibrary.shared.files.filter { $0["kind"] as? String == "photo" && ($0["path"] as? String)?.hasSuffix(".jpg") == true }
        for (name, source) in zip(["good.jpg", "suspect.jpg"], photos) {
            try FileManager.default.copyItem(atPath: GeneratedLibrary.shared.path(of: source).displayString, toPath: root.appendingPathComponent(name).path)
        }
        return (root, root.appendingPathComponent("suspect.jpg"), IndexLocation(databasePath: folder.appendingPathComponent("\(name).sqlite").path))
    }

    private func indexPath(_ root: URL, _ location: IndexLocation) throws -> String {
        try PhotoLibrary(roots: [FilePath(root.path)], location: location).location.databasePath!
    }

    /// Runs the probe; returns how it ended (a signal number, or the exit status + 1000).
    private func runProbe(_ index: String, _ file: URL, _ how: String, asLibrary: Bool = false) throws -> Int32 {
        let program = try probe
        let words: [String] = [program, index, file.path, how] + (asLibrary ? ["--as-library"] : [])
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let environment: [UnsafeMutablePointer<CChar>?] = [strdup("SWIFT_BACKTRACE=enable=no"), nil]
        defer { environment.forEach { free($0) } }
        XCTAssertEqual(posix_spawn(&pid, program, nil, nil, arguments, environment), 0)
        if how == "wait" {
            // Killed from outside while it reads (the machine's OOM killer, a person's kill -9).
            usleep(300_000)
            kill(pid, SIGKILL)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f != 0 ? status & 0x7f : 1000 + (status >> 8) & 0xff
    }

    private func scan(_ root: URL, _ location: IndexLocation) throws -> (photos: [String], problems: [String: String]) {
        let library = try PhotoLibrary(roots: [FilePath(root.path)], location: location)
        try library.scan()
        let photos = try library.assets(ids: library.fetchAssets(in: .smart(.recents)).allIDs).map { String(decoding: $0.path.lastComponent, as: UTF8.self) }
        var problems: [String: String] = [:]
        for problem in try library.problems() { problems[String(decoding: problem.path.lastComponent, as: UTF8.self)] = problem.reason }
        return (photos.sorted(), problems)
    }

    func testAFileAReaderCrashedOnIsListedAndNotReadAgainUntilItChanges() throws {
        let (root, suspect, location) = try library()
        let index = try indexPath(root, location)
        // A Swift trap (an index out of range) inside the read of suspect.jpg.
        let ended = try runProbe(index, suspect, "trap")
        XCTAssert([SIGILL, SIGTRAP].contains(ended), "the probe ended by a trap: \(ended)")
        let after = try scan(root, location)
        XCTAssertEqual(after.photos, ["good.jpg"])
        XCTAssertEqual(after.problems, ["suspect.jpg": CrashJournal.suspicion])
        // Still suspect on the next start: the suspicion is kept, not only the journal.
        XCTAssertEqual(try scan(root, location).problems, ["suspect.jpg": CrashJournal.suspicion])
        // Changed (a newer copy): read again.
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, suspect.path, &times, 0), 0)
        let changed = try scan(root, location)
        XCTAssertEqual(changed.photos, ["good.jpg", "suspect.jpg"])
        XCTAssertEqual(changed.problems, [:])
    }

    func testASegmentationFaultIsJournalledToo() throws {
        let (root, suspect, location) = try library()
        XCTAssertEqual(try runProbe(try indexPath(root, location), suspect, "segfault"), SIGSEGV)
        XCTAssertEqual(try scan(root, location).problems, ["suspect.jpg": CrashJournal.suspicion])
    }

    func testAProcessThatEndedAnyOtherWayLeavesNoSuspect() throws {
        let (root, suspect, location) = try library()
        let index = try indexPath(root, location)
        XCTAssertEqual(try runProbe(index, suspect, "exit"), 1000, "exited while reading")
        XCTAssertEqual(try runProbe(index, suspect, "wait"), SIGKILL, "killed while reading")
        let after = try scan(root, location)
        XCTAssertEqual(after.photos, ["good.jpg", "suspect.jpg"])
        XCTAssertEqual(after.problems, [:])
        // And no journal is left beside the index by any of them (this process keeps its own
        // while it runs).
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.contains(".reading-") && !$0.hasSuffix(".reading-\(getpid())") }
        XCTAssertEqual(left, [])
    }

    /// Inside another program (the embedded picker), the host's signals are its own: nothing
    /// marks a crash, and a process gone while it read a file may have been killed. A file the
    /// readers were on when such a process ended twice, unchanged, is a suspect; once, it is
    /// read again.
    func testInsideAnotherProgramAFileTwoProcessesEndedOnIsListed() throws {
        let (onceRoot, once, onceLocation) = try library(named: "Once")
        XCTAssert([SIGILL, SIGTRAP].contains(try runProbe(try indexPath(onceRoot, onceLocation), once, "trap", asLibrary: true)))
        let readAgain = try scan(onceRoot, onceLocation)
        XCTAssertEqual(readAgain.photos, ["good.jpg", "suspect.jpg"], "after one end, the file is read again")
        XCTAssertEqual(readAgain.problems, [:])

        let (root, suspect, location) = try library()
        let index = try indexPath(root, location)
        XCTAssert([SIGILL, SIGTRAP].contains(try runProbe(index, suspect, "trap", asLibrary: true)))
        XCTAssertEqual(try runProbe(index, suspect, "segfault", asLibrary: true), SIGSEGV)
        let twice = try scan(root, location)
        XCTAssertEqual(twice.photos, ["good.jpg"])
        XCTAssertEqual(twice.problems, ["suspect.jpg": CrashJournal.suspicion])

        // The probe as the program, ended twice from outside: its handlers were there to mark a
        // crash, and marked none.
        let (otherRoot, other, otherLocation) = try library(named: "Other")
        let otherIndex = try indexPath(otherRoot, otherLocation)
        for _ in 0..<2 { XCTAssertEqual(try runProbe(otherIndex, other, "wait"), SIGKILL) }
        XCTAssertEqual(try scan(otherRoot, otherLocation).problems, [:])
    }
}
