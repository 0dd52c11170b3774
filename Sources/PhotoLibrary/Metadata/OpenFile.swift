// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A file opened read-only for header reading. Reads go through `pread`, so readers can jump
/// between boxes and chunks without decoding anything; every read is bounded by the file's size.
public final class OpenFile {
    public let descriptor: Int32
    public let size: Int64
    /// A file on another machine (`path` was a location URI): its bytes arrive as they are read.
    let remote: RemoteSource?

    public enum OpenError: Error {
        case vanished
        case failed(String)
        /// A remote file whose server did not answer: nothing is known about the file.
        case unreachable(String)
    }

    /// Opens a regular file without following a symbolic link and without blocking on a FIFO
    /// that replaced the file since it was listed. Reading leaves the file's access time alone
    /// where the kernel allows it (the owner's files): a scan then writes nothing to the photos'
    /// inodes, and does not pay for the journal writes either.
    /// `listed`: the version a listing gave (a remote file is then opened without asking the
    /// server for its size and time again: one round trip less per file).
    public init(path: FilePath, listed: FileVersion? = nil) throws(OpenError) {
        if path.isLocationURI {
            let source = try RemoteSource(location: path, listed: listed)
            descriptor = source.mirror
            size = source.size
            remote = source
            return
        }
        remote = nil
        let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
        var fd = path.withCString { open($0, flags | OpenFile.noAccessTime) }
        if fd < 0 && errno == EPERM { fd = path.withCString { open($0, flags) } }  // not the owner's
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .vanished }
            if code == ELOOP { throw .vanished }  // became a symbolic link: not ours to follow
            throw .failed("cannot open: \(errorDescription(code))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .vanished
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    /// Takes over a descriptor received from elsewhere (the decode worker's file): it must be a
    /// regular file; it is closed with this object, or at once when it is refused.
    public init(adopting fd: Int32) throws(OpenError) {
        remote = nil
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .failed("not a regular file")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// O_NOATIME (Linux, all architectures Swift runs on): Glibc's module leaves the GNU flags out.
    private static let noAccessTime: Int32 = 0o1000000

    /// A path that opens this very file again (for libraries that take a path, not a descriptor),
    /// immune to the file being replaced or turned into a link since it was opened.
    public var reopenablePath: FilePath { FilePath("/proc/self/fd/\(descriptor)") }

    /// Modification time in nanoseconds, from the open descriptor.
    public var modificationTimeNanoseconds: Int64 {
        if let remote { return remote.modificationTimeNanoseconds }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        let seconds = min(max(Int64(info.st_mtim.tv_sec), -9_000_000_000), 9_000_000_000)
        return seconds * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file; empty on error).
    public func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        if let remote, !remote.fetch(offset..<(offset + Int64(wanted))) { return [] }
        var buffer = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
            }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        if filled < wanted { buffer.removeLast(wanted - filled) }
        return buffer
    }
}

/// A forward-only reader over an `OpenFile` with a buffer, for formats read as a stream of
/// small blocks (GIF sub-blocks, EBML elements).
struct SequentialReader {
    private let file: OpenFile
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0
    private(set) var position: Int64

    init(file: OpenFile, position: Int64 = 0) {
        self.file = file
        self.position = position
    }

    var isAtEnd: Bool { position >= file.size }

    mutating func byte() -> UInt8? {
        if position < bufferStart || position >= bufferStart + Int64(buffer.count) {
            bufferStart = position
            buffer = file.read(at: position, count: 65536)
            if buffer.isEmpty { return nil }
        }
        let value = buffer[Int(position - bufferStart)]
        position += 1
        return value
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, position + Int64(count) <= file.size else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            guard let value = byte() else { return nil }
            result.append(value)
        }
        return result
    }

    /// Skips ahead, at most to the end of the file: a declared length may be anything up to 2^63.
    mutating func skip(_ count: Int64) { position += min(max(0, count), max(0, file.size - position)) }
}

extension Array where Element == UInt8 {
    func bigEndian(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width <= 8, offset + width <= count else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + width) { value = value << 8 | UInt64(self[index]) }
        return value
    }

    func littleEndian(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width <= 8, offset + width <= count else { return nil }
        var value: UInt64 = 0
        for index in stride(from: offset + width - 1, through: offset, by: -1) { value = value << 8 | UInt64(self[index]) }
        return value
    }

    func matches(_ text: String, at offset: Int) -> Bool {
        let expected = Array(text.utf8)
        guard offset >= 0, offset + expected.count <= count else { return false }
        return self[offset..<(offset + expected.count)].elementsEqual(expected)
    }
}
