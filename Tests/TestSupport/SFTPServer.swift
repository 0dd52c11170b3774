// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A real SFTP server on loopback reached through gvfs on a private session bus
/// (`Tests/Remote/sftp-server`): this machine's files as `sftp://USER@127.0.0.1:PORT/…`.
/// `close()` (or the end of the test process) stops the server, gvfsd and everything they started.
public final class SFTPServer: @unchecked Sendable {
    /// What a client of the server needs in its environment (the bus, the agent, the runtime folder).
    public let environment: [String: String]
    /// The URI prefix of this machine's absolute paths.
    public let uriPrefix: String
    private let logPath: String
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private var closed = false

    /// - Parameter throttled: in a network namespace of its own, where `limitRate` slows the link.
    /// - Parameter password: the server asks for this password before it lets a client in.
    /// - Parameter environment: added to the server's, and so to its session bus's activation
    ///   environment (a service the bus starts, the portal's, sees it).
    public init(throttled: Bool = false, password: String? = nil, environment extra: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = TestSupport.packageRoot.appendingPathComponent("Tests/Remote/sftp-server")
        process.arguments = (throttled ? ["--throttled"] : []) + (password.map { ["--password", $0] } ?? [])
        if !extra.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 } }
        let toServer = Pipe(), fromServer = Pipe()
        process.standardInput = toServer
        process.standardOutput = fromServer
        try process.run()
        input = toServer.fileHandleForWriting
        output = fromServer.fileHandleForReading
        let first = Self.readLine(output)
        guard let object = try? JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any],
              let environment = object["environment"] as? [String: String], let uri = object["uri"] as? String,
              let log = object["log"] as? String else {
            process.terminate()
            process.waitUntilExit()
            throw NSError(domain: "sftp-server", code: 1, userInfo: [NSLocalizedDescriptionKey: "the SFTP server did not start: \(first)"])
        }
        self.environment = environment
        uriPrefix = uri
        logPath = log
    }

    deinit { close() }

    /// The location URI of a local absolute path, escaped as GIO writes it.
    public func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%#?")
        return uriPrefix + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
    }

    /// Mounts this machine's folder `path` through the server with sshfs (read-only), as a NAS
    /// mounted by hand: a folder on a network file system. Unmounted by `close()`.
    public func mountWithSSHFS(_ path: String) throws -> String {
        try command("mount \(path)")
    }

    /// The server goes away (every session ends), as a NAS switched off.
    public func stop() throws { try command("stop") }
    /// It answers again on the same port.
    public func start() throws { try command("start") }

    /// The server stops answering without going away (its processes stopped with SIGSTOP, as a
    /// NAS that hangs): open connections stay, requests and new connections wait for ever.
    public func stall() throws { try command("stall") }
    /// It answers again (SIGCONT).
    public func resume() throws { try command("resume") }

    /// The link carries `rate` from now on ("8mbit"; "off" for no limit). Needs `throttled`.
    public func limitRate(_ rate: String) throws { try command("rate \(rate)") }

    public func close() {
        guard !closed else { return }
        closed = true
        try? input.write(contentsOf: Data("quit\n".utf8))
        try? input.close()
        process.waitUntilExit()
    }

    /// Bytes the server read from each file, by local path, over every time it was opened.
    /// The log is read again (for up to 10 s) until it names every path of `waitingFor`: the
    /// server writes a file's line when gvfs closes it, which need not be before the client exits.
    public func bytesRead(waitingFor paths: [String] = []) -> [String: Int] {
        let deadline = Date().addingTimeInterval(10)
        var read = bytesReadNow()
        while !paths.allSatisfy({ read[$0] != nil }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            read = bytesReadNow()
        }
        return read
    }

    /// Whether the server has read every byte of each of `files` (a picker's first run over it
    /// has dated them and made their thumbnails: its grid shows them).
    public func hasReadWhole(_ files: [URL]) -> Bool {
        let read = bytesReadNow()
        return files.allSatisfy { file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
            return size.map { (read[file.path] ?? 0) >= $0 } ?? false
        }
    }

    private func bytesReadNow() -> [String: Int] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [:] }
        var result: [String: Int] = [:]
        let pattern = try! NSRegularExpression(pattern: #"close "(.*)" bytes read (\d+)"#)
        // (The server ends its lines with "\r\n", one Character to Swift: split on both.)
        for line in text.split(whereSeparator: { $0.isNewline }) {
            let line = String(line)
            guard let match = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let path = Range(match.range(at: 1), in: line), let bytes = Range(match.range(at: 2), in: line) else { continue }
            result[String(line[path]), default: 0] += Int(line[bytes]) ?? 0
        }
        return result
    }

    /// Each closing of a file, in the order the server logged them: the path and the bytes read
    /// from it while it was open.
    public func closings() -> [(path: String, bytes: Int)] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        let pattern = try! NSRegularExpression(pattern: #"close "(.*)" bytes read (\d+)"#)
        return text.split(whereSeparator: { $0.isNewline }).compactMap { line in
            let line = String(line)
            guard let match = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let path = Range(match.range(at: 1), in: line), let bytes = Range(match.range(at: 2), in: line) else { return nil }
            return (String(line[path]), Int(line[bytes]) ?? 0)
        }
    }

    /// The most reads that `isLarge` picks the server served at one time (each from the file's
    /// opening to its closing; other reads of the same files meanwhile are not counted).
    public func mostReadsAtOnce(where isLarge: (_ path: String, _ bytes: Int) -> Bool) -> Int {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return 0 }
        let pattern = try! NSRegularExpression(pattern: #"^(open|close) "(.*?)"(?: bytes read (\d+))?"#)
        var events: [(path: String, isOpen: Bool, bytes: Int)] = []
        for line in text.split(whereSeparator: { $0.isNewline }) {
            let line = String(line)
            guard let match = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let what = Range(match.range(at: 1), in: line), let path = Range(match.range(at: 2), in: line) else { continue }
            let read = Range(match.range(at: 3), in: line).flatMap { Int(line[$0]) } ?? 0
            events.append((String(line[path]), line[what] == "open", read))
        }
        // Which openings end in a large read: pair each opening with its path's next closing.
        var large = [Bool](repeating: false, count: events.count)
        var opened: [String: [Int]] = [:]
        for (index, event) in events.enumerated() {
            if event.isOpen { opened[event.path, default: []].append(index); continue }
            guard let start = opened[event.path]?.first else { continue }
            opened[event.path]?.removeFirst()
            if isLarge(event.path, event.bytes) { large[start] = true; large[index] = true }
        }
        var open = 0, most = 0
        for (index, event) in events.enumerated() where large[index] {
            open += event.isOpen ? 1 : -1
            most = max(most, open)
        }
        return most
    }

    /// Sends a command; what follows the server's "ok".
    @discardableResult
    private func command(_ text: String) throws -> String {
        try input.write(contentsOf: Data((text + "\n").utf8))
        let answer = Self.readLine(output)
        guard answer == "ok" || answer.hasPrefix("ok ") else {
            throw NSError(domain: "sftp-server", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(text): \(answer)"])
        }
        return String(answer.dropFirst(3))
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1), let first = byte.first {
            if first == UInt8(ascii: "\n") { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
