// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@_spi(Testing) @testable import PhotoLibrary

/// The one worker mechanism: order, delays, and a shutdown after which nothing of the pool runs
/// and no thread of it is left.
final class WorkerPoolTests: XCTestCase {
    /// A value the test and the pool's threads share, behind a lock.
    private final class Shared<Value>: @unchecked Sendable {
        private let lock = Lock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        var current: Value { lock.withLock { value } }
        func update(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
    }

    /// Threads of this process named `name` (Linux shows a thread's name in /proc).
    private func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines) == name
        }.count
    }

    func testOneThreadRunsWorkInTheOrderItWasSubmitted() {
        let pool = WorkerPool(name: "test-order", threads: 1)
        let order = Shared<[Int]>([])
        let done = expectation(description: "all ran")
        for value in 0..<500 {
            pool.submit {
                order.update { $0.append(value) }
                if value == 499 { done.fulfill() }
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(order.current, Array(0..<500))
        pool.shutdown()
    }

    func testShutdownWaitsForRunningWorkDropsWaitingWorkAndEndsItsThreads() {
        let pool = WorkerPool(name: "test-stop", threads: 2)
        XCTAssertEqual(pool.threadCount, 2)
        // (each thread names itself as it starts)
        let deadline = monotonicSeconds() + 5
        while threads(named: "test-stop") < 2 && monotonicSeconds() < deadline { usleep(1000) }
        XCTAssertEqual(threads(named: "test-stop"), 2)
        let started = Shared(0), finished = Shared(0), waitingRan = Shared(false)
        for _ in 0..<2 {
            pool.submit {
                started.update { $0 += 1 }
                // Long work that watches for the shutdown, as a scan does.
                while !pool.isStopping { usleep(1000) }
                usleep(50_000)
                finished.update { $0 += 1 }
            }
        }
        for _ in 0..<10 { pool.submit { waitingRan.update { $0 = true } } }
        while started.current < 2 { usleep(1000) }
        pool.shutdown()
        XCTAssertEqual(finished.current, 2, "shutdown returns only after the running work returned")
        XCTAssertFalse(waitingRan.current, "work still waiting at shutdown never runs")
        XCTAssertFalse(pool.submit { XCTFail("ran after shutdown") })
        // (A joined thread has ended; the kernel lists it in /proc a moment longer.)
        let gone = monotonicSeconds() + 2
        while threads(named: "test-stop") > 0 && monotonicSeconds() < gone { usleep(1000) }
        XCTAssertEqual(threads(named: "test-stop"), 0, "no thread of the pool is left")
    }

    /// A pool started on demand has no thread until work comes; it starts one for each work that
    /// finds every thread busy, never more than asked; work due later starts one to wait for it;
    /// and its shutdown ends every thread it started.
    func testAPoolOnDemandStartsThreadsAsWorkComesUpToItsCount() {
        let pool = WorkerPool(name: "test-demand", threads: 2, onDemand: true)
        usleep(50_000)
        XCTAssertEqual(pool.threadCount, 0)
        XCTAssertEqual(threads(named: "test-demand"), 0, "no thread before any work")
        let gate = DispatchSemaphore(value: 0)
        let running = Shared(0), ran = Shared(0)
        for _ in 0..<3 {
            pool.submit {
                running.update { $0 += 1 }
                gate.wait()
                running.update { $0 -= 1 }
                ran.update { $0 += 1 }
            }
        }
        let deadline = monotonicSeconds() + 5
        while running.current < 2 && monotonicSeconds() < deadline { usleep(1000) }
        usleep(50_000)
        XCTAssertEqual(running.current, 2, "two works at once: a second thread started for the second")
        XCTAssertEqual(pool.threadCount, 2, "no third thread for the third work")
        for _ in 0..<3 { gate.signal() }
        while ran.current < 3 && monotonicSeconds() < deadline + 5 { usleep(1000) }
        XCTAssertEqual(ran.current, 3)

        let later = WorkerPool(name: "test-demand-2", threads: 2, onDemand: true)
        let due = expectation(description: "the delayed work ran")
        later.submit(after: 0.05) { due.fulfill() }
        wait(for: [due], timeout: 5)
        XCTAssertEqual(later.threadCount, 1)

        pool.shutdown()
        later.shutdown()
        let gone = monotonicSeconds() + 2
        while threads(named: "test-demand") + threads(named: "test-demand-2") > 0 && monotonicSeconds() < gone { usleep(1000) }
        XCTAssertEqual(threads(named: "test-demand") + threads(named: "test-demand-2"), 0, "no thread of either pool is left")
    }

    /// A process about to exit lets go of its workers instead of waiting: shutdown returns while
    /// the running work still runs, nothing waiting starts, and the running work ends on its own.
    func testShutdownWithoutWaitingReturnsWhileWorkRunsAndStartsNothingMore() {
        let pool = WorkerPool(name: "test-nowait", threads: 1)
        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        let ran = Shared<[String]>([])
        pool.submit {
            started.signal()
            gate.wait()
            ran.update { $0.append("running") }
        }
        pool.submit { ran.update { $0.append("waiting") } }
        started.wait()
        pool.shutdown(waitsForRunningWork: false)
        XCTAssertEqual(ran.current, [], "returned while the work still runs")
        XCTAssertEqual(threads(named: "test-nowait"), 1)
        gate.signal()
        let deadline = Date().addingTimeInterval(10)
        while threads(named: "test-nowait") > 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(ran.current, ["running"], "the running work finished; the waiting work never started")
        XCTAssertEqual(threads(named: "test-nowait"), 0, "its thread ended with it")
    }

    /// The GTK thread closing a picker waits for work that returns (a cancelled local copy, a
    /// scan at its next file), but not for work blocked on a server that stopped answering: after
    /// `seconds` it lets go of it, and that thread ends on its own when its work returns (issue 37).
    func testShutdownWaitsABoundedTimeForRunningWork() {
        let quick = WorkerPool(name: "test-bounded-q", threads: 2)
        let finished = Shared<Int>(0)
        for _ in 0..<2 { quick.submit { usleep(100_000); finished.update { $0 += 1 } } }
        usleep(20_000)
        var started = monotonicSeconds()
        XCTAssertTrue(quick.shutdown(waitingAtMost: 5), "work that returns is waited for")
        XCTAssertEqual(finished.current, 2)
        XCTAssertLessThan(monotonicSeconds() - started, 1)
        XCTAssertEqual(threads(named: "test-bounded-q"), 0)

        let blocked = WorkerPool(name: "test-bounded-b", threads: 2)
        let gate = DispatchSemaphore(value: 0), running = DispatchSemaphore(value: 0)
        blocked.submit {
            running.signal()
            gate.wait()  // (a read from a stalled server)
            finished.update { $0 += 1 }
        }
        let other = DispatchSemaphore(value: 0)
        blocked.submit {
            finished.update { $0 += 1 }
            other.signal()
        }
        running.wait()
        other.wait()  // (the other thread's work is done: only the blocked one runs)
        started = monotonicSeconds()
        XCTAssertFalse(blocked.shutdown(waitingAtMost: 0.3), "the blocked work is let go")
        let waited = monotonicSeconds() - started
        XCTAssertGreaterThanOrEqual(waited, 0.29)
        XCTAssertLessThan(waited, 1.5)
        XCTAssertEqual(threads(named: "test-bounded-b"), 1, "its thread still runs the blocked work")
        gate.signal()
        let deadline = Date().addingTimeInterval(10)
        while threads(named: "test-bounded-b") > 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(threads(named: "test-bounded-b"), 0, "and ends once it returns")
        XCTAssertEqual(finished.current, 4)
    }

    /// Background threads take the cores only when nothing else wants them (nice 10); others keep
    /// the process's priority.
    func testBackgroundThreadsRunAtALowerPriority() {
        func niceness(background: Bool) -> Int? {
            let pool = WorkerPool(name: "test-nice", threads: 1, background: background)
            defer { pool.shutdown() }
            let value = Shared<Int?>(nil)
            let done = expectation(description: "read")
            pool.submit {
                // Field 19 of the thread's own stat line (after the name in parentheses).
                let stat = (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)) ?? ""
                let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
                value.update { $0 = fields.count > 16 ? Int(fields[16]) : nil }
                done.fulfill()
            }
            wait(for: [done], timeout: 10)
            return value.current
        }
        XCTAssertEqual(niceness(background: true), 10)
        XCTAssertEqual(niceness(background: false), 0)
    }

    func testDelayedWorkRunsAfterItsDelayWhileOtherWorkGoesFirst() {
        let pool = WorkerPool(name: "test-delay", threads: 1)
        let events = Shared<[(String, Double)]>([])
        let start = monotonicSeconds()
        let done = expectation(description: "delayed ran")
        pool.submit(after: 0.3) {
            events.update { $0.append(("delayed", monotonicSeconds() - start)) }
            done.fulfill()
        }
        pool.submit { events.update { $0.append(("now", monotonicSeconds() - start)) } }
        wait(for: [done], timeout: 10)
        let seen = events.current
        XCTAssertEqual(seen.map(\.0), ["now", "delayed"])
        XCTAssertGreaterThanOrEqual(seen[1].1, 0.3)
        pool.shutdown()
    }

    func testDelayedWorkThatIsNotDueAtShutdownNeverRuns() {
        let pool = WorkerPool(name: "test-delay2", threads: 1)
        pool.submit(after: 0.2) { XCTFail("ran after shutdown") }
        pool.shutdown()
        usleep(400_000)
    }

    /// The last owner of a pool may let go of it on one of its own threads (a thumbnail loader
    /// released while its worker finishes): that must neither deadlock nor leave the thread.
    func testAPoolReleasedOnItsOwnThreadLetsThatThreadEnd() {
        var pool: WorkerPool? = WorkerPool(name: "test-self", threads: 1)
        let released = expectation(description: "released")
        let holder = Holder(pool!)
        pool = nil
        holder.pool!.submit {
            holder.pool = nil  // the last reference goes here, on the pool's thread
            released.fulfill()
        }
        wait(for: [released], timeout: 10)
        let deadline = monotonicSeconds() + 5
        while threads(named: "test-self") > 0 && monotonicSeconds() < deadline { usleep(10_000) }
        XCTAssertEqual(threads(named: "test-self"), 0)
    }

    private final class Holder: @unchecked Sendable {
        var pool: WorkerPool?
        init(_ pool: WorkerPool) { self.pool = pool }
    }

    /// Work that may never return (a question to a server that hangs) runs on a named thread of
    /// its own, which ends when the work does; nothing waits for it.
    func testDetachedWorkRunsOnANamedThreadThatEndsWithIt() {
        let release = ConditionLock()
        let state = Shared<(running: Bool, released: Bool)>((false, false))
        XCTAssertTrue(WorkerPool.detached(name: "test-detached") {
            state.update { $0.running = true }
            release.withLock { while !state.current.released { release.wait(seconds: 0.05) } }
        })
        let deadline = monotonicSeconds() + 5
        while !state.current.running && monotonicSeconds() < deadline { usleep(5_000) }
        XCTAssertEqual(threads(named: "test-detached"), 1, "the work runs on its own thread, under its name")
        state.update { $0.released = true }
        release.withLock { release.broadcast() }
        while threads(named: "test-detached") > 0 && monotonicSeconds() < deadline { usleep(10_000) }
        XCTAssertEqual(threads(named: "test-detached"), 0, "the thread ended with its work")
    }

    /// A timed wait ends at its deadline on the monotonic clock, and a signal ends it sooner.
    func testAConditionLocksTimedWaitEndsAtItsDeadlineOrWhenSignalled() {
        let lock = ConditionLock()
        let started = monotonicSeconds()
        lock.withLock { lock.wait(seconds: 0.2) }
        let waited = monotonicSeconds() - started
        XCTAssertGreaterThanOrEqual(waited, 0.19)
        XCTAssertLessThan(waited, 5)
        let signalled = Shared(false)
        let pool = WorkerPool(name: "test-signal", threads: 1)
        defer { pool.shutdown() }
        let before = monotonicSeconds()
        lock.withLock {
            pool.submit(after: 0.05) { lock.withLock { signalled.update { $0 = true }; lock.signal() } }
            while !signalled.current { lock.wait(seconds: 30) }
        }
        XCTAssertLessThan(monotonicSeconds() - before, 10, "the signal ended the wait, not its 30 s")
    }
}

