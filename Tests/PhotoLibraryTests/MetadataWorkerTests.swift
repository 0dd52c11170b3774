// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import TestSupport
import XCTest
@testable import PhotoLibrary

/// The index's headers parsed in `photopick metadata-worker` processes (issue 20): the same
/// outcomes as in process, a batch per request, and a worker that crashes or runs past its time
/// costs its one file, with the reason; the rest of the batch is read by a new worker.
final class MetadataWorkerTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = TestSupport.temporaryDirectory("metadata-worker")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private func files(under root: URL) -> [(path: FilePath, version: FileVersion)] {
        var found: [(FilePath, FileVersion)] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
        for case let url as URL in enumerator {
            var info = stat()
            guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append((FilePath(url.path), FileVersion(size: Int64(info.st_size), modificationTimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000,
                                                          inode: UInt64(info.st_ino))))
        }
        return found.sorted { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }
    }

    /// exiv2 words a file it cannot open differently when it reads it from memory (the worker)
    /// than from a path: "unsupported format" against "Failed to read input data". The reason is
    /// compared up to exiv2's words.
    private func comparable(_ outcome: ReadOutcome) -> ReadOutcome {
        if case .failed(let reason) = outcome, reason.hasPrefix("cannot read the image header:") { return .failed("cannot read the image header:") }
        return outcome
    }

    private func read(_ files: [(path: FilePath, version: FileVersion)], datesOnly: Bool, workers: MetadataWorkers?) -> [ReadOutcome] {
        stride(from: 0, to: files.count, by: 64).flatMap { start in
            MetadataReader.read(Array(files[start..<min(files.count, start + 64)]), datesOnly: datesOnly, workers: workers, journal: nil)
        }
    }

    func testWorkersReadWhatThisProcessReads() throws {
        // The generated library's photos and videos of every kind, the hostile headers of
        // TestSupport, and what bench/fuzz found.
        let hostile = folder.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        try HostileFiles.writeLibrary(in: hostile)
        let all = files(under: GeneratedLibrary.shared.root) + files(under: hostile)
            + files(under: TestSupport.packageRoot.appendingPathComponent("Tests/Corpus/files"))
        XCTAssertGreaterThan(all.count, 1200)
        let workers = MetadataWorkers(executable: TestSupport.photopick, maximumWorkers: 2)
        for datesOnly in [false, true] {
            let here = read(all, datesOnly: datesOnly, workers: nil)
            let there = read(all, datesOnly: datesOnly, workers: workers)
            XCTAssertEqual(here.count, there.count)
            var differences = 0
            for (index, (mine, theirs)) in zip(here, there).enumerated() where comparable(mine) != comparable(theirs) {
                differences += 1
                if differences <= 5 { XCTFail("\(all[index].path): \(mine) here, \(theirs) in a worker") }
            }
            XCTAssertEqual(differences, 0, datesOnly ? "dates only" : "full reads")
        }
        // Photos and videos of every kind, in batches: a few workers, none replaced.
        let media = read(all, datesOnly: false, workers: workers).filter { if case .media = $0 { true } else { false } }
        XCTAssertGreaterThan(media.count, 1000)
        XCTAssertEqual(workers.statistics.replaced, 0)
        XCTAssert((1...2).contains(workers.statistics.started), "\(workers.statistics)")
    }

    func testAWorkerIsShutInBySeccomp() throws {
        let workers = MetadataWorkers(executable: TestSupport.photopick, maximumWorkers: 1)
        let photo = try writePhoto("photo.jpg")
        _ = MetadataReader.read([photo], datesOnly: false, workers: workers, journal: nil)
        // The worker that read it stays, idle, for the next batch: its status says it is filtered.
        let pids = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { Int32($0) }.filter { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.contains("metadata-worker") == true
                && (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")[3] == Substring(String(getpid()))
        }
        XCTAssertEqual(pids.count, 1, "one worker of this process")
        let status = try String(contentsOfFile: "/proc/\(pids[0])/status", encoding: .utf8)
        XCTAssert(status.contains("Seccomp:\t2"), "in seccomp's filter mode: \(status)")
        XCTAssert(status.contains("NoNewPrivs:\t1"))
    }

    /// A real photo of the generated library, copied.
    private func writePhoto(_ name: String) throws -> (path: FilePath, version: FileVersion) {
        let source = GeneratedLibrary.shared.files.first { $0["kind"] as? String == "photo" && ($0["path"] as? String)?.hasSuffix(".jpg") == true }!
        let target = folder.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: GeneratedLibrary.shared.path(of: source).displayString, toPath: target.path)
        return files(under: folder).first { $0.path.displayString == target.path }!
    }

    /// A PNG of one pixel with an XMP packet of `items` keywords: exiv2's XMP parser takes a
    /// second or more of processor time over 600,000 of them.
    private func slowPNG(_ name: String, items: Int = 600_000) throws -> (path: FilePath, version: FileVersion) {
        let script = """
            import struct, sys, zlib
            def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
            items = "".join("<rdf:li>k%d</rdf:li>" % i for i in range(int(sys.argv[2])))
            xmp = ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                   '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag>' + items +
                   '</rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>').encode()
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + chunk(b"iTXt", b"XML:com.adobe.xmp\\0\\0\\0\\0\\0" + xmp)
            open(sys.argv[1], "wb").write(png + chunk(b"IDAT", zlib.compress(b"\\0\\x80\\x80\\x80")) + chunk(b"IEND", b""))
            """
        let target = folder.appendingPathComponent(name)
        let made = try TestSupport.run("/usr/bin/python3", ["-c", script, target.path, String(items)])
        XCTAssertEqual(made.status, 0, made.error)
        return files(under: folder).first { $0.path.displayString == target.path }!
    }

    private func isPhoto(_ outcome: ReadOutcome) -> Bool {
        if case .media(let media) = outcome { return media.kind == .photo && media.width != nil }
        return false
    }

    /// A worker taken over by its file (`stand-in-worker`) that sends one byte of its reply, or
    /// a header announcing 4,096 bytes and 10 of them, then nothing: the read ends at the wall
    /// time (2 s here, the batch asked three times as for any worker that failed between files),
    /// not never (issue 37).
    func testAReplyCutShortEndsAtTheDeadline() throws {
        let photo = try writePhoto("photo.jpg")
        for behaviour in ["one-byte", "short-text"] {
            let workers = MetadataWorkers(executable: try TestSupport.standInWorker(behaviour, in: folder), maximumWorkers: 1,
                                          wallSecondsPerFile: 2)
            final class Box: @unchecked Sendable {
                let photo: (path: FilePath, version: FileVersion)
                var outcomes: [ReadOutcome] = []
                init(_ photo: (path: FilePath, version: FileVersion)) { self.photo = photo }
            }
            let box = Box(photo), done = DispatchSemaphore(value: 0)
            let started = monotonicSeconds()
            Thread {
                box.outcomes = MetadataReader.read([box.photo], datesOnly: false, workers: workers, journal: nil)
                done.signal()
            }.start()
            if done.wait(timeout: .now() + 30) == .timedOut {
                XCTFail("\(behaviour): the read still waited after 30 s")
                // (Each worker killed, until the read gives up: nothing is left waiting.)
                repeat { workers.busyWorkers.forEach { kill($0.pid, SIGKILL) } } while done.wait(timeout: .now() + 0.2) == .timedOut
                continue
            }
            XCTAssertEqual(box.outcomes, [.failed("reading its metadata took longer than 2 s")], behaviour)
            XCTAssertLessThan(monotonicSeconds() - started, 12, behaviour)
            XCTAssertTrue(workers.busyWorkers.isEmpty)
        }
    }

    /// The OOM killer or a person's kill ends a worker while it reads an honest file: the batch
    /// goes to a new worker and every file is read; a file is blamed only when a worker is
    /// killed on it twice (issue 37: 16 kills during a first index dropped 9 photos).
    func testAWorkerKilledFromOutsideCostsItsFileNothing() throws {
        let batch = [try writePhoto("a.jpg"), try slowPNG("slow.png"), try writePhoto("b.jpg")]
        for (times, signal) in [(1, SIGKILL), (1, SIGTERM), (2, SIGKILL)] {
            let workers = MetadataWorkers(executable: TestSupport.photopick, maximumWorkers: 1)
            let killer = Thread {
                var killed: Set<pid_t> = []
                for _ in 0..<2000 where killed.count < times {
                    // (On the slow file, the batch's second.)
                    if let worker = workers.busyWorkers.first(where: { $0.file == 1 && !killed.contains($0.pid) }) {
                        usleep(50_000)
                        kill(worker.pid, signal)
                        killed.insert(worker.pid)
                    }
                    usleep(2_000)
                }
            }
            killer.start()
            let outcomes = MetadataReader.read(batch, datesOnly: false, workers: workers, journal: nil)
            while !killer.isFinished { usleep(10_000) }
            XCTAssert(isPhoto(outcomes[0]) && isPhoto(outcomes[2]), "\(outcomes)")
            if times == 1 {
                XCTAssert(isPhoto(outcomes[1]), "killed once (\(signal)): read by a new worker: \(outcomes[1])")
            } else {
                XCTAssertEqual(outcomes[1], .failed("the metadata reader was stopped on this file twice (killed twice)"))
            }
            XCTAssertEqual(workers.statistics.replaced, times)
        }
    }

    func testAFileThatRunsPastItsProcessorTimeCostsOnlyItself() throws {
        let batch = [try writePhoto("a.jpg"), try slowPNG("slow.png"), try writePhoto("b.jpg")]
        let workers = MetadataWorkers(executable: TestSupport.photopick, maximumWorkers: 1, cpuSecondsPerFile: 0.2)
        let outcomes = MetadataReader.read(batch, datesOnly: false, workers: workers, journal: nil)
        XCTAssert(isPhoto(outcomes[0]), "\(outcomes[0])")
        XCTAssertEqual(outcomes[1], .failed("reading its metadata used more than 0.2 s of processor time"))
        XCTAssert(isPhoto(outcomes[2]), "the file after it is read by a new worker: \(outcomes[2])")
        XCTAssertEqual(workers.statistics.started, 2)
        XCTAssertEqual(workers.statistics.replaced, 1)
        // In process, without the limit, the same file is a photo: it was the time, not the file.
        XCTAssert(isPhoto(MetadataReader.read([batch[1]], datesOnly: false, workers: nil, journal: nil)[0]))
    }

    func testAWorkerThatCrashesCostsOnlyTheFileItWasOn() throws {
        let batch = [try writePhoto("a.jpg"), try writePhoto("b.jpg"), try slowPNG("crash.png"), try writePhoto("c.jpg")]
        let workers = MetadataWorkers(executable: TestSupport.photopick, maximumWorkers: 1)
        // The worker is crashed from outside while it is on the slow file, as a reader's bug
        // would crash it.
        let done = SharedFlag(false)
        let crasher = Thread {
            while !done.value {
                if let worker = workers.busyWorkers.first, worker.file == 2 {
                    kill(worker.pid, SIGSEGV)
                    return
                }
                usleep(2000)
            }
        }
        crasher.start()
        let outcomes = MetadataReader.read(batch, datesOnly: false, workers: workers, journal: nil)
        done.value = true
        XCTAssert(isPhoto(outcomes[0]) && isPhoto(outcomes[1]), "\(outcomes)")
        XCTAssertEqual(outcomes[2], .failed("the metadata reader crashed on this file (Segmentation fault)"))
        XCTAssert(isPhoto(outcomes[3]), "\(outcomes[3])")
        XCTAssertEqual(workers.statistics.replaced, 1)
    }

    func testAMissingWorkerProgramReadsInProcess() throws {
        let batch = [try writePhoto("a.jpg")]
        let workers = MetadataWorkers(executable: folder.appendingPathComponent("no-such-program").path)
        XCTAssertEqual(MetadataReader.read(batch, datesOnly: false, workers: workers, journal: nil),
                       MetadataReader.read(batch, datesOnly: false, workers: nil, journal: nil))
    }
}

/// A flag two threads share in a test.
final class SharedFlag<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
