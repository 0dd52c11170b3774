// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics

/// When each server last sent bytes (a copy's chunk, a thumbnail's block), by its authority
/// (`sftp://user@host:port`). A link that the picks' copies fill answers the periodic look at its
/// folder later than the look's deadline, and the folder was said to be unreachable while its
/// bytes were still coming (2 Mbit/s, five picks): a server heard from meanwhile is answering.
public enum RemoteAnswers {
    private static let lock = Lock()
    nonisolated(unsafe) private static var heard: [String: Double] = [:]

    /// Bytes came from the server of `location`.
    public static func heard(from location: FilePath) {
        guard let server = server(of: location) else { return }
        let now = monotonicSeconds()
        lock.withLock { heard[server] = now }
    }

    /// Seconds since the server of `location` last sent bytes; nil if it never did.
    public static func secondsSinceHeard(from location: FilePath) -> Double? {
        guard let server = server(of: location), let last = lock.withLock({ heard[server] }) else { return nil }
        return monotonicSeconds() - last
    }

    /// "sftp://user@host:port" of "sftp://user@host:port/path".
    static func server(of location: FilePath) -> String? {
        guard location.isLocationURI else { return nil }
        let bytes = location.bytes, separator = Array("://".utf8)
        guard let start = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0..<($0 + 3)].elementsEqual(separator) }) else { return nil }
        let end = bytes[(start + 3)...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
