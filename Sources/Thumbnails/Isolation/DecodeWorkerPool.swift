// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import CGdkPixbuf
import Glibc
import PhotoLibrary

/// The window's side of the decode workers (`DecodeWorker`): long-lived `photopick
/// decode-worker` processes, one per core at most, started when a decode first needs one. A
/// worker loads the everyday formats' loaders only (JPEG, PNG, GIF, WebP…), or all of them; the
/// second kind, one per core at most too, starts when a HEIF, TIFF or AVIF first needs it. A
/// decode goes to an idle worker with the file's descriptor and comes back as pixels in the memory
/// file this process made for that worker. A worker that crashes, runs out of its processor time or takes too long is killed and
/// replaced, and its file is reported as damaged with the reason ("the WebP decoder crashed on
/// this file"); the window stays up. Thread-safe: the loader's threads decode at once.
///
/// One memory budget holds for all workers together: a decode's need is estimated from the
/// file's header before it starts (width × height × 4 bytes, less for a JPEG scaled while it
/// is decoded; the whole budget when no header says), and a decode that would take the total
/// over the budget waits for the others.
/// One that needs more than the whole budget is refused at once. Each worker's address space is
/// bounded by the budget as well, so an estimate that was wrong cannot take the machine.
public final class DecodeWorkerPool: @unchecked Sendable {  // state behind `changed`
    public let executable: String
    public let maximumWorkers: Int
    /// Bytes all decodes may hold at once.
    public let memoryBudget: Int
    /// Processor seconds a decode may take: watched from here every 0.1 s, and bounded in the
    /// worker too (RLIMIT_CPU, in whole seconds, a little later) should this process stall.
    public let cpuSeconds: Double
    /// Seconds a decode may take in all (a worker waiting on nothing is killed too).
    public let wallSeconds: Double
    /// What a decode's share of the budget holds beyond its estimate (`decoderHeadroom`; a test
    /// may give less than nothing: shares below the estimates, as wrong estimates would be).
    public let headroom: Int

    private final class Worker {
        let process: WorkerProcess
        let formats: DecodeWorker.Formats
        /// The memory file the worker writes pixels into, mapped here read-only.
        let shared: (address: UnsafeRawPointer, size: Int)
        /// The least address space it was seen to hold between decodes (`keepsTooMuch`).
        var settledSize: Int?
        var pid: pid_t { process.pid }
        var socket: Int32 { process.socket }
        init(_ process: WorkerProcess, formats: DecodeWorker.Formats, shared: (address: UnsafeRawPointer, size: Int)) {
            self.process = process
            self.formats = formats
            self.shared = shared
        }
        deinit { munmap(UnsafeMutableRawPointer(mutating: shared.address), shared.size) }
    }

    /// The shared memory file's size: the largest flavour's pixels (1024² × 4) twice over. Made
    /// here and sealed against shrinking and growing, it is the only place pixels are taken from.
    static let sharedPixelsSize = 8 << 20

    /// Guards the state below; signalled whenever a worker or a share of the budget comes free.
    private let changed = ConditionLock()
    private var idle: [Worker] = []
    /// Workers at work (or starting) of each kind.
    private var busy: [DecodeWorker.Formats: Int] = [:]
    private var reserved = 0
    private var started = 0
    private var replaced = 0
    private var widenedCount = 0

    public init(executable: String, maximumWorkers: Int = DecodeWorkerPool.defaultWorkers,
                memoryBudget: Int = DecodeWorkerPool.defaultBudget, cpuSeconds: Double = 20, wallSeconds: Double = 60,
                headroom: Int = DecodeWorkerPool.decoderHeadroom) {
        self.executable = executable
        self.headroom = headroom
        self.maximumWorkers = max(1, maximumWorkers)
        self.memoryBudget = memoryBudget
        self.cpuSeconds = cpuSeconds
        self.wallSeconds = wallSeconds
    }

