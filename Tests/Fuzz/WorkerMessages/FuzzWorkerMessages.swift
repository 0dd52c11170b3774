// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
import Glibc
@testable import PhotoLibrary
@testable import Thumbnails

/// The decode worker's messages, as a worker taken over by a hostile file could write them: a
/// request parsed by the worker, a reply's fixed part parsed by the window, then the window's
/// reading of the pixels the reply describes, from the memory it shares with the worker (the
/// input's remaining bytes). Nothing a reply says may make the window read outside that file or trap.
@_cdecl("fuzz_worker_messages_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzWorkerMessages(data, size) })
}

func fuzzWorkerMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(fuzzInput(data, size))
    let requestBytes = Array(bytes.prefix(DecodeMessages.requestSize))
    if requestBytes.count == DecodeMessages.requestSize, let request = DecodeMessages.Request(requestBytes) {
        // What parses writes back the same.
        precondition(DecodeMessages.Request(request.bytes) == request)
    }
    let rest = Array(bytes.dropFirst(DecodeMessages.requestSize))
    let headerBytes = Array(rest.prefix(DecodeMessages.replySize))
    guard headerBytes.count == DecodeMessages.replySize, let (reply, _) = DecodeMessages.Reply.header(headerBytes) else { return 0 }
    // (The window's shared memory file, as the worker left it: the input's remaining bytes.)
    let pixels = Array(rest.dropFirst(DecodeMessages.replySize))
    let decoded = pixels.withUnsafeBytes { buffer in
        buffer.baseAddress.flatMap { DecodeWorkerPool.picture(reply, from: $0, size: buffer.count) }
    }
    if let decoded {
        precondition(decoded.pixbuf.width == reply.width && decoded.pixbuf.height == reply.height)
    }
    return 0
}
