// SPDX-License-Identifier: LGPL-2.1-or-later
import Dispatch
import CGLib
import Glibc

/// The folders and files of a library on another machine, reached through GIO and gvfs by their
/// location URI (`sftp://nas/photos`): what `DirectoryListing` and `OpenFile` do with `readdir`,
/// `stat` and `pread` for a local folder. Every call is synchronous and made on the scan's
/// threads (GIO's calls to gvfs block the caller only); nothing here runs on the GTK thread.
public enum RemoteFiles {
    /// Why a remote folder or file could not be read, sorted by what a scan must do about it.
    public struct Failure: Error, CustomStringConvertible {
        public enum Kind: Equatable {
            /// Not there (any more): its entry goes from the index, as a local file's does.
            case vanished
            /// There but refused (permission): its folder is kept with the reason.
            case refused
            /// gvfs has not mounted the location: mount it and try again.
            case notMounted
            /// The mount's gvfs process is gone (the server went away while it was mounted), and
            /// this process still knows the mount by it: forget it, mount again and try again.
            case staleMount
            /// The server did not answer (network down, server gone, NAS asleep): nothing may be
            /// concluded about its files, so the index keeps them as they were.
            case unreachable
        }
        public let kind: Kind
        public let message: String
        public var description: String { message }

        /// Sorts a GError (and frees it).
        init(taking error: UnsafeMutablePointer<GError>?) {
            defer { if let error { g_error_free(error) } }
            guard let error else {
                kind = .unreachable
                message = "no answer"
                return
            }
            message = error.pointee.message.map { String(cString: $0) } ?? "no answer"
            // gvfs's process that served the mount is gone (its server went away), and this
            // process still knows the mount by it: "The name :1.3 was not provided by any
            // .service files". Forgotten and mounted again, it answers through a new one.
            if error.pointee.domain == g_dbus_error_quark(),
               [G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER].contains(GDBusError(rawValue: UInt32(error.pointee.code))) {
                kind = .staleMount
                return
            }
            guard error.pointee.domain == g_io_error_quark() else {
                kind = .unreachable
                return
            }
            switch GIOErrorEnum(rawValue: UInt32(error.pointee.code)) {
            case G_IO_ERROR_NOT_FOUND, G_IO_ERROR_NOT_DIRECTORY, G_IO_ERROR_IS_DIRECTORY, G_IO_ERROR_NOT_REGULAR_FILE,
                 G_IO_ERROR_TOO_MANY_LINKS:
                kind = .vanished
            case G_IO_ERROR_PERMISSION_DENIED:
                kind = .refused
            case G_IO_ERROR_NOT_MOUNTED:
                kind = .notMounted
            default:
                // Timed out, connection closed or refused, host unreachable, and gvfs's plain
                // "failed" when its ssh went away: none of them says anything about the files.
                kind = .unreachable
            }
        }

        init(kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }
    }

    /// Held around making and letting go of a GFile of a location. gvfs 1.50's client keeps one
    /// shared description of each mount (a "unique" GMountSpec) for all of its files, and frees
    /// it when its last file goes, but only takes it out of its table after the count reached
    /// zero: a file made on another thread in between gets the freed one. Two threads making and
    /// freeing files of one sftp:// folder corrupted the heap within seconds ("malloc(): unaligned
    /// tcache chunk"); a scan of 5,000 remote files crashed in `g_mount_spec_match_with_path`
    /// one run in two. With a file of each mount kept (`pins`) the count never reaches zero;
    /// this lock covers mounts the pins do not guess. Opening, reading, listing and asking about
    /// files go on without it, in parallel: they only read the description.
    static let fileLifetimes = Lock()
    /// Held around a synchronous mount (and forgetting a stale one): eight readers finding the
    /// location unmounted mount it once, the others then find it mounted. Never taken on the GTK
    /// thread: a mount of a server that does not answer may hold it for minutes.
    static let mounting = Lock()
    /// A GFile for the top of each mount a location was made in (scheme, host and first folder:
    /// an SMB share, a phone's storage), kept for the life of the process: see `fileLifetimes`.
    nonisolated(unsafe) private static var pins: [[UInt8]: OpaquePointer] = [:]

    /// Lets go of a GFile, a stream or an enumerator of a remote location, under `fileLifetimes`
    /// (an enumerator holds its folder's GFile).
    static func release(_ object: OpaquePointer) {
        fileLifetimes.withLock { g_object_unref(UnsafeMutableRawPointer(object)) }
    }

