// SPDX-License-Identifier: GPL-3.0-or-later
import GObjectSupport
import Glibc
import PhotoLibrary

/// Photopick run by a link named `zenity` (on the PATH before zenity's own) answers every
/// `zenity --file-selection` of every script; the rest of zenity (`--question`, `--progress` …)
/// is zenity's, so every other line is handed to the real one, the next `zenity` on the PATH.
enum ZenityStandIn {
    static func handOver(_ arguments: [[UInt8]]) -> Int32 {
        guard let zenity = realZenity() else {
            warn(i18n("run as zenity, Photopick answers --file-selection only, and there is no other zenity on the PATH to answer this"))
            return 255
        }
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        }
        pointers.append(nil)
        execv(zenity, pointers)
        warn("\(zenity): \(errorDescription(errno))")
        return 255
    }

    /// The first `zenity` on the PATH that is not this program.
    private static func realZenity() -> String? {
        let own = canonical("/proc/self/exe")
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/zenity"
            guard access(candidate, X_OK) == 0, let real = canonical(candidate), real != own else { continue }
            return candidate
        }
        return nil
    }

    private static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
