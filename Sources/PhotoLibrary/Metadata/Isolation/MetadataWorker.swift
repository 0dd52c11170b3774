// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import CGLib
import Glibc

/// `photopick metadata-worker`: a process that reads the headers of the files it is handed
/// (exiv2, third-party C++, and the index's own header readers), a batch at a time, so that a
/// file that takes a reader over ends this process, not the window or the scan. The index's
/// side is `MetadataWorkers`.
///
/// Its socket is descriptor 3, and descriptor 4 a shared page where it writes which file of the
/// batch it is on. It opens nothing by name once it is shut in (seccomp, as the decode worker):
/// what exiv2 and GIO read lazily (the XMP toolkit, the MIME database's descriptions, GdkPixbuf's
/// loader list) is read before.
public enum MetadataWorker {
    /// The address space it may add to what it has at start: exiv2's own allocations and the
    /// mapping of the file it reads (`ExifLibrary.largestMappedFile`).
    static let memoryBudget: UInt64 = 3 << 30

    /// Runs until the index closes its end; returns the exit status.
    public static func run() -> Int32 {
        guard WorkerSandbox.prepare() else { return 3 }
        if getppid() == 1 { return 0 }
        guard photopick_worker_limit_memory(memoryBudget) == 0 else { return 3 }
        guard let mapped = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, WorkerProcess.channel + 1, 0), mapped != MAP_FAILED else { return 3 }
        let progress = mapped.bindMemory(to: UInt32.self, capacity: 1)
        prepareReaders()
        ExifLibrary.readsFromMemory = true
        _ = WorkerSandbox.enter()
        let socket = WorkerProcess.channel
        while true {
            var header = [UInt8](repeating: 0, count: MetadataMessages.headerSize)
            var descriptors = [Int32](repeating: -1, count: MetadataMessages.maximumBatch)
            var received: Int32 = 0
            let got = photopick_channel_receive_fds(socket, &header, header.count, &descriptors, Int32(descriptors.count), &received)
            if got == 0 { return 0 }
            let files = Array(descriptors.prefix(Int(received)))
            guard got == header.count, let (count, length) = MetadataMessages.header(header, magic: MetadataMessages.requestMagic,
                                                                                     maximumPayload: MetadataMessages.maximumRequestPayload),
                  files.count == count else {
                files.forEach { close($0) }
                return 2  // not a request of ours: nothing more is read from this channel
            }
            var payload = [UInt8](repeating: 0, count: length)
            var stray: Int32 = -1
            guard length == 0 || photopick_channel_receive(socket, &payload, length, &stray) == length,
                  let jobs = MetadataMessages.jobs(payload, count: count) else {
                files.forEach { close($0) }
                if stray >= 0 { close(stray) }
                return 2
            }
            if stray >= 0 { close(stray) }
            var outcomes: [ReadOutcome] = []
            for (index, (job, fd)) in zip(jobs, files).enumerated() {
                progress.pointee = UInt32(index)
                _ = photopick_worker_limit_cpu(21)
                do {
                    outcomes.append(MetadataReader.parse(try OpenFile(adopting: fd), job))
                } catch {
                    outcomes.append(.failed("the file could not be handed over"))
                }
            }
            progress.pointee = UInt32.max
            let body = MetadataMessages.replyPayload(outcomes)
            let reply = MetadataMessages.headerBytes(magic: MetadataMessages.replyMagic, count: outcomes.count, payload: body.count) + body
            if photopick_channel_send(socket, reply, reply.count, -1) != 0 { return 0 }
        }
    }

    /// What the readers would otherwise load on first use, loaded now: exiv2's XMP toolkit,
    /// GdkPixbuf's list of loaders, and the words the MIME database has for each image and
    /// video type (GIO reads a type's description from its own file the first time it is asked).
    static func prepareReaders() {
        ExifLibrary.initializeOnce()
        _ = PixbufLoaders.reads("image/png")
        _ = ContentType.guess(content: [0xFF, 0xD8, 0xFF])
        guard let types = g_content_types_get_registered() else { return }
        var node: UnsafeMutablePointer<GList>? = types
        while let current = node {
            if let type = current.pointee.data?.assumingMemoryBound(to: CChar.self) {
                let name = String(cString: type)
                if name.hasPrefix("image/") || name.hasPrefix("video/") { _ = ContentType.description(of: name) }
            }
            node = current.pointee.next
        }
        g_list_free_full(types, g_free)
    }
}