    /// A GFile for `location` (a reference the caller unrefs).
    static func file(_ location: FilePath) -> OpaquePointer {
        fileLifetimes.withLock {
            let top = mountTop(of: location.bytes)
            if pins[top] == nil { pins[top] = (top + [0]).withUnsafeBufferPointer { g_file_new_for_uri(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) } }
            return location.withCString { g_file_new_for_uri($0) }
        }
    }

    /// "scheme://authority/first" of a location URI: the part that names its mount for every
    /// gvfs backend (the server; for SMB the share, for MTP the device's storage under it).
    static func mountTop(of uri: [UInt8]) -> [UInt8] {
        guard let schemeEnd = uri.firstRange(of: Array("://".utf8))?.upperBound else { return uri }
        var slashes = 0
        for index in schemeEnd..<uri.count where uri[index] == UInt8(ascii: "/") {
            slashes += 1
            if slashes == 2 { return Array(uri[..<index]) }
        }
        return uri
    }

    /// Calls `body` with a GFile of `location`, made and let go of as every GFile of a location
    /// must be on any thread (`file`). (The GFile is only lent: `body` must not keep it.)
    public static func withFile<R>(_ location: FilePath, _ body: (OpaquePointer) throws -> R) rethrows -> R {
        let file = file(location)
        defer { release(file) }
        return try body(file)
    }

    /// The attributes a listing asks for: only these travel (gvfs's SFTP backend answers a whole
    /// folder with one READDIR exchange, its entries' sizes and times included).
    static let listedAttributes = "standard::name,standard::type,standard::size,standard::is-symlink,time::modified,time::modified-usec"

    /// Mounts the volume that holds `location`, unless gvfs has mounted it already: without a
    /// way to ask, so that a server wanting a password fails with its reason.
    public static func mount(_ location: FilePath) throws(Failure) {
        var error: UnsafeMutablePointer<GError>?
        let mounted = withFile(location) { file in
            mounting.withLock { photopick_mount_enclosing_volume_sync(file, nil, nil, &error) }
        }
        guard mounted == 0 else { return }
        if let error, error.pointee.domain == g_io_error_quark(), error.pointee.code == Int32(G_IO_ERROR_ALREADY_MOUNTED.rawValue) {
            g_error_free(error)
            return
        }
        throw Failure(taking: error)
    }

    /// Calls `body`, and once more after mounting the location when gvfs had not mounted it
    /// (a first use, or after the server went away and gvfs let the mount go).
    static func mountingIfNeeded<R>(_ location: FilePath, _ body: () -> Result<R, Failure>) -> Result<R, Failure> {
        let first = body()
        guard case .failure(let failure) = first, failure.kind == .notMounted || failure.kind == .staleMount else { return first }
        if failure.kind == .staleMount {
            withFile(location) { file in mounting.withLock { photopick_forget_stale_mount_sync(file) } }
        }
        do { try mount(location) } catch { return .failure(error) }
        return body()
    }

    // MARK: Listing

    /// Lists a remote folder as `DirectoryListing.list` lists a local one: hidden entries and
    /// links left out, entries sorted by name, every file with its size and time.
    static func list(_ folder: FilePath) -> Result<DirectoryListing, Failure> {
        mountingIfNeeded(folder) { listOnce(folder) }
    }