/// A scan told to stop keeps what it read, and the next scan finishes the job.
final class ScanCancellationTests: XCTestCase {
    /// A first scan says which files the first screen of Recents will show as soon as every file
    /// is dated, before the album is final (the window makes their thumbnails meanwhile): they are
    /// Recents' newest, in its order. A later scan says nothing.
    func testAFirstScanNamesRecentsNewestBeforeTheDatesAreKnown() throws {
        let generated = GeneratedLibrary.shared
        let location = IndexLocation(databasePath: TestSupport.temporaryDirectory("newest").appendingPathComponent("index.sqlite").path)
        let library = try PhotoLibrary(roots: [generated.rootPath], location: location)
        var named: [[FilePath]] = []
        var datesKnownWhenNamed: Bool?
        var datesKnown = false
        try library.scan(progress: { datesKnown = datesKnown || $0.datesKnown }, newestInRecents: { paths in
            named.append(paths)
            datesKnownWhenNamed = datesKnown
        })
        XCTAssertEqual(named.count, 1, "said once")
        XCTAssertEqual(datesKnownWhenNamed, false, "before the album is final")
        let recents = try library.paths(in: .smart(.recents))
        let newest = try XCTUnwrap(named.first)
        XCTAssertEqual(newest.count, min(recents.count, 240))
        XCTAssertEqual(newest, Array(recents.prefix(newest.count)), "Recents' newest, in its order")
        named = []
        try library.scan(newestInRecents: { named.append($0) })
        XCTAssertEqual(named.count, 0, "a later scan has its first screen already")
    }

