// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import Glibc

/// The walls a worker (`DecodeWorker`, `MetadataWorker`) puts up around itself, in
/// `CDecodeChannel/WorkerSandbox.c`: Landlock where the kernel has it, and a seccomp filter
/// whose every allowed call is there with the reason it cannot reach outside the worker.
public enum WorkerSandbox {
    /// A worker keeps 0-2 (/dev/null), its channel (3) and one shared file (4); it closes the rest.
    public static let firstUnusedDescriptor = WorkerProcess.channel + 2

    /// What a worker does first: dies with the window, gains no privileges, and holds nothing it
    /// was not given.
    public static func prepare() -> Bool { photopick_worker_prepare(firstUnusedDescriptor) == 0 }

    /// Which walls stand.
    public struct State: Sendable {
        /// Why there is no seccomp filter (nil: there is).
        public var seccompProblem: String?
        /// Landlock's ABI version in force, or why there is none.
        public var landlock: Result<Int, Errno>

        public struct Errno: Error, Sendable { public let code: Int32 }

        /// "on", or "off (the reason)".
        public var description: String {
            let landlockWords: String
            switch landlock {
            case .success(let abi): landlockWords = "on (ABI \(abi))"
            case .failure(let error): landlockWords = "off (\(errorDescription(error.code)))"
            }
            return "landlock: \(landlockWords); sandbox: " + (seccompProblem.map { "off (\($0))" } ?? "on")
        }
    }

    /// Shuts the calling worker in, once its libraries have loaded what they load on first use.
    /// Files beneath `readable` (the font folders a worker drawing SVGs needs) may be read,
    /// where Landlock stands to keep it to them; nothing else may be opened.
    public static func enter(readable: [String] = []) -> State {
        var abi: Int32 = 0
        let pointers = readable.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        let entered = pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            photopick_worker_enter_sandbox_reading(&abi, $0.baseAddress, Int32($0.count)) == 0
        }
        let problem = entered ? nil : errorDescription(errno)
        return State(seccompProblem: problem, landlock: abi > 0 ? .success(Int(abi)) : .failure(.init(code: -abi)))
    }

    /// What the walls let through, tried for real from inside (each forbidden step and what it
    /// met; and reading and writing `readableFile`, a font), then which walls stand:
    /// "open /etc/passwd: Permission denied; …; sandbox: on".
    public static func check(_ state: State, readableFile: String? = nil) -> String {
        var buffer = [CChar](repeating: 0, count: 2048)
        photopick_worker_check_walls_reading(&buffer, buffer.count, WorkerProcess.channel, readableFile)
        let tried = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return tried + "; " + state.description
    }
}
