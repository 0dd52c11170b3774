// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
import Glibc
@testable import PhotoLibrary

/// The metadata worker's messages, as a worker taken over by a hostile file could write them
/// (and as a hostile window could, for the worker's side): the first byte picks a request or a
/// reply, the next 16 are its header and the rest its payload. Nothing may trap, and what
/// parses writes back the same.
@_cdecl("fuzz_metadata_messages_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzMetadataMessages(data, size) })
}

func fuzzMetadataMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(fuzzInput(data, size))
    guard let selector = bytes.first else { return 0 }
    let header = Array(bytes.dropFirst().prefix(MetadataMessages.headerSize))
    let payload = Array(bytes.dropFirst(1 + MetadataMessages.headerSize))
    if selector & 1 == 0 {
        guard let (count, length) = MetadataMessages.header(header, magic: MetadataMessages.requestMagic,
                                                            maximumPayload: MetadataMessages.maximumRequestPayload),
              length == payload.count, let jobs = MetadataMessages.jobs(payload, count: count) else { return 0 }
        precondition(jobs.count == count)
        precondition(MetadataMessages.jobs(MetadataMessages.requestPayload(jobs), count: count) == jobs)
    } else {
        guard let (count, length) = MetadataMessages.header(header, magic: MetadataMessages.replyMagic,
                                                            maximumPayload: MetadataMessages.maximumReplyPayload),
              length == payload.count, let outcomes = MetadataMessages.outcomes(payload, count: count) else { return 0 }
        precondition(outcomes.count == count)
        precondition(MetadataMessages.outcomes(MetadataMessages.replyPayload(outcomes), count: count) == outcomes)
        // What the index writes of them holds its bounds.
        for case .media(let media) in outcomes {
            precondition(media.orientation >= 1 && media.orientation <= 8)
            if let width = media.width { precondition(width >= 1 && width <= Plausible.maximumSide) }
        }
    }
    return 0
}
