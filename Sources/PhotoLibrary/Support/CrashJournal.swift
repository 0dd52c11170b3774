// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import Glibc
import Synchronization

/// What the readers left in this process were reading, kept where it outlives a crash: a small
/// file beside the index (`<index>.reading-<pid>`), mapped shared, one slot per reader at work.
/// The parsers that still run in the window's process (the quick date reader, the content
/// sniffer, the in-process fallback when there are no workers) are memory-safe Swift, but a
/// bug in one ends the process with a trap; without this, every later start would meet the
/// same file and end the same way.
///
/// In the photopick program, which installs handlers for the crash signals
/// (`installSignalHandlers()`), the slot of the reader that crashed is marked
/// (`photopick_crash_journal_*`). The next start finds the journal of a process that is gone and
/// holds a mark: that slot's file becomes a suspect, kept in `<index>.suspects` with its size
/// and time, and is not read again until it changes. The index lists it as failed with the
/// reason (`ls --errors`). A journal of a process that ended any other way (closed, killed,
/// interrupted) is only removed.
///
/// Inside another program (the embedded picker), signals are the host's: no handler marks the
/// crash, and a journal of a process that is gone cannot tell a crash from a kill. Each file
/// its readers were on gets a strike instead (`<index>.strikes`), and a file with two, the
/// same version both times, becomes a suspect: a file that ends the process ends it every time.
public final class CrashJournal: @unchecked Sendable {  // the mapping's slots are claimed atomically
    static let slotCount = 32
    static let slotSize = 4096
    /// The reason a suspect is listed with.
    public static let suspicion = "Photopick stopped while reading this file once; it is not read again until it changes"

    private let indexPath: String
    private let journalPath: String
    private let suspectsPath: String
    private let mapping: UnsafeMutableRawPointer?
    private let claimed = Atomic<UInt32>(0)
    private let suspects: Mutex<[FilePath: FileVersion]>

    /// Marks the crashes of this process's readers from handlers for the crash signals. Only
    /// the photopick program does, at start: a library never takes a host's signals.
    public static func installSignalHandlers() { marksCrashes.store(true, ordering: .relaxed) }
    private static let marksCrashes = Atomic<Bool>(false)

    /// The journal kept beside `indexPath` (an index, or any file a reader works for: the
    /// thumbnail cache has one), one per process: two libraries of one index share it.
    public static func shared(indexPath: String) -> CrashJournal {
        journals.withLock { journals in
            if let journal = journals[indexPath] { return journal }
            let journal = CrashJournal(indexPath: indexPath)
            journals[indexPath] = journal
            return journal
        }
    }
    private static let journals = Mutex<[String: CrashJournal]>([:])

    /// The journal of the index at `indexPath`; the suspects of processes that crashed reading
    /// for it before are gathered first. Without a writable folder it journals nothing.
    /// (`shared(indexPath:)` is the one to use; tests make their own.)
    public init(indexPath: String) {
        self.indexPath = indexPath
        journalPath = "\(indexPath).reading-\(getpid())"
        suspectsPath = "\(indexPath).suspects"
        suspects = Mutex(Self.readSuspects(suspectsPath))
        // (Gathered before this process's own journal is made: it is never among them.)
        let found = Self.gatherCrashes(indexPath: indexPath)
        mapping = Self.map(journalPath)
        take(found)
        if let mapping {
            if Self.marksCrashes.load(ordering: .relaxed) {
                photopick_crash_journal_install()
                mapping.storeBytes(of: Self.marked, toByteOffset: 1, as: UInt8.self)
            }
            CrashJournal.removeAtExit(journalPath)
        }
    }

    /// Takes in the journals that processes now gone left beside the index: the file a crashed
    /// one was on becomes a suspect (kept in `<index>.suspects`). Done as the journal is made,
    /// and again whenever a library opens the index (another process may have crashed since).
    public func gatherCrashes() {
        take(Self.gatherCrashes(indexPath: indexPath))
    }

    private func take(_ found: [FilePath]) {
        guard !found.isEmpty else { return }
        suspects.withLock { suspects in
            for path in found {
                if let version = Self.version(of: path) { suspects[path] = version }
            }
            Self.writeSuspects(suspects, to: suspectsPath)
        }
    }

    deinit {
        if let mapping { munmap(mapping, Self.slotSize * (Self.slotCount + 1)) }
        unlink(journalPath)
        CrashJournal.forget(journalPath)
    }

