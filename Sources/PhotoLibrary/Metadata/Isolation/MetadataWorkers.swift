// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import Dispatch
import Glibc
import Synchronization

/// The index's side of the metadata workers (`MetadataWorker`): long-lived `photopick
/// metadata-worker` processes, one per core at most, started when a scan first needs one. The
/// headers of a batch of photos and videos (exiv2's reads, and our own header readers) are
/// parsed in one request: the index's readers hand over a chunk of 64 files at a time, so the
/// round trip is shared by all of them. A worker that crashes, or spends more than its
/// processor time or its wall time on one file, is killed; that file is recorded as failed with
/// the reason ("the metadata reader crashed on this file (Segmentation fault)") and the rest of
/// the batch goes to a new worker. A worker killed from outside (the OOM killer, a person's
/// kill) costs nothing: its batch goes to a new worker, and a file is blamed only when that
/// happens twice on it. Thread-safe.
public final class MetadataWorkers: @unchecked Sendable {  // the idle workers behind `idle`'s lock
    public let executable: String
    public let maximumWorkers: Int
    /// Processor seconds one file may take (watched from here; RLIMIT_CPU backs it up in the worker).
    public let cpuSecondsPerFile: Double
    /// Seconds one file may take in all.
    public let wallSecondsPerFile: Double

    private final class Worker: @unchecked Sendable {  // used by one batch at a time
        let process: WorkerProcess
        /// Which file of the batch the worker is on (a shared page; `UInt32.max` between batches).
        let progress: UnsafeMutablePointer<UInt32>
        init(process: WorkerProcess, progress: UnsafeMutablePointer<UInt32>) {
            self.process = process
            self.progress = progress
        }
        deinit {
            munmap(progress, 4096)
            process.stop()
        }
    }

    private let idle = Mutex<[Worker]>([])
    private let slots: DispatchSemaphore
    private let counts = Mutex<(started: Int, replaced: Int)>((0, 0))

    /// The nice value the workers run at: 10 for the reads a scan makes behind the first
    /// screen, as its own threads there (the workers' exiv2 then gives way to the thumbnails the
    /// person waits for, as it did in process).
    public let niceness: Int32

    public init(executable: String, maximumWorkers: Int = WorkerPool.processorCount,
                cpuSecondsPerFile: Double = 20, wallSecondsPerFile: Double = 60, niceness: Int32 = 0) {
        self.executable = executable
        self.niceness = niceness
        self.maximumWorkers = max(1, maximumWorkers)
        self.cpuSecondsPerFile = cpuSecondsPerFile
        self.wallSecondsPerFile = wallSecondsPerFile
        slots = DispatchSemaphore(value: self.maximumWorkers)
    }

    /// The workers of this program, when it is `photopick`; nil in a test process, which reads
    /// in process unless a test makes workers of its own.
    public static let ofThisProgram: MetadataWorkers? = WorkerProcess.workerExecutable.map { MetadataWorkers(executable: $0) }
    /// The same, at a lower priority, for the reads behind the first screen.
    public static let inBackgroundOfThisProgram: MetadataWorkers? = WorkerProcess.workerExecutable.map {
        MetadataWorkers(executable: $0, niceness: 10)
    }

    /// Workers started so far, and those replaced after a crash or a deadline (tests).
    public var statistics: (started: Int, replaced: Int) { counts.withLock { $0 } }

    /// Stops (and reaps) the workers that wait for a batch (the last picker of a host went);
    /// a scan starts new ones when it needs them.
    public func stopIdleWorkers() {
        let stopping = idle.withLock { idle -> [Worker] in
            defer { idle = [] }
            return idle
        }
        _ = stopping  // (each Worker stops its process as it goes)
    }

    /// The workers at work on a batch now, and which file of it each is on (tests crash them
    /// from outside).
    public var busyWorkers: [(pid: pid_t, file: Int?)] {
        busy.withLock { $0.map { worker in (worker.process.pid, worker.progress.pointee == UInt32.max ? nil : Int(worker.progress.pointee)) } }
    }
    private let busy = Mutex<[Worker]>([])

    // MARK: Parsing

