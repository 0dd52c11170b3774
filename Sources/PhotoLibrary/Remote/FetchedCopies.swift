// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// Local copies of picked photos that live on another machine, in
/// `$XDG_CACHE_HOME/photopick/fetched/`: what the picker answers with instead of a location
/// URI, since the app that asked wants a file it can open. A copy is written under a hidden
/// temporary name and renamed into place when complete, so a cancelled or failed fetch never
/// leaves a partial file under a real name (neither GLib nor gvfs removes a cancelled copy's
/// partial file). A copy is used again while the remote file keeps its size and modification
/// time; `trim` removes copies unused for long, and the oldest when the folder grows too large.
///
/// Every call blocks on the network or the disk: call it on a worker thread.
public struct FetchedCopies: Sendable {
    public let folder: FilePath

    /// Copies unused for 30 days go (a picker's answer is read by the app that asked at once;
    /// a month covers picking the same photos again).
    public static let defaultMaximumAge: Double = 30 * 86_400
    /// And the least recently used go while the copies take more than 1 GiB (some 300 camera photos).
    public static let defaultMaximumBytes: Int64 = 1 << 30

    public static var defaultFolder: FilePath { XDGDirectories.cacheHome.appending("photopick").appending("fetched") }

    public init(folder: FilePath = FetchedCopies.defaultFolder) { self.folder = folder }

    /// Why a fetch did not end in a copy.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Cancelled (the person unpicked it): nothing to say.
        case cancelled
        /// The reason, in the server's, GIO's or the system's words.
        case failed(String)
        /// The other computer's answer, sorted (for a sentence the person can read), with GIO's
        /// words (for the log).
        case remote(RemoteFiles.Failure.Kind, String)