    /// The reason `path` is not read, when a crash put it under suspicion and it has not changed since.
    public func suspicion(of path: FilePath) -> String? {
        guard let version = suspects.withLock({ $0[path] }) else { return nil }
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0, Int64(info.st_size) == version.size,
              Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec) == version.modificationTimeNanoseconds else { return nil }
        return Self.suspicion
    }

    /// Runs `body`, a read of `path`, with the path in a slot of the journal.
    public func reading<R>(_ path: FilePath, _ body: () -> R) -> R {
        guard let mapping, let slot = claimSlot() else { return body() }
        let slotStart = mapping + Self.slotSize * (slot + 1)
        let bytes = path.bytes.prefix(Self.slotSize - 1)
        bytes.withUnsafeBytes { slotStart.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        slotStart.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        photopick_crash_journal_enter(mapping.assumingMemoryBound(to: UInt8.self), Int32(slot))
        defer {
            photopick_crash_journal_leave()
            slotStart.storeBytes(of: 0, as: UInt8.self)
            releaseSlot(slot)
        }
        return body()
    }

    private func claimSlot() -> Int? {
        var current = claimed.load(ordering: .relaxed)
        while current != UInt32.max {
            let slot = (~current).trailingZeroBitCount
            let (exchanged, original) = claimed.compareExchange(expected: current, desired: current | (1 << UInt32(slot)), ordering: .acquiring)
            if exchanged { return slot }
            current = original
        }
        return nil  // more readers at once than slots: read unjournaled
    }

    private func releaseSlot(_ slot: Int) {
        claimed.bitwiseAnd(~(UInt32(1) << UInt32(slot)), ordering: .releasing)
    }

    private static func version(of path: FilePath) -> FileVersion? {
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0 else { return nil }
        return FileVersion(size: Int64(info.st_size),
                           modificationTimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                           inode: UInt64(info.st_ino))
    }

    // MARK: The files

    /// The journal's second byte when its process marks crashes (its first is the mark).
    private static let marked: UInt8 = 1

    /// A new journal, zeroed: a page for the mark, then the slots.
    private static func map(_ path: String) -> UnsafeMutableRawPointer? {
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let length = slotSize * (slotCount + 1)
        // Its blocks taken now: a mapping of a file only ftruncate()d ends the process with
        // SIGBUS at its first write when the disk is full (a tmpfs, at once).
        guard posix_fallocate(fd, 0, off_t(length)) == 0,
              let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            unlink(path)
            return nil
        }
        return mapped
    }

    /// The paths the crashed readers of earlier processes were on; every journal of a process
    /// that is gone is removed.
    private static func gatherCrashes(indexPath: String) -> [FilePath] {
        let (marked, struck) = gatherJournals(indexPath: indexPath)
        return marked + secondStrikes(struck, path: "\(indexPath).strikes")
    }

    /// The files the readers of processes now gone were on: those a crash marked, and those of
    /// journals with no handler to mark them (a strike each).
    private static func gatherJournals(indexPath: String) -> (marked: [FilePath], struck: [FilePath]) {
        let index = FilePath(indexPath)
        let folder = index.parent
        let prefix = Array(index.lastComponent) + Array(".reading-".utf8)
        guard let directory = folder.withCString({ opendir($0) }) else { return ([], []) }
        var found: [FilePath] = []
        var struck: [FilePath] = []
        var gone: [FilePath] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard name.starts(with: prefix), let pid = Int32(String(decoding: name.dropFirst(prefix.count), as: UTF8.self)),
                  pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            gone.append(folder.appending(name))
        }
        closedir(directory)
        for journal in gone {
            defer { _ = journal.withCString { unlink($0) } }
            guard let bytes = ConfigurationFile.read(journal, limit: slotSize * (slotCount + 1)),
                  bytes.count == slotSize * (slotCount + 1) else { continue }
            let path = { (slot: Int) -> FilePath? in
                let bytes = bytes[(slotSize * slot)..<(slotSize * (slot + 1))].prefix { $0 != 0 }
                return bytes.isEmpty ? nil : FilePath(bytes: Array(bytes))
            }
            let mark = Int(bytes[0])
            if (1...slotCount).contains(mark) {
                if let file = path(mark) { found.append(file) }
            } else if bytes[1] != marked {
                struck += (1...slotCount).compactMap(path)
            }
        }
        return (found, struck)
    }

    /// Of `struck`, the files struck before, the same version then: they become suspects and
    /// leave the strikes file, where the others are kept.
    private static func secondStrikes(_ struck: [FilePath], path: String) -> [FilePath] {
        guard !struck.isEmpty else { return [] }
        var strikes = readSuspects(path)
        var second: [FilePath] = []
        for file in struck {
            guard let version = version(of: file) else { continue }
            if strikes[file] == version {
                second.append(file)
                strikes[file] = nil
            } else {
                strikes[file] = version
            }
        }
        writeSuspects(strikes, to: path)
        return second
    }

    /// "size mtime_ns inode path" records, each ended by a NUL (a path may hold a newline).
    private static func readSuspects(_ path: String) -> [FilePath: FileVersion] {
        guard let bytes = ConfigurationFile.read(FilePath(path), limit: 1 << 20) else { return [:] }
        var suspects: [FilePath: FileVersion] = [:]
        for record in bytes.split(separator: 0) {
            let fields = record.split(separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let size = Int64(String(decoding: fields[0], as: UTF8.self)),
                  let time = Int64(String(decoding: fields[1], as: UTF8.self)),
                  let inode = UInt64(String(decoding: fields[2], as: UTF8.self)), !fields[3].isEmpty else { continue }
            suspects[FilePath(bytes: Array(fields[3]))] = FileVersion(size: size, modificationTimeNanoseconds: time, inode: inode)
        }
        return suspects
    }

    private static func writeSuspects(_ suspects: [FilePath: FileVersion], to path: String) {
        var bytes: [UInt8] = []
        // (The newest thousand are plenty: each is one crash.)
        for (file, version) in suspects.prefix(1000) {
            bytes += Array("\(version.size) \(version.modificationTimeNanoseconds) \(version.inode) ".utf8) + file.bytes + [0]
        }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written == bytes.count { rename(temporary, path) } else { unlink(temporary) }
    }

    // MARK: A clean exit removes the journal

    private static let exitLock = Mutex<Set<String>>([])
    private static let exitHandler: Void = { atexit { CrashJournal.exitLock.withLock { $0.forEach { unlink($0) } } } }()

    private static func removeAtExit(_ path: String) {
        _ = exitHandler
        exitLock.withLock { _ = $0.insert(path) }
    }

    private static func forget(_ path: String) {
        exitLock.withLock { _ = $0.remove(path) }
    }
}