    /// The outcomes of `jobs`, in order. Files a worker could not be started for are parsed
    /// here, in `journal`.
    func parse(_ jobs: [MetadataReader.HeaderJob], journal: CrashJournal?) -> [ReadOutcome] {
        var outcomes = [ReadOutcome?](repeating: nil, count: jobs.count)
        var remaining = Array(jobs.indices)
        var unplaced = 0
        // How a worker was stopped from outside while on each file: a second time blames it.
        var interrupted: [Int: String] = [:]
        while !remaining.isEmpty {
            let batch = Array(remaining.prefix(MetadataMessages.maximumBatch))
            switch run(batch.map { jobs[$0] }) {
            case .answered(let answers):
                for (index, answer) in zip(batch, answers) { outcomes[index] = answer }
                remaining.removeFirst(batch.count)
            case .failed(let position?, let reason):
                outcomes[batch[position]] = .failed(reason)
                remaining.remove(at: position)
                unplaced = 0
            case .failed(nil, let reason):
                // Not on any file (between batches, or at its start): the batch is asked again;
                // a worker that keeps failing so is given up on, and its first file blamed.
                unplaced += 1
                if unplaced >= 3 {
                    outcomes[batch[0]] = .failed(reason)
                    remaining.removeFirst()
                    unplaced = 0
                }
            case .interrupted(let position?, let how):
                // Killed from outside (the OOM killer, a person's kill) or ended by itself: not
                // the file's doing unless it happens again on the same file.
                let job = batch[position]
                if let earlier = interrupted[job] {
                    let ends = earlier == how ? "\(how.lowercased()) twice" : "\(earlier.lowercased()), then \(how.lowercased())"
                    outcomes[job] = .failed("the metadata reader was stopped on this file twice (\(ends))")
                    remaining.remove(at: position)
                } else {
                    interrupted[job] = how
                }
                unplaced = 0
            case .interrupted(nil, let how):
                unplaced += 1
                if unplaced >= 3 {
                    outcomes[batch[0]] = .failed("the metadata reader was stopped three times (\(how.lowercased()))")
                    remaining.removeFirst()
                    unplaced = 0
                }
            case .noWorker:
                for index in remaining {
                    let job = jobs[index]
                    outcomes[index] = journal.map { $0.reading(job.path) { MetadataReader.parse(job) } } ?? MetadataReader.parse(job)
                }
                remaining.removeAll()
            }
        }
        return outcomes.map { $0! }
    }

    private enum BatchResult {
        case answered([ReadOutcome])
        /// The file at `position` cost the worker its life (or its deadline): the others are to be
        /// asked again. Nil when the worker was on none.
        case failed(position: Int?, reason: String)
        /// The worker was stopped from outside (or ended by itself) while on the file at
        /// `position` (nil: on none): the batch is asked again.
        case interrupted(position: Int?, how: String)
        case noWorker
    }