        public var description: String {
            switch self {
            case .cancelled: "cancelled"
            case .failed(let reason), .remote(_, let reason): reason
            }
        }
    }

    /// The `file://` URI a local path is fetched from (a file on a network file system), or nil
    /// for a path GLib cannot name as one (not absolute).
    public static func location(ofLocalFile path: FilePath) -> FilePath? {
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return FilePath(String(cString: uri))
    }

    /// Where the copy of `location` goes: under its own name (the app shows that name), in a
    /// folder named by the MD5 of its URI, so that two IMG_0001.JPG of two folders stay apart.
    public func destination(of location: FilePath) -> FilePath {
        let digest = location.withCString { g_compute_checksum_for_string(G_CHECKSUM_MD5, $0, -1)! }
        defer { g_free(digest) }
        // (A `file://` location, a file on a network file system, is escaped as a GIO location
        // is: "Strand & Meer #1.jpg" arrived as "Strand%20&%20Meer%20%231.jpg".)
        var name = location.bytes.starts(with: Array("file://".utf8)) ? FilePath.percentDecoded(location.lastComponent) : location.lastName
        // (A name the server allows that no local file may have.)
        if name.isEmpty || name == Array(".".utf8) || name == Array("..".utf8) { name = Array("photo".utf8) }
        name = name.map { $0 == UInt8(ascii: "/") || $0 == 0 ? UInt8(ascii: "_") : $0 }
        return folder.appending(String(cString: digest)).appending(name)
    }

    /// Copies the file at `location` (a location URI) into `destination(of:)`, unless the copy
    /// there has the remote file's size and modification time already; returns the copy's path.
    /// `progress` hears the bytes copied and the file's size as they go: at the start, at most
    /// every 100 ms, and at the end. Throws `.cancelled` once `cancellation` is cancelled; a
    /// partial copy is removed in every case.
    ///
    /// Read through a GIO input stream on the store's own thread rather than with
    /// `g_file_copy_async`: the GFile is made and let go of as every remote one is
    /// (`RemoteFiles.file`), the temporary name and the reuse check stay in one place, and at
    /// 8 Mbit/s it keeps the line as full as `gio copy` (bench/fetch-benchmark.py: 0.996).
    public func fetch(_ location: FilePath, cancellation: Cancellation,
                      progress: (_ copied: Int64, _ total: Int64) -> Void) throws(Failure) -> FilePath {
        // A photo rewritten on the server while it was copied is copied again, as it is now; one
        // that changes again meanwhile is reported, never handed over torn.
        do {
            return try fetchOnce(location, cancellation: cancellation, progress: progress)
        } catch let failure where failure == .failed(Self.changedWhileCopied) {
            return try fetchOnce(location, cancellation: cancellation, progress: progress)
        }
    }

    /// Why a copy was not handed over: the bytes that came are not the file's size, or its size
    /// or time on the server moved while they came (it was rewritten, cut short or grew).
    public static let changedWhileCopied = "the photo changed on the other computer while it was copied"

    private static func failed(_ location: FilePath, _ failure: RemoteFiles.Failure) -> Failure {
        .remote(failure.kind, failure.message)
    }

    private func fetchOnce(_ location: FilePath, cancellation: Cancellation,
                           progress: (_ copied: Int64, _ total: Int64) -> Void) throws(Failure) -> FilePath {
        let opened: Result<OpaquePointer, RemoteFiles.Failure> = RemoteFiles.mountingIfNeeded(location) {
            RemoteFiles.withFile(location) { file in
                // (One error a try: the first, freed, must not be written over by the second.)
                var error: UnsafeMutablePointer<GError>?
                guard let stream = g_file_read(file, cancellation.pointer, &error) else {
                    return .failure(RemoteFiles.Failure(taking: error))
                }
                return .success(OpaquePointer(stream))
            }
        }
        let stream: OpaquePointer
        switch opened {
        case .success(let value): stream = value
        case .failure(let failure): throw cancellation.isCancelled ? .cancelled : Self.failed(location, failure)
        }
        defer {
            _ = g_input_stream_close(UnsafeMutablePointer(stream), nil, nil)
            RemoteFiles.release(stream)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let info = g_file_input_stream_query_info(UnsafeMutablePointer(stream), RemoteFiles.listedAttributes, cancellation.pointer, &error) else {
            let failure = RemoteFiles.Failure(taking: error)
            throw cancellation.isCancelled ? .cancelled : Self.failed(location, failure)
        }
        let size = max(0, Int64(g_file_info_get_size(info)))
        let seconds = Int(g_file_info_get_attribute_uint64(info, "time::modified"))
        let microseconds = Int(g_file_info_get_attribute_uint32(info, "time::modified-usec"))
        g_object_unref(UnsafeMutableRawPointer(info))
        let modified = timespec(tv_sec: seconds, tv_nsec: microseconds * 1000)

        let destination = destination(of: location)
        let holder = destination.parent
        if isCopy(destination, size: size, modified: modified) {
            // Used again: the folder's time says when a copy was last used (trim).
            _ = holder.withCString { utimensat(AT_FDCWD, $0, nil, 0) }
            progress(size, size)
            return destination
        }
        for folder in [self.folder.parent, self.folder, holder] {
            guard folder.withCString({ mkdir($0, 0o700) }) == 0 || errno == EEXIST else {
                throw .failed("cannot make \(folder.displayString): \(errorDescription(errno))")
            }
        }
        var template = holder.appending(".fetching-XXXXXX").bytes.map { CChar(bitPattern: $0) } + [0]
        let output = mkstemp(&template)
        guard output >= 0 else { throw .failed("cannot write in \(holder.displayString): \(errorDescription(errno))") }
        _ = fcntl(output, F_SETFD, FD_CLOEXEC)
        // Held while the copy is written, given up with the descriptor (or the process): a
        // temporary file no one holds is one a process left when it ended mid-copy (`trim`).
        _ = flock(output, LOCK_EX)
        let temporary = FilePath(bytes: template.dropLast().map { UInt8(bitPattern: $0) })
        var renamed = false
        defer {
            if !renamed { _ = temporary.withCString { unlink($0) } }
        }

        progress(0, size)
        var copied: Int64 = 0
        var lastReport = monotonicSeconds()
        // 256 KiB a read: gvfs's SFTP backend keeps several 32 KiB requests in flight for it.
        let chunk = 256 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                g_input_stream_read(UnsafeMutablePointer(stream), raw.baseAddress, gsize(chunk), cancellation.pointer, &error)
            }
            if count < 0 {
                let failure = RemoteFiles.Failure(taking: error)
                close(output)
                throw cancellation.isCancelled ? .cancelled : Self.failed(location, failure)
            }
            if count == 0 { break }
            RemoteAnswers.heard(from: location)
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + written, count - written) }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    let code = errno
                    close(output)
                    throw .failed(errorDescription(code))
                }
                written += result
            }
            copied += Int64(count)
            let now = monotonicSeconds()
            if now - lastReport >= 0.1 {
                lastReport = now
                progress(copied, max(size, copied))
            }
            if cancellation.isCancelled {
                close(output)
                throw .cancelled
            }
        }
        // (Cancelled during the last read, which ended the file: still cancelled.)
        if cancellation.isCancelled {
            close(output)
            throw .cancelled
        }
        // What came is the file only if it is the size it had, and the file is as it was then.
        let after: (size: Int64, modified: timespec)? = RemoteFiles.withFile(location) { file in
            var error: UnsafeMutablePointer<GError>?
            guard let info = g_file_query_info(file, RemoteFiles.listedAttributes, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellation.pointer, &error) else {
                if let error { g_error_free(error) }
                return nil
            }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            let time = timespec(tv_sec: Int(g_file_info_get_attribute_uint64(info, "time::modified")),
                                tv_nsec: Int(g_file_info_get_attribute_uint32(info, "time::modified-usec")) * 1000)
            return (max(0, Int64(g_file_info_get_size(info))), time)
        }
        if cancellation.isCancelled {
            close(output)
            throw .cancelled
        }
        guard copied == size, let after, after.size == size, after.modified.tv_sec == modified.tv_sec,
              after.modified.tv_nsec == modified.tv_nsec else {
            close(output)
            throw .failed(Self.changedWhileCopied)
        }
        // The copy keeps the photo's time (apps sort by it), and is readable as a downloaded file is.
        var times = [modified, modified]
        _ = futimens(output, &times)
        let mask = umask(0)
        umask(mask)
        fchmod(output, 0o644 & ~mask)
        guard close(output) == 0 else { throw .failed(errorDescription(errno)) }
        guard temporary.withCString({ from in destination.withCString { rename(from, $0) } }) == 0 else {
            throw .failed("cannot write \(destination.displayString): \(errorDescription(errno))")
        }
        renamed = true
        progress(copied, copied)
        return destination
    }

    /// Whether `path` is a complete copy of a file of `size` bytes last modified at `modified`.
    private func isCopy(_ path: FilePath, size: Int64, modified: timespec) -> Bool {
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return Int64(info.st_size) == size && info.st_mtim.tv_sec == modified.tv_sec && info.st_mtim.tv_nsec == modified.tv_nsec
    }

    /// Removes the copies unused for `maximumAge` seconds, then the least recently used while
    /// all of them take more than `maximumBytes`; never those in `keeping` (the copies of the
    /// picks of the moment). A fetch's temporary file that no process is writing (left by one
    /// that ended mid-copy: killed, or gone while a server hung) goes at once; one that cannot
    /// be looked at so, after a day. Only this folder's own files are touched.
    public func trim(maximumAge: Double = FetchedCopies.defaultMaximumAge, maximumBytes: Int64 = FetchedCopies.defaultMaximumBytes,
                     keeping: Set<FilePath> = []) {
        let now = Double(time(nil))
        var kept: [(holder: FilePath, used: Double, bytes: Int64)] = []
        for name in names(in: folder) {
            let holder = folder.appending(name)
            var info = stat()
            guard holder.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            let used = Double(info.st_mtim.tv_sec)
            var bytes: Int64 = 0, inUse = false
            for name in names(in: holder) {
                let path = holder.appending(name)
                var fileInfo = stat()
                guard path.withCString({ lstat($0, &fileInfo) }) == 0 else { continue }
                if name.starts(with: Array(".fetching-".utf8)) {
                    if now - Double(fileInfo.st_mtim.tv_sec) > 86_400 || !Self.isBeingWritten(path) { _ = path.withCString { unlink($0) } }
                    else { inUse = true }
                    continue
                }
                if keeping.contains(path) { inUse = true }
                bytes += Int64(fileInfo.st_size)
            }
            if inUse { continue }
            if now - used > maximumAge {
                remove(holder)
            } else {
                kept.append((holder, used, bytes))
            }
        }
        var total = kept.reduce(0) { $0 + $1.bytes }
        for entry in kept.sorted(by: { $0.used < $1.used }) where total > maximumBytes {
            remove(entry.holder)
            total -= entry.bytes
        }
    }

    /// Whether a process holds the lock of the fetch's temporary file `path` (or it cannot be
    /// looked at: then it is taken to be).
    private static func isBeingWritten(_ path: FilePath) -> Bool {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        guard fd >= 0 else { return true }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0
    }

    /// Removes one copy's folder: its files, then itself.
    private func remove(_ holder: FilePath) {
        for name in names(in: holder) { _ = holder.appending(name).withCString { unlink($0) } }
        _ = holder.withCString { rmdir($0) }
    }

    /// The names in a folder of ours, hidden ones too.
    private func names(in folder: FilePath) -> [[UInt8]] {
        guard let directory = folder.withCString({ opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names
    }
}

/// A GCancellable that any thread may cancel (`g_cancellable_cancel` is thread-safe): a fetch
/// under way stops at its next read, and a read that waits on the server returns at once.
public final class Cancellation: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable>

    public init() { pointer = g_cancellable_new() }
    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public func cancel() { g_cancellable_cancel(pointer) }
    public var isCancelled: Bool { g_cancellable_is_cancelled(pointer) != 0 }
}

private func monotonicSeconds() -> Double { Double(g_get_monotonic_time()) / 1_000_000 }