    func testACancelledScanKeepsWhatItReadAndTheNextScanCompletesIt() throws {
        let generated = GeneratedLibrary.shared
        let location = IndexLocation(databasePath: TestSupport.temporaryDirectory("cancel").appendingPathComponent("index.sqlite").path)
        let library = try PhotoLibrary(roots: [generated.rootPath], location: location)
        // Asked after each file read (and each folder): stop after about 300.
        var asked = 0
        XCTAssertThrowsError(try library.scan(isCancelled: { asked += 1; return asked > 300 })) { error in
            guard case ScanError.cancelled = error else { return XCTFail("\(error)") }
        }
        let partial = try library.fetchAssets(in: .smart(.recents)).count
        XCTAssertGreaterThan(partial, 0, "what was read before the stop is kept")
        XCTAssertEqual(try Self.indexNames(library), [], "stopped in its first pass, a first scan has its date indexes set aside")

        let complete = try PhotoLibrary(roots: [generated.rootPath], location: location)
        try complete.scan()
        let all = try complete.fetchAssets(in: .smart(.recents)).count
        XCTAssertGreaterThan(all, partial)
        let uninterrupted = try PhotoLibrary(roots: [generated.rootPath], location: IndexLocation(
            databasePath: TestSupport.temporaryDirectory("uncancelled").appendingPathComponent("index.sqlite").path))
        try uninterrupted.scan()
        XCTAssertEqual(try complete.paths(in: .smart(.recents)), try uninterrupted.paths(in: .smart(.recents)),
                       "the next scan finishes the job")
        // A first scan builds the albums' date indexes after its first pass; stopped before, it
        // left them out, and the next scan builds them: every album opens through its own index.
        for scanned in [complete, uninterrupted] {
            XCTAssertEqual(try Self.indexNames(scanned), Set(Schema.dateOrderIndexes.map(\.name)))
            let plan = try scanned.withWriter { db -> String in
                let statement = try db.statement("EXPLAIN QUERY PLAN SELECT id FROM assets WHERE (album_bits & 1) != 0 ORDER BY captured_at DESC, id DESC")
                defer { statement.reset() }
                var lines: [String] = []
                while try statement.step() { lines.append(statement.string(3) ?? "") }
                return lines.joined(separator: "; ")
            }
            XCTAssertTrue(plan.contains("album_recents") && !plan.contains("TEMP B-TREE"), plan)
            // The counts the album list shows (kept by triggers a first scan also sets aside) are
            // the albums' real sizes.
            for summary in try scanned.albums() {
                XCTAssertEqual(summary.count, try scanned.paths(in: summary.album).count, summary.name)
            }
        }
        XCTAssertEqual(try complete.albums().map { "\($0.name) \($0.count)" }, try uninterrupted.albums().map { "\($0.name) \($0.count)" })
    }

