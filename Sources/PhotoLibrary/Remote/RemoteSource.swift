// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// The bytes of a remote file that a reader asked for, fetched through a GIO input stream in
/// blocks and kept in a memory file of the remote file's size (`mirror`). The header readers
/// (`OpenFile.read`) then work on it as on a local file, and a metadata worker that cannot reach
/// the network is handed the mirror's descriptor once `prepareForParsing` has fetched what it
/// will read. Blocks never fetched read as zeros: a worker is only given a mirror whose parts it
/// reads are in it. One reader at a time (an `OpenFile` is read on one thread).
final class RemoteSource {
    let mirror: Int32
    let size: Int64
    let modificationTimeNanoseconds: Int64
    private let stream: OpaquePointer
    private let location: FilePath
    /// Fetched blocks, one bit each.
    private var fetched: [UInt64]
    /// Why a fetch failed; every later read answers nothing.
    private(set) var failure: RemoteFiles.Failure?

    /// Fetched together: small enough that a JPEG's headers cost a few blocks, large enough that
    /// one SFTP round trip is not spent per marker (gvfs's SFTP reads go 32 KiB at a time).
    static let blockSize: Int64 = 16 * 1024

    init(location: FilePath, listed: FileVersion?) throws(OpenFile.OpenError) {
        self.location = location
        let opened: Result<OpaquePointer, RemoteFiles.Failure> = RemoteFiles.mountingIfNeeded(location) {
            RemoteFiles.withFile(location) { file in
                // (One error a try: the first, freed, must not be written over by the second.)
                var error: UnsafeMutablePointer<GError>?
                guard let stream = g_file_read(file, nil, &error) else {
                    return .failure(RemoteFiles.Failure(taking: error))
                }
                return .success(OpaquePointer(stream))
            }
        }
        let stream: OpaquePointer
        switch opened {
        case .success(let opened): stream = opened
        case .failure(let failure):
            switch failure.kind {
            case .vanished: throw .vanished
            case .refused: throw .failed("cannot open: \(failure.message)")
            case .notMounted, .staleMount, .unreachable: throw .unreachable(failure.message)
            }
        }
        var error: UnsafeMutablePointer<GError>?
        let size: Int64, modified: Int64
        if let listed {
            (size, modified) = (listed.size, listed.modificationTimeNanoseconds)
        } else {
            guard let info = g_file_input_stream_query_info(UnsafeMutablePointer(stream), RemoteFiles.listedAttributes, nil, &error) else {
                let failure = RemoteFiles.Failure(taking: error)
                RemoteFiles.release(stream)
                throw .unreachable(failure.message)
            }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            size = max(0, Int64(g_file_info_get_size(info)))
            let seconds = min(max(Int64(g_file_info_get_attribute_uint64(info, "time::modified")), -9_000_000_000), 9_000_000_000)
            modified = seconds * 1_000_000_000 + Int64(g_file_info_get_attribute_uint32(info, "time::modified-usec")) * 1000
        }
        let mirror = photopick_memory_file("photopick-remote")
        guard mirror >= 0, ftruncate(mirror, off_t(size)) == 0 else {
            let code = errno
            if mirror >= 0 { close(mirror) }
            RemoteFiles.release(stream)
            throw .failed("cannot keep its bytes in memory: \(errorDescription(code))")
        }
        self.stream = stream
        self.mirror = mirror
        self.size = size
        modificationTimeNanoseconds = modified
        fetched = [UInt64](repeating: 0, count: Int((size + Self.blockSize - 1) / Self.blockSize + 63) / 64)
    }

    deinit {
        _ = g_input_stream_close(UnsafeMutablePointer(stream), nil, nil)
        RemoteFiles.release(stream)
        // (The mirror is the OpenFile's descriptor: closed with it.)
    }

    private func isFetched(_ block: Int64) -> Bool { fetched[Int(block / 64)] & (1 << UInt64(block % 64)) != 0 }
    private func markFetched(_ block: Int64) { fetched[Int(block / 64)] |= 1 << UInt64(block % 64) }

    /// Fetches the blocks of `range` not fetched yet, each run of them in one read. False when
    /// the server did not answer (now or before): the bytes are not there.
    func fetch(_ range: Range<Int64>) -> Bool {
        guard failure == nil else { return false }
        let range = max(0, range.lowerBound)..<min(size, range.upperBound)
        guard !range.isEmpty else { return true }
        var block = range.lowerBound / Self.blockSize
        let lastBlock = (range.upperBound - 1) / Self.blockSize
        while block <= lastBlock {
            guard !isFetched(block) else { block += 1; continue }
            var end = block
            while end < lastBlock, !isFetched(end + 1) { end += 1 }
            guard read(blocks: block...end) else { return false }
            block = end + 1
        }
        return true
    }

    /// Every byte of the file (a thumbnail decoded from the whole photo).
    func fetchAll() -> Bool { fetch(0..<size) }

    private func read(blocks: ClosedRange<Int64>) -> Bool {
        let start = blocks.lowerBound * Self.blockSize
        let length = Int(min(size, (blocks.upperBound + 1) * Self.blockSize) - start)
        var error: UnsafeMutablePointer<GError>?
        let seekable = stream
        if g_seekable_tell(seekable) != goffset(start), g_seekable_seek(seekable, goffset(start), G_SEEK_SET, nil, &error) == 0 {
            failure = RemoteFiles.Failure(taking: error)
            return false
        }
        var buffer = [UInt8](repeating: 0, count: length)
        var got: gsize = 0
        let complete = buffer.withUnsafeMutableBytes { raw in
            g_input_stream_read_all(UnsafeMutablePointer(stream), raw.baseAddress, gsize(length), &got, nil, &error)
        }
        if got > 0 { RemoteAnswers.heard(from: location) }
        guard complete != 0, Int(got) == length else {
            // A file that shrank since it was listed ends early: what arrived is kept, the next
            // scan sees its new size. Anything else is the server's silence.
            failure = complete != 0 ? RemoteFiles.Failure(kind: .vanished, message: "the file changed while it was read")
                : RemoteFiles.Failure(taking: error)
            return false
        }
        let written = buffer.withUnsafeBytes { pwrite(mirror, $0.baseAddress, length, off_t(start)) }
        guard written == length else {
            failure = RemoteFiles.Failure(kind: .refused, message: "cannot keep its bytes in memory: \(errorDescription(errno))")
            return false
        }
        for block in blocks { markFetched(block) }
        return true
    }
}