    deinit {
        for worker in idle { stop(worker) }
    }

    /// One a core, at most four (more would only share the same cores and memory).
    public static var defaultWorkers: Int { max(1, min(4, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }

    /// About 1 GB, less on a machine with under 8 GB: an eighth of its memory, at least 256 MB.
    public static var defaultBudget: Int {
        let memory = Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        return min(1 << 30, max(256 << 20, memory / 8))
    }

    /// The pool of this program, when it is `photopick` (it is its own decode worker); nil in
    /// a test process, which decodes in process unless a test makes a pool of its own.
    public static let ofThisProgram: DecodeWorkerPool? = WorkerProcess.workerExecutable.map { DecodeWorkerPool(executable: $0) }

    /// Workers started so far, and those replaced after a crash or a deadline (tests).
    public var statistics: (started: Int, replaced: Int) { locked { (started, replaced) } }

    /// Decodes that failed within their share of the budget and were tried again with all of it.
    public var widened: Int { locked { widenedCount } }

    /// Workers running now (idle or at work) with each kind of loaders (tests).
    public var running: [DecodeWorker.Formats: Int] {
        locked { Dictionary(uniqueKeysWithValues: DecodeWorker.Formats.allCases.map { ($0, count(of: $0)) }) }
    }

    private func count(of formats: DecodeWorker.Formats) -> Int { (busy[formats] ?? 0) + idle.count(where: { $0.formats == formats }) }

    /// The process ids of the workers at work now (tests stop or crash them from outside).
    public var busyWorkerIDs: [pid_t] { locked { Array(working.keys) } }

    /// The process ids of the idle workers (tests look at what they hold).
    public var idleWorkerIDs: [pid_t] { locked { idle.map(\.pid) } }
    /// The workers at work: their kind, and the processor time their decode has used (read once
    /// it has run 0.1 s).
    private var working: [pid_t: (formats: DecodeWorker.Formats, processorSeconds: Double)] = [:]

    /// The processor time a decode uses before it yields: another worker may then start beside
    /// it. (Processor time, not time: on a loaded machine every decode takes long, and extra
    /// workers would only share the same cores.)
    static let yieldAfter = 1.0

    /// Starts the everyday workers now, off the calling thread, so that the first decodes do
    /// not wait for them (a worker takes 20-30 ms to start). For a first run, whose grid waits on
    /// its first screen's decodes; a warm start decodes nothing.
    public func prestart() {
        WorkerPool.detached(name: "decode-start") { [self] in start() }
    }

    /// Starts the everyday workers there are not yet: what `prestart` does off the calling
    /// thread. With `waitingUntilReady`, returns once each has answered (a benchmark that times
    /// decodes apart from the workers' start).
    public func start(waitingUntilReady: Bool = false) {
        let missing = locked { () -> Int in
            let count = max(0, maximumWorkers - count(of: .everyday))
            busy[.everyday, default: 0] += count
            started += count
            return count
        }
        for _ in 0..<missing {
            var worker = try? spawn(.everyday).get()
            if waitingUntilReady, let started = worker, askSandbox(started) == nil {
                stop(started)
                worker = nil
            }
            locked {
                busy[.everyday, default: 0] -= 1
                if let worker { idle.append(worker) } else { started -= 1 }
                changed.broadcast()
            }
        }
    }

    // MARK: Decoding

    /// Asks a worker what its sandbox lets through (it tries to open a file and make a socket).
    public func checkSandbox(formats: DecodeWorker.Formats = .everyday) -> String? {
        guard case .success(let worker) = take(formats, reserving: 0, isCancelled: { false }) else { return nil }
        let answer = askSandbox(worker)
        locked {
            busy[worker.formats, default: 0] -= 1
            if answer != nil { idle.append(worker) }
            changed.broadcast()
        }
        if answer == nil { stop(worker) }
        return answer
    }

    /// The worker's answer to checkSandbox: also the sign that it has started and loaded its
    /// loaders.
    private func askSandbox(_ worker: Worker) -> String? {
        let request = DecodeMessages.Request(box: 1, cpuSeconds: 5, maximumPixels: 1, kind: .checkSandbox).bytes
        var answer: String?
        if photopick_channel_send(worker.socket, request, request.count, -1) == 0,
           // (Within 5 s, however the answer is cut up: a worker stalled halfway is given up on.)
           case .reply(let reply, let text, _) = DecodeMessages.readReply(from: worker.socket, within: { 5000 }), reply.outcome == .checked {
            answer = text
        }
        return answer
    }

    /// Decodes the EXIF thumbnail embedded in the JPEG `file` to fit in `box`, in a worker (the
    /// grid's first paint: small, but libjpeg's input all the same).
    public func decodeEmbeddedPreview(_ file: OpenFile, fittingIn box: Int, maximumPixels: Int) -> Pixbuf? {
        try? decode(file, mimeType: "image/jpeg", fittingIn: box, maximumPixels: maximumPixels, kind: .embeddedPreview).get().pixbuf
    }

    /// Decodes `file` (of `mimeType`, for the words of a failure) to fit in `box` in a worker.
    public func decode(_ file: OpenFile, mimeType: String, fittingIn box: Int, maximumPixels: Int,
                       isCancelled: () -> Bool = { false }) -> Result<ImageDecoder.Decoded, ThumbnailFailure> {
        decode(file, mimeType: mimeType, fittingIn: box, maximumPixels: maximumPixels, kind: .decode, isCancelled: isCancelled)
    }

    private func decode(_ file: OpenFile, mimeType: String, fittingIn box: Int, maximumPixels: Int, kind: DecodeMessages.Request.Kind,
                        isCancelled: () -> Bool = { false }) -> Result<ImageDecoder.Decoded, ThumbnailFailure> {
        // An EXIF thumbnail is at most 64 KB of JPEG: its pixels, and the copy that fits the box.
        let estimate = kind == .embeddedPreview ? 2 * box * box * 4 : Self.estimatedBytes(of: file, mimeType: mimeType, box: box, unknown: memoryBudget)
        guard estimate <= memoryBudget else {
            return .failure(.undecodable("decoding it would take about \(estimate >> 20) MB, more than the \(memoryBudget >> 20) MB allowed"))
        }
        // The decode's share of the budget, which its worker's address space may not outgrow:
        // what the estimate sees, and what a decoder takes whatever the file (its tables, its
        // buffers, a thread's stack). The shares of the decodes under way never add up to more
        // than the budget, so neither do the workers, whatever a file makes its decoder do.
        var need = max(1 << 20, min(memoryBudget, estimate + headroom))
        var widened = false
        // A worker ended from outside (the OOM killer's choice, a person's kill) is not the
        // file's doing: the file is tried again in a new worker, and blamed only when that one
        // ends the same way.
        var interruption: String?
        while true {
            let worker: Worker
            switch take(DecodeWorker.Formats.needed(for: mimeType), reserving: need, isCancelled: isCancelled) {
            case .success(let taken): worker = taken
            case .failure(let failure): return .failure(failure)
            }
            locked { working[worker.pid] = (worker.formats, 0) }
            let result = run(worker, file: file, mimeType: mimeType, box: box, maximumPixels: maximumPixels, kind: kind,
                             allowance: need, isCancelled: isCancelled)
            let extra = locked { () -> Bool in
                working[worker.pid] = nil
                reserved -= need
                busy[worker.formats, default: 0] -= 1
                // (A worker started beside a long decode is let go once it is one too many.)
                let extra = count(of: worker.formats) >= maximumWorkers
                if case .success = result.outcome { if !extra && !Self.keepsTooMuch(worker) { idle.append(worker) } } else { replaced += 1 }
                changed.broadcast()
                return extra
            }
            // A decode held to its share that failed (its decoder gave up, or crashed) may have
            // wanted memory the estimate did not see: it is tried once more with the whole budget,
            // alone, before the file is blamed.
            if !widened, need < memoryBudget, case .failure(.undecodable) = result.decoded, Self.mayHaveWantedMemory(result.outcome) {
                if case .success = result.outcome, extra || Self.keepsTooMuch(worker) { stop(worker) }
                if case .crashed = result.outcome { stop(worker) }
                widened = true
                need = memoryBudget
                locked { widenedCount += 1 }
                continue
            }
            switch result.outcome {
            case .success: if extra || Self.keepsTooMuch(worker) { stop(worker) }
            case .failure, .crashed: stop(worker)
            case .endedFromOutside(let how):
                if let earlier = interruption {
                    let ends = earlier == how ? "\(how.lowercased()) twice" : "\(earlier.lowercased()), then \(how.lowercased())"
                    return .failure(.undecodable("the \(Self.formatName(mimeType)) decoder was stopped on this file twice (\(ends))"))
                }
                interruption = how
                continue
            }
            return result.decoded
        }
    }

    /// A worker with the loaders `formats` for a decode needing `need` bytes: an idle one (of
    /// that kind first), a new one while there are fewer of its kind than the maximum, or the
    /// next to come free; and room in the budget.
    private func take(_ formats: DecodeWorker.Formats, reserving need: Int, isCancelled: () -> Bool) -> Result<Worker, ThumbnailFailure> {
        changed.lock()
        while true {
            let roomy = reserved == 0 || reserved + need <= memoryBudget
            if roomy, let index = idle.lastIndex(where: { $0.formats == formats }) ?? idle.lastIndex(where: { $0.formats.covers(formats) }) {
                let worker = idle.remove(at: index)
                busy[worker.formats, default: 0] += 1
                reserved += need
                changed.unlock()
                return .success(worker)
            }
            // A decode past a second of processor time yields its worker's turn: while it runs,
            // one more worker may start (as many more as run that long, at most the maximum
            // again), so that the cells in sight are not left behind a slow file.
            let long = working.values.count { $0.formats == formats && $0.processorSeconds > Self.yieldAfter }
            if roomy, count(of: formats) < maximumWorkers + min(long, maximumWorkers) {
                busy[formats, default: 0] += 1
                reserved += need
                started += 1
                changed.unlock()
                switch spawn(formats) {
                case .success(let worker): return .success(worker)
                case .failure(let failure):
                    locked {
                        busy[formats, default: 0] -= 1
                        reserved -= need
                        changed.broadcast()
                    }
                    return .failure(failure)
                }
            }
            if isCancelled() {
                changed.unlock()
                return .failure(.cancelled)
            }
            changed.wait(seconds: 0.1)
        }
    }

    /// How a decode ended for its worker: it answered (with a picture or a failure), it must go
    /// (a limit, an answer that does not hold together), it crashed, or it was ended from outside.
    private enum Outcome { case success, failure, crashed, endedFromOutside(String) }

    private func run(_ worker: Worker, file: OpenFile, mimeType: String, box: Int, maximumPixels: Int, kind: DecodeMessages.Request.Kind,
                     allowance: Int, isCancelled: () -> Bool) -> (outcome: Outcome, decoded: Result<ImageDecoder.Decoded, ThumbnailFailure>) {
        let request = DecodeMessages.Request(box: box, cpuSeconds: Int(cpuSeconds.rounded(.up)) + 1, maximumPixels: maximumPixels,
                                             kind: kind, memoryAllowance: allowance, mimeType: mimeType).bytes
        // (Read from /proc only once a decode has run 0.1 s: most take milliseconds, and each read
        // cost them more than the hand-over. The worker's RLIMIT_CPU counts from the start.)
        var cpuAtStart: Double?
        guard photopick_channel_send(worker.socket, request, request.count, file.descriptor) == 0 else {
            return crashed(worker, mimeType: mimeType)
        }
        // Waited for in slices. A cancelled decode (the cell scrolled away) is let finish, as one
        // in process would: killing the worker would cost the next decode a new one (its start
        // and its loaders). Only a cancelled decode still running after a second frees it.
        let started = monotonicSeconds()
        let deadline = started + wallSeconds
        while true {
            var poller = pollfd(fd: worker.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready > 0 { break }
            if ready < 0 && errno != EINTR { return crashed(worker, mimeType: mimeType) }
            if monotonicSeconds() - started > 1, isCancelled() { return (.failure, .failure(.cancelled)) }
            guard let start = cpuAtStart else {
                cpuAtStart = Self.processorSeconds(of: worker.pid)
                continue
            }
            let now = Self.processorSeconds(of: worker.pid)
            if let now {
                let used = now - start
                locked {
                    working[worker.pid]?.processorSeconds = used
                    if used > Self.yieldAfter { changed.broadcast() }
                }
            }
            if let now, now - start > cpuSeconds {
                return (.failure, .failure(.undecodable("the \(Self.formatName(mimeType)) decoder used more than \(Self.seconds(cpuSeconds)) of processor time on this file")))
            }
            if monotonicSeconds() > deadline {
                return (.failure, .failure(.undecodable("the \(Self.formatName(mimeType)) decoder took longer than \(Self.seconds(wallSeconds)) on this file")))
            }
        }
        let reply: DecodeMessages.Reply, message: String, cameWithFile: Bool
        switch DecodeMessages.readReply(from: worker.socket, within: { Self.milliseconds(until: deadline) }) {
        case .late:
            return (.failure, .failure(.undecodable("the \(Self.formatName(mimeType)) decoder took longer than \(Self.seconds(wallSeconds)) on this file")))
        case .garbage:
            // Not an answer of ours: a worker taken over by this file.
            return (.failure, .failure(.undecodable("the \(Self.formatName(mimeType)) decoder gave back an answer that does not hold together")))
        case .ended:
            return crashed(worker, mimeType: mimeType)
        case .reply(let read, let text, let withFile):
            (reply, message, cameWithFile) = (read, text, withFile)
        }
        switch reply.outcome {
        case .decoded:
            // Pixels are taken only from the memory file this process made and sealed against
            // shrinking and growing: a file of the worker's own could be cut short while it is
            // copied (SIGBUS in the window). A worker that sends one was taken over.
            guard !cameWithFile, reply.inSharedFile,
                  let decoded = Self.picture(reply, from: worker.shared.address, size: worker.shared.size) else {
                return (.failure, .failure(.undecodable("the \(Self.formatName(mimeType)) decoder gave back a picture that does not hold together")))
            }
            return (.success, .success(decoded))
        case .undecodable:
            return (.success, .failure(.undecodable(message)))
        case .tooLarge:
            return (.success, .failure(.tooLarge(width: reply.imageWidth, height: reply.imageHeight, limit: reply.limit)))
        case .temporary:
            return (.success, .failure(.temporary(message)))
        case .checked:
            return (.failure, .failure(.undecodable("the \(Self.formatName(mimeType)) decoder answered out of turn")))
        }
    }

    /// What became of a worker that stopped answering: killed, waited for, said in words.
    private func crashed(_ worker: Worker, mimeType: String) -> (outcome: Outcome, decoded: Result<ImageDecoder.Decoded, ThumbnailFailure>) {
        let decoder = "the \(Self.formatName(mimeType)) decoder"
        switch worker.process.stopAndDescribe() {
        case .outOfProcessorTime: return (.failure, .failure(.undecodable("\(decoder) used more than \(Self.seconds(cpuSeconds)) of processor time on this file")))
        case .crashed(let signal): return (.crashed, .failure(.undecodable("\(decoder) crashed on this file (\(signal))")))
        case .endedFromOutside(let how): return (.endedFromOutside(how), .failure(.temporary("\(decoder) was stopped (\(how))")))
        }
    }

    private func stop(_ worker: Worker) { worker.process.stop() }

    /// Stops the workers that wait for work (the last picker of a host went): they are started
    /// again when a decode needs one. Workers at work finish their decode and stay.
    public func stopIdleWorkers() {
        let stopping = locked { () -> [Worker] in
            defer { idle = [] }
            return idle
        }
        for worker in stopping { stop(worker) }
    }

    // MARK: Programs of other projects

    /// The share of the budget a thumbnailer of another project (a video's) is held to: its
    /// address space is bounded by it (`photopick_confine_program`), and it runs only when the
    /// decodes under way leave that much. (4K H.264 through ffmpegthumbnailer: 339 MB of address
    /// space, 105 MB resident, on this project's machine.)
    public var thumbnailerShare: Int { min(memoryBudget, 512 << 20) }

    /// Runs `body` holding `share` bytes of the budget, as a decode does (nil when cancelled
    /// while it waits for room).
    public func holding<R>(_ share: Int, isCancelled: () -> Bool = { false }, _ body: () -> R) -> R? {
        let need = min(share, memoryBudget)
        changed.lock()
        while !(reserved == 0 || reserved + need <= memoryBudget) {
            if isCancelled() {
                changed.unlock()
                return nil
            }
            changed.wait(seconds: 0.1)
        }
        reserved += need
        changed.unlock()
        defer {
            locked {
                reserved -= need
                changed.broadcast()
            }
        }
        return body()
    }

    /// Whether a worker holds, between decodes, more address space than it settled at plus the
    /// headroom: what a decode left behind is nobody's share of the budget, so such a worker is
    /// let go (its allocator gives large buffers back, so this is rare).
    private static func keepsTooMuch(_ worker: Worker) -> Bool {
        guard let size = WorkerProcess.addressSpace(of: worker.pid) else { return false }
        guard let settled = worker.settledSize else {
            worker.settledSize = size
            return false
        }
        worker.settledSize = min(settled, size)
        return size > settled + decoderHeadroom
    }

    /// A decode the worker answered with a failure, or that crashed it: what running out of
    /// its share of memory looks like (not a limit of time, not an answer out of line).
    private static func mayHaveWantedMemory(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .success, .crashed: true
        case .failure, .endedFromOutside: false
        }
    }

    // MARK: Starting a worker

    private func spawn(_ formats: DecodeWorker.Formats) -> Result<Worker, ThumbnailFailure> {
        let sharedFile = photopick_shared_pixels_file(Self.sharedPixelsSize)
        guard sharedFile >= 0 else { return .failure(.temporary("cannot start a decode worker: no memory for its pixels: \(errorDescription(errno))")) }
        guard let address = mmap(nil, Self.sharedPixelsSize, PROT_READ, MAP_SHARED, sharedFile, 0), address != MAP_FAILED else {
            close(sharedFile)
            return .failure(.temporary("cannot start a decode worker: cannot map its pixels: \(errorDescription(errno))"))
        }
        let shared = (UnsafeRawPointer(address), Self.sharedPixelsSize)
        // (WorkerProcess keeps the descriptor and closes it with the worker; the mapping stays.)
        let arguments = ["decode-worker", "--memory", String(memoryBudget), "--formats", formats.rawValue]
        switch WorkerProcess.start(executable, arguments, sharedFiles: [sharedFile]) {
        case .success(let process): return .success(Worker(process, formats: formats, shared: shared))
        case .failure(let error):
            munmap(address, Self.sharedPixelsSize)
            close(sharedFile)
            return .failure(.temporary("cannot start a decode worker: \(error.reason)"))
        }
    }

    private func locked<R>(_ body: () -> R) -> R { changed.withLock(body) }
}
