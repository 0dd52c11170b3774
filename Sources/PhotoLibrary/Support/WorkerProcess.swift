// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import CDecodeChannel

/// A child process of this program that works for it over a Unix socket (descriptor 3), as the
/// decode and metadata workers do: started with its output to /dev/null, stopped with SIGKILL,
/// and described in words when it ended on its own.
public final class WorkerProcess {
    public let pid: pid_t
    public let socket: Int32
    /// Descriptors handed to the worker beside its socket (from 4 on), kept open here too.
    public let sharedFiles: [Int32]
    private var reaped = false

    /// The descriptor the worker's socket has in the worker.
    public static let channel: Int32 = 3

    private init(pid: pid_t, socket: Int32, sharedFiles: [Int32]) {
        self.pid = pid
        self.socket = socket
        self.sharedFiles = sharedFiles
    }

    deinit { stop() }

    /// Starts `executable` with `arguments`; `sharedFiles` become its descriptors 4, 5, ….
    /// Returns the reason on failure.
    public static func start(_ executable: String, _ arguments: [String], sharedFiles: [Int32] = []) -> Result<WorkerProcess, WorkerStartError> {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return .failure(WorkerStartError(reason: errorDescription(errno)))
        }
        // Each descriptor goes to its number in the child by dup2, in turn: one that already has a
        // number handed out before it would be overwritten first (a shared file that is
        // descriptor 3, in a process with nothing else open, became the worker's socket, and
        // every decode failed). They are copied above those numbers first.
        let highest = channel + Int32(sharedFiles.count)
        var lifted: [Int32] = []
        defer { lifted.forEach { close($0) } }
        func above(_ fd: Int32) -> Int32 {
            guard fd <= highest else { return fd }
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, highest + 1)
            if copy >= 0 { lifted.append(copy) }
            return copy >= 0 ? copy : fd
        }
        let socketEnd = above(ends[1])
        let handed = sharedFiles.map(above)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // (dup2 onto a new number leaves the copy without close-on-exec.)
        posix_spawn_file_actions_adddup2(&actions, socketEnd, channel)
        for (index, fd) in handed.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, channel + 1 + Int32(index)) }
        // Nothing else of this process's reaches the worker: a descriptor opened here without
        // close-on-exec (by a host app, or inherited from whoever started us) would be the
        // worker's to write to. (The worker closes them too as it starts.)
        photopick_spawn_close_from(&actions, channel + 1 + Int32(sharedFiles.count))
        let cArguments = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, cArguments, environ)
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            return .failure(WorkerStartError(reason: errorDescription(result)))
        }
        return .success(WorkerProcess(pid: pid, socket: ends[0], sharedFiles: sharedFiles))
    }

    /// Kills the worker (if it still runs) and waits for it; returns its wait status.
    @discardableResult
    public func stop() -> Int32 {
        guard !reaped else { return 0 }
        reaped = true
        close(socket)
        sharedFiles.forEach { close($0) }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Kills the worker, waits for it, and says how it had ended: "crashed (Segmentation fault)",
    /// "used more than its processor time", or ended from outside.
    public func stopAndDescribe() -> WorkerEnd {
        let status = stop()
        let signal = status & 0x7f
        switch signal {
        case SIGXCPU: return .outOfProcessorTime
        case _ where Self.crashSignals.contains(signal): return .crashed(strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)")
        case 0: return .endedFromOutside("exited")
        default: return .endedFromOutside(strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)")
        }
    }

    /// The signals a process dies of when what it runs goes wrong (a fault, an abort, a Swift
    /// trap, a call its filter kills it for): a worker ended by one was taken down by its file.
    static let crashSignals: Set<Int32> = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    public enum WorkerEnd: Equatable {
        /// By a crash signal: its file's doing.
        case crashed(String)
        /// By its processor-time limit (SIGXCPU): its file's doing.
        case outOfProcessorTime
        /// Killed from outside (the OOM killer or earlyoom picks the biggest process, often a
        /// worker on a big photo; a person's `kill`), or ended by itself: not its file's doing,
        /// and the file is tried again in a new worker. ("Killed", "Terminated", "exited".)
        case endedFromOutside(String)
    }

    /// The worker's processor time so far (user and system), from /proc.
    public var processorSeconds: Double? { Self.processorSeconds(of: pid) }

    public static func processorSeconds(of pid: pid_t) -> Double? {
        guard let bytes = ConfigurationFile.read(FilePath("/proc/\(pid)/stat"), limit: 4096) else { return nil }
        // "pid (name) state ppid …": the fields after the name's closing parenthesis; utime and
        // stime are the 14th and 15th of the line.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 13, let user = Double(String(decoding: fields[11], as: UTF8.self)),
              let system = Double(String(decoding: fields[12], as: UTF8.self)) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A process's address space in bytes (the first field of /proc/PID/statm, in pages).
    public static func addressSpace(of pid: pid_t) -> Int? {
        guard let bytes = ConfigurationFile.read(FilePath("/proc/\(pid)/statm"), limit: 256),
              let pages = bytes.split(separator: UInt8(ascii: " ")).first.flatMap({ Int(String(decoding: $0, as: UTF8.self)) }) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Waits until the worker's socket has something to read, or `check` says why to stop
    /// waiting (asked every 0.1 s). Nil when there is something to read.
    public func waitForReply<Reason>(check: () -> Reason?) -> Reason? {
        while true {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready > 0 { return nil }
            if ready < 0 && errno != EINTR { return nil }  // the read that follows says what is wrong
            if let reason = check() { return reason }
        }
    }

    /// "20 s", "0.5 s": a limit in a message.
    public static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The path of this program when it is `photopick`, else nil (a test process).
    public static let photopickExecutable: String? = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix("/photopick") ? path : nil
    }()

    /// The folder of libphotopick-1.so, when this code runs as its implementation
    /// (`<folder>/photopick-1/libphotopick-implementation.so`): the picker embedded in another
    /// program (a Python interpreter, a chat client). Nil in photopick and in tests.
    public static let embeddingLibraryFolder: FilePath? = {
        guard photopickExecutable == nil, let file = photopick_code_file(), let resolved = realpath(file, nil) else { return nil }
        defer { free(resolved) }
        let path = FilePath(String(cString: resolved))
        return String(decoding: path.lastComponent, as: UTF8.self).hasPrefix("libphotopick-implementation.so") ? path.parent.parent : nil
    }()

    /// What runs this program's workers: `photopick-worker` beside photopick (the build tree) or
    /// in ../libexec (an installed prefix), which starts in 20-30 ms without the window's
    /// libraries; else photopick itself, which has the same `decode-worker` and
    /// `metadata-worker` commands. For the embedded picker, the photopick-worker beside
    /// libphotopick-1.so or in the prefix's libexec. Nil in a test process, and for an embedded
    /// picker whose worker is missing: its decodes then run in process.
    public static let workerExecutable: String? = photopickExecutable.map { photopick in
        workerExecutable(besidePhotopick: photopick)
    } ?? embeddingLibraryFolder.flatMap { folder in
        // (…/lib or …/lib/x86_64-linux-gnu: libexec is one or two folders up.)
        let candidates = [folder.appending("photopick-worker"), folder.parent.appending("libexec").appending("photopick-worker"),
                          folder.parent.parent.appending("libexec").appending("photopick-worker")]
        return candidates.first { $0.withCString { access($0, X_OK) } == 0 }?.displayString
    }

    /// The worker program for the photopick at `photopick` (tests, benchmarks).
    public static func workerExecutable(besidePhotopick photopick: String) -> String {
        let folder = FilePath(photopick).parent
        let candidates = [folder.appending("photopick-worker"), folder.parent.appending("libexec").appending("photopick-worker")]
        return candidates.first { $0.withCString { access($0, X_OK) } == 0 }?.displayString ?? photopick
    }
}

public struct WorkerStartError: Error {
    public let reason: String
}