    /// A first scan learns each file's version from its readers, not its listing: what it stores
    /// is what the next scan finds on disk, so that scan reads no file again.
    func testAfterAFirstScanTheNextReadsNothing() throws {
        let generated = GeneratedLibrary.shared
        let location = IndexLocation(databasePath: TestSupport.temporaryDirectory("rescan").appendingPathComponent("index.sqlite").path)
        let library = try PhotoLibrary(roots: [generated.rootPath], location: location)
        var first = ScanProgress(), second = ScanProgress()
        try library.scan(progress: { first = $0 })
        try library.scan(.everyFile, progress: { second = $0 })
        XCTAssertGreaterThan(first.filesRead, 500)
        XCTAssertEqual(second.filesRead, 0, "nothing read again")
        XCTAssertEqual(second.filesUnchanged, first.filesRead, "every file read then is found unchanged")
    }

    /// A Live Photo whose movie is committed a batch before its still (".MOV" sorts before
    /// ".jpg") is paired all the same by a first scan.
    func testAFirstScanPairsAStillWrittenABatchAfterItsMovie() throws {
        let generated = GeneratedLibrary.shared
        let still = try XCTUnwrap(generated.files.first { $0["kind"] as? String == "live_photo" && ($0["path"] as? String)?.hasSuffix(".JPG") == true })
        let stillPath = generated.path(of: still)
        let movie = FilePath(String(stillPath.displayString.dropLast(4)) + ".MOV")
        XCTAssertTrue(FileManager.default.fileExists(atPath: movie.displayString))
        let folder = TestSupport.temporaryDirectory("live-batches").appendingPathComponent("Phone")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("IMG_0001.jpg").path
        try FileManager.default.copyItem(atPath: stillPath.displayString, toPath: copy)
        try FileManager.default.copyItem(atPath: movie.displayString, toPath: folder.appendingPathComponent("IMG_0001.MOV").path)
        // Its date in XMP alone: read in full by the first pass, the still is not read again
        // (a partial row's full read would relink its stem).
        let edited = try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-all=", "-XMP-exif:DateTimeOriginal=2020:01:02 03:04:05", copy])
        XCTAssertEqual(edited.status, 0, edited.error)
        let library = try PhotoLibrary(roots: [FilePath(folder.path)], location: IndexLocation(
            databasePath: TestSupport.temporaryDirectory("live-batches-index").appendingPathComponent("index.sqlite").path))
        library.useBatches(of: 1)
        try library.scan()
        XCTAssertEqual(try library.paths(in: .smart(.livePhotos)).map(\.lastComponent), [Array("IMG_0001.jpg".utf8)])
        XCTAssertEqual(try library.paths(in: .smart(.recents)).map(\.lastComponent), [Array("IMG_0001.jpg".utf8)], "the movie half is hidden")
    }

