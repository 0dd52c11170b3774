// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CDecodeChannel
import FuzzSupport
import Glibc
@testable import Thumbnails

/// The window's reading of a decode worker's reply as a worker taken over by its file could
/// send it: cut into any parts, with pauses between them, a descriptor with the first part or
/// not, and then the end of the channel or a stall (the worker stops and keeps its end open).
/// The read must come back within its deadline (30 ms here) whatever arrives, and what it
/// believes must hold together. Issue 37: a byte of a header, or a header announcing 4,096
/// bytes of text followed by 10, blocked the reader for ever.
///
/// Input: a byte of flags (1: stall at the end instead of closing; 2: a memory file with the
/// first part), then parts, each a length byte and that many bytes (a length of 0 is a pause of
/// a millisecond).
@_cdecl("fuzz_worker_replies_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzWorkerReplies(data, size) })
}

private final class Writer: @unchecked Sendable {
    let socket: Int32
    let parts: [[UInt8]]
    let attach: Bool
    init(socket: Int32, parts: [[UInt8]], attach: Bool) {
        self.socket = socket
        self.parts = parts
        self.attach = attach
    }

    func run() {
        var pauses = 0
        for (index, part) in parts.enumerated() {
            if part.isEmpty {
                // (At most 40 ms of pauses: past the reader's deadline, no longer.)
                if pauses < 40 { usleep(1000) }
                pauses += 1
                continue
            }
            let file = index == 0 && attach ? photopick_progress_file() : -1  // (any memory file)
            let sent = photopick_channel_send(socket, part, part.count, file)
            if file >= 0 { close(file) }
            if sent != 0 { return }  // the reader gave up and closed its end
        }
    }
}

func fuzzWorkerReplies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(fuzzInput(data, size))
    guard let flags = bytes.first else { return 0 }
    var parts: [[UInt8]] = []
    var index = 1
    while index < bytes.count {
        let length = Int(bytes[index])
        parts.append(Array(bytes[(index + 1)..<min(bytes.count, index + 1 + length)]))
        index += 1 + length
    }
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return 0 }
    let writer = Writer(socket: ends[1], parts: parts, attach: flags & 2 != 0)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(writer).toOpaque()
    precondition(pthread_create(&thread, nil, { raw in
        let writer = Unmanaged<Writer>.fromOpaque(raw!).takeRetainedValue()
        writer.run()
        return nil
    }, context) == 0)
    // A worker that stalls keeps its end open: the reader meets no end, only its deadline.
    // One that does not ends the channel once everything is written.
    let stall = flags & 1 != 0
    let deadline = monotonicSeconds() + 0.03
    let started = monotonicSeconds()
    if !stall {
        pthread_join(thread, nil)
        shutdown(ends[1], Int32(SHUT_WR))
    }
    let read = DecodeMessages.readReply(from: ends[0]) {
        Int32(max(0, Int(((deadline - monotonicSeconds()) * 1000).rounded(.up))))
    }
    // Within the deadline, with the time of a scheduler's tick or two to spare.
    precondition(monotonicSeconds() - started < 2, "the read took \(monotonicSeconds() - started) s")
    if case .reply(let reply, let message, _) = read {
        precondition(message.utf8.count <= DecodeMessages.maximumMessage)
        if reply.outcome == .decoded {
            // What the window would copy must fit what it said.
            _ = reply.pixelsFit(fileSize: DecodeWorkerPool.sharedPixelsSize)
        }
    }
    close(ends[0])  // (a writer still sending meets EPIPE and stops)
    if stall { pthread_join(thread, nil) }
    close(ends[1])
    return 0
}