    private static func listOnce(_ folder: FilePath) -> Result<DirectoryListing, Failure> {
        withFile(folder) { file in
            var error: UnsafeMutablePointer<GError>?
            // The folder's own time first: a change made while it is listed moves it on.
            let modified = modificationTime(ofFolder: file)
            guard let enumerator = g_file_enumerate_children(file, listedAttributes, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, nil, &error) else {
                return .failure(Failure(taking: error))
            }
            defer { release(OpaquePointer(enumerator)) }
            var entries: [DirectoryListing.Entry] = []
            while true {
                guard let info = g_file_enumerator_next_file(enumerator, nil, &error) else {
                    if error != nil { return .failure(Failure(taking: error)) }
                    break
                }
                defer { g_object_unref(UnsafeMutableRawPointer(info)) }
                guard let namePointer = g_file_info_get_name(info) else { continue }
                // (The name's bytes as the server has them: not UTF-8 necessarily.)
                let name = Array(UnsafeBufferPointer(start: UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self), count: strlen(namePointer)))
                guard let first = name.first, first != UInt8(ascii: ".") else { continue }
                entries.append(DirectoryListing.Entry(name: name, type: entryType(info)))
            }
            _ = g_file_enumerator_close(enumerator, nil, nil)
            entries.sort { $0.name.precedesInByteOrder($1.name) }
            return .success(DirectoryListing(entries: entries, modificationTimeNanoseconds: modified))
        }
    }

    /// What a file info says an entry is (links and anything but files and folders: `.other`).
    static func entryType(_ info: OpaquePointer) -> DirectoryListing.EntryType {
        if g_file_info_get_is_symlink(info) != 0 { return .other }
        switch g_file_info_get_file_type(info) {
        case G_FILE_TYPE_DIRECTORY:
            return .directory
        case G_FILE_TYPE_REGULAR:
            return .file(FileVersion(size: Int64(g_file_info_get_size(info)), modificationTimeNanoseconds: modifiedNanoseconds(info), inode: 0))
        default:
            return .other
        }
    }

    private static func modifiedNanoseconds(_ info: OpaquePointer) -> Int64 {
        let seconds = min(max(Int64(g_file_info_get_attribute_uint64(info, "time::modified")), -9_000_000_000), 9_000_000_000)
        return seconds * 1_000_000_000 + Int64(g_file_info_get_attribute_uint32(info, "time::modified-usec")) * 1000
    }

    private static func modificationTime(ofFolder file: OpaquePointer) -> Int64? {
        guard let info = g_file_query_info(file, "standard::type,time::modified,time::modified-usec", G_FILE_QUERY_INFO_NONE, nil, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        guard g_file_info_get_file_type(info) == G_FILE_TYPE_DIRECTORY,
              g_file_info_has_attribute(info, "time::modified") != 0 else { return nil }
        return modifiedNanoseconds(info)
    }

    /// A remote folder's modification time (nil: not a folder, or it did not answer).
    static func modificationTime(of folder: FilePath) -> Int64? {
        withFile(folder) { modificationTime(ofFolder: $0) }
    }

    /// What the server says of one entry (nil: gone; a failure to answer: `.unreachable`).
    static func entryType(of path: FilePath) -> Result<DirectoryListing.EntryType?, Failure> {
        mountingIfNeeded(path) {
            withFile(path) { file in
                var error: UnsafeMutablePointer<GError>?
                guard let info = g_file_query_info(file, listedAttributes, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, nil, &error) else {
                    let failure = Failure(taking: error)
                    return failure.kind == .vanished ? .success(nil) : .failure(failure)
                }
                defer { g_object_unref(UnsafeMutableRawPointer(info)) }
                return .success(entryType(info))
            }
        }
    }
}

extension RemoteFiles {
    /// GIO's own spelling of a location URI (escapes, a port, no "/" at its end), so that one
    /// location typed two ways is one library.
    static func canonical(_ location: FilePath) -> FilePath {
        withFile(location) { file in
            guard let uri = g_file_get_uri(file) else { return location }
            defer { g_free(uri) }
            var bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(uri).assumingMemoryBound(to: UInt8.self), count: strlen(uri)))
            // ("sftp://host/" keeps its slash: the server's top folder.)
            while bytes.count > 1, bytes.last == UInt8(ascii: "/"), bytes[bytes.count - 2] != UInt8(ascii: "/"),
                  bytes.filter({ $0 == UInt8(ascii: "/") }).count > 3 {
                bytes.removeLast()
            }
            return FilePath(bytes: bytes)
        }
    }
}

extension RemoteFiles {
    /// Mounts `location` when needed and checks that it is a folder; throws why not, in words.
    public static func checkFolder(_ location: FilePath) throws(Failure) {
        let answer: Result<DirectoryListing.EntryType?, Failure> = entryType(of: location)
        switch answer {
        case .failure(let failure): throw failure
        case .success(nil): throw Failure(kind: .vanished, message: errorDescription(ENOENT))
        case .success(.directory?): return
        case .success(_?): throw Failure(kind: .vanished, message: errorDescription(ENOTDIR))
        }
    }