    private func run(_ jobs: [MetadataReader.HeaderJob]) -> BatchResult {
        slots.wait()
        defer { slots.signal() }
        guard let worker = idle.withLock({ $0.popLast() }) ?? spawn() else { return .noWorker }
        worker.progress.pointee = UInt32.max
        busy.withLock { $0.append(worker) }
        defer { busy.withLock { $0.removeAll { $0 === worker } } }
        let payload = MetadataMessages.requestPayload(jobs.map(\.message))
        let request = MetadataMessages.headerBytes(magic: MetadataMessages.requestMagic, count: jobs.count, payload: payload.count) + payload
        let descriptors = jobs.map(\.file.descriptor)
        guard photopick_channel_send_fds(worker.process.socket, request, request.count, descriptors, Int32(descriptors.count)) == 0 else {
            return failure(worker, jobs)
        }
        // Each file gets its own processor and wall time: the clock starts again whenever the
        // worker moves on to the next file.
        var current = UInt32.max
        var fileStarted = monotonicSeconds()
        var cpuAtFileStart = worker.process.processorSeconds ?? 0
        let timedOut = worker.process.waitForReply { () -> String? in
            let now = worker.progress.pointee
            if now != current {
                current = now
                fileStarted = monotonicSeconds()
                cpuAtFileStart = worker.process.processorSeconds ?? cpuAtFileStart
                return nil
            }
            if let cpu = worker.process.processorSeconds, cpu - cpuAtFileStart > cpuSecondsPerFile {
                return "reading its metadata used more than \(Self.seconds(cpuSecondsPerFile)) of processor time"
            }
            if monotonicSeconds() - fileStarted > wallSecondsPerFile {
                return "reading its metadata took longer than \(Self.seconds(wallSecondsPerFile))"
            }
            return nil
        }
        if let timedOut { return late(worker, jobs, reason: timedOut) }
        // The reply is read within a file's wall time, however the worker cuts it up: one that
        // sends a byte of it and stops is given up on as one that sends nothing.
        let within = Int32(clamping: Int(wallSecondsPerFile * 1000))
        let lateness = "reading its metadata took longer than \(Self.seconds(wallSecondsPerFile))"
        var header = [UInt8](repeating: 0, count: MetadataMessages.headerSize)
        var stray: Int32 = -1
        let received = photopick_channel_receive_within(worker.process.socket, &header, header.count, &stray, within)
        guard received == header.count,
              let (count, length) = MetadataMessages.header(header, magic: MetadataMessages.replyMagic,
                                                           maximumPayload: MetadataMessages.maximumReplyPayload),
              count == jobs.count else {
            if stray >= 0 { close(stray) }
            return received < 0 && errno == ETIMEDOUT ? late(worker, jobs, reason: lateness) : failure(worker, jobs)
        }
        if stray >= 0 { close(stray) }
        var body = [UInt8](repeating: 0, count: length)
        if length > 0 {
            let got = photopick_channel_receive_within(worker.process.socket, &body, length, &stray, within)
            guard got == length else { return got < 0 && errno == ETIMEDOUT ? late(worker, jobs, reason: lateness) : failure(worker, jobs) }
            if stray >= 0 { close(stray) }
        }
        guard let outcomes = MetadataMessages.outcomes(body, count: count) else {
            worker.process.stop()
            counts.withLock { $0.replaced += 1 }
            // Not an answer of ours: the worker was taken over by one of these files, which one is not known.
            return .answered(jobs.map { _ in .failed("the metadata reader gave back an answer that does not hold together") })
        }
        idle.withLock { $0.append(worker) }
        return .answered(outcomes)
    }

    /// A worker past one of its deadlines: stopped, and the file it was on blamed.
    private func late(_ worker: Worker, _ jobs: [MetadataReader.HeaderJob], reason: String) -> BatchResult {
        let position = Int(worker.progress.pointee)
        worker.process.stop()
        counts.withLock { $0.replaced += 1 }
        return .failed(position: jobs.indices.contains(position) ? position : nil, reason: reason)
    }

    /// A worker that stopped answering: the file it was on is blamed, in words, when the worker
    /// crashed or ran out of its processor time.
    private func failure(_ worker: Worker, _ jobs: [MetadataReader.HeaderJob]) -> BatchResult {
        let progress = Int(worker.progress.pointee)
        let position = jobs.indices.contains(progress) ? progress : nil
        let end = worker.process.stopAndDescribe()
        counts.withLock { $0.replaced += 1 }
        switch end {
        case .crashed(let signal): return .failed(position: position, reason: "the metadata reader crashed on this file (\(signal))")
        case .outOfProcessorTime:
            return .failed(position: position, reason: "reading its metadata used more than \(Self.seconds(cpuSecondsPerFile)) of processor time")
        case .endedFromOutside(let how): return .interrupted(position: position, how: how)
        }
    }

    private func spawn() -> Worker? {
        let shared = photopick_progress_file()
        guard shared >= 0 else { return nil }
        guard let mapped = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, shared, 0), mapped != MAP_FAILED else {
            close(shared)
            return nil
        }
        let progress = mapped.bindMemory(to: UInt32.self, capacity: 1)
        progress.pointee = UInt32.max
        guard case .success(let process) = WorkerProcess.start(executable, ["metadata-worker"], sharedFiles: [shared]) else {
            close(shared)
            munmap(mapped, 4096)
            return nil
        }
        if niceness != 0 { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(process.pid), niceness) }
        counts.withLock { $0.started += 1 }
        return Worker(process: process, progress: progress)
    }

    static func seconds(_ value: Double) -> String { WorkerProcess.seconds(value) }
}