    /// The indexes the first pass of a first scan sets aside are every index in date order that
    /// the migrations define, as they define them.
    func testTheDateIndexesSetAsideAreThoseOfTheSchema() throws {
        let location = IndexLocation(databasePath: TestSupport.temporaryDirectory("schema").appendingPathComponent("index.sqlite").path)
        let empty = try PhotoLibrary(roots: [], location: location)
        let definitions = try Self.schemaEntries(empty, "type = 'index' AND sql LIKE '%captured_at%'")
        XCTAssertGreaterThanOrEqual(definitions.count, 11)
        XCTAssertEqual(Set(definitions.keys), Set(Schema.dateOrderIndexes.map(\.name)))
        for index in Schema.dateOrderIndexes {
            XCTAssertEqual(index.create, definitions[index.name].map { $0.replacingOccurrences(of: "CREATE INDEX ", with: "CREATE INDEX IF NOT EXISTS ") })
        }
        let triggers = try Self.schemaEntries(empty, "type = 'trigger'")
        XCTAssertEqual(Set(triggers.keys), Set(Schema.countTriggers.map(\.name)))
        XCTAssertEqual(triggers.count, 3)
        for trigger in Schema.countTriggers {
            XCTAssertEqual(trigger.create, triggers[trigger.name].map { $0.replacingOccurrences(of: "CREATE TRIGGER ", with: "CREATE TRIGGER IF NOT EXISTS ") + ";" })
        }
    }