    /// Checks that the server still has the file at `location` (mounting when needed); throws
    /// why not, in words.
    public static func checkFile(_ location: FilePath) throws(Failure) {
        let answer: Result<DirectoryListing.EntryType?, Failure> = entryType(of: location)
        switch answer {
        case .failure(let failure): throw failure
        case .success(nil): throw Failure(kind: .vanished, message: errorDescription(ENOENT))
        case .success(.file?), .success(.unstattedFile?): return
        case .success(_?): throw Failure(kind: .vanished, message: "not a file")
        }
    }

    /// `checkFile`, given at most `seconds`: a server that hangs keeps the read that asks it
    /// waiting for ever (no cancellation reaches it), and the caller must not wait with it. The
    /// asking thread is left to end when the read does, or with the process.
    public static func checkFile(_ location: FilePath, within seconds: Double) throws(Failure) {
        final class Answer: @unchecked Sendable {
            let lock = Lock()
            var failure: Failure?
            let done = DispatchSemaphore(value: 0)
        }
        let answer = Answer()
        let asked = location
        WorkerPool.detached(name: "remote-check") {
            do throws(Failure) { try checkFile(asked) } catch { answer.lock.withLock { answer.failure = error } }
            answer.done.signal()
        }
        guard answer.done.wait(timeout: .now() + seconds) == .success else {
            throw Failure(kind: .unreachable, message: "it has not answered for \(WorkerProcess.seconds(seconds))")
        }
        if let failure = answer.lock.withLock({ answer.failure }) { throw failure }
    }

    /// The local path of a `file://` URI (nil for anything else).
    public static func localPath(ofFileURI uri: FilePath) -> FilePath? {
        guard uri.bytes.starts(with: Array("file://".utf8)) else { return nil }
        return withFile(uri) { file in
            guard let path = g_file_get_path(file) else { return nil }
            defer { g_free(path) }
            return FilePath(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path))))
        }
    }
}

extension RemoteFiles {
    /// Mounts `location` asking the person what its server asks (a password), through
    /// `operation` (a GMountOperation; the window's GtkMountOperation shows a dialog). Call it on
    /// the GTK thread, whose main loop runs the mount; `done` hears nil once it is mounted (or was
    /// already), else why not. The location's GFile is made and let go of on `worker`, as every
    /// GFile of a location is (`file`).
    @MainActor
    public static func mountAsking(_ location: FilePath, through operation: UnsafeMutableRawPointer, worker: WorkerPool,
                                   post: @escaping @Sendable (@escaping @MainActor @Sendable () -> Void) -> Void,
                                   done: @escaping @MainActor (Failure?) -> Void) {
        let mountOperation = SendablePointer(g_object_ref(operation)!)
        let finish = MountFinish(done: done)
        let handOver = SendablePointer(Unmanaged.passRetained(finish).toOpaque())
        worker.submit {
            let file = SendablePointer(UnsafeMutableRawPointer(RemoteFiles.file(location)))
            post {
                let call = Unmanaged<MountFinish>.fromOpaque(handOver.pointer).takeUnretainedValue()
                call.release = { worker.submit { RemoteFiles.release(OpaquePointer(file.pointer)) } }
                g_file_mount_enclosing_volume(OpaquePointer(file.pointer), G_MOUNT_MOUNT_NONE,
                                              mountOperation.pointer.assumingMemoryBound(to: GMountOperation.self), nil, { source, result, data in
                    let call = Unmanaged<MountFinish>.fromOpaque(data!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    let mounted = g_file_mount_enclosing_volume_finish(OpaquePointer(source), result, &error) != 0
                    var failure: Failure?
                    if !mounted {
                        if let error, error.pointee.domain == g_io_error_quark(), error.pointee.code == Int32(G_IO_ERROR_ALREADY_MOUNTED.rawValue) {
                            g_error_free(error)
                        } else {
                            failure = Failure(taking: error)
                        }
                    }
                    MainActor.assumeIsolated { call.finish(failure) }
                }, handOver.pointer)
                g_object_unref(mountOperation.pointer)
            }
        }
    }

    /// What a mount asked on the GTK thread does once it is answered.
    private final class MountFinish {
        let done: @MainActor (Failure?) -> Void
        var release: (() -> Void)?
        init(done: @escaping @MainActor (Failure?) -> Void) { self.done = done }

        @MainActor func finish(_ failure: Failure?) {
            release?()
            done(failure)
        }
    }

    /// A pointer handed between threads (the GObjects behind it are thread-safe to pass).
    private struct SendablePointer: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
        init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
    }
}
