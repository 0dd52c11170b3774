// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// The technical side of a problem, on standard error for whoever started the program from a
/// terminal (or reads the journal): SQLite's or GLib's words, paths, errno. What a person reads
/// in the window is a translated sentence of its own.
public enum DeveloperLog {
    private static let lock = Lock()
    nonisolated(unsafe) private static var said: Set<String> = []

    public static func say(_ message: String) {
        let line = "photopick: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Says `message` the first time only (a rescan that fails on every change, a row that fails
    /// for each cell bound to it).
    public static func sayOnce(_ message: String) {
        guard lock.withLock({ said.insert(message).inserted }) else { return }
        say(message)
    }
}