    private static func indexNames(_ library: PhotoLibrary) throws -> Set<String> {
        Set(try schemaEntries(library, "type = 'index' AND sql LIKE '%captured_at%'").keys)
    }

    /// The schema's entries matching `condition`: name to SQL.
    private static func schemaEntries(_ library: PhotoLibrary, _ condition: String) throws -> [String: String] {
        try library.withWriter { db in
            let statement = try db.statement("SELECT name, sql FROM sqlite_master WHERE \(condition)")
            defer { statement.reset() }
            var found: [String: String] = [:]
            while try statement.step() { found[statement.string(0) ?? ""] = statement.string(1) ?? "" }
            return found
        }
    }
}

/// exiv2's lock lets a thumbnail in sight pass the index's readers waiting for it.
final class PriorityLockTests: XCTestCase {
    func testAnUrgentWaiterGoesBeforeOrdinaryOnesThatCameFirst() {
        final class Log: @unchecked Sendable {
            private let lock = Lock()
            private var names: [String] = []
            func append(_ name: String) { lock.withLock { names.append(name) } }
            var all: [String] { lock.withLock { names } }
        }
        let lock = PriorityLock()
        let log = Log()
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        // Threads of their own (a dispatch queue would hold a block back while its threads wait).
        let done = DispatchSemaphore(value: 0)
        func thread(_ body: @escaping @Sendable () -> Void) { Thread { body(); done.signal() }.start() }
        thread {
            lock.withLock(urgent: false) {
                holding.signal()
                release.wait()
                log.append("holder")
            }
        }
        holding.wait()
        for name in ["reader-1", "reader-2"] {
            thread { lock.withLock(urgent: false) { log.append(name) } }
        }
        usleep(100_000)  // the readers wait now
        thread { lock.withLock(urgent: true) { log.append("thumbnail") } }
        usleep(100_000)
        release.signal()
        for _ in 0..<4 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success) }
        let ran = log.all
        XCTAssertEqual(ran.first, "holder")
        XCTAssertEqual(ran.dropFirst().first, "thumbnail", "\(ran)")
        XCTAssertEqual(Set(ran), ["holder", "reader-1", "reader-2", "thumbnail"])
    }
}
