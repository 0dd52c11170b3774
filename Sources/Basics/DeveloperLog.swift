// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// The technical side of a problem, on standard error for whoever started the program from a
/// terminal (or reads the journal): SQLite's or GLib's words, paths, errno. What a person reads
/// in the window is a translated sentence of its own.
///
/// Inside another program (libphotopick-1 in a host), through GLib's log instead, under the
/// `Photopick` domain: the host's log handler and writer decide where it goes (the journal, its
/// own log window), as for every GLib library's messages (issue 38, point 3).
public enum DeveloperLog {
    private static let lock = Lock()
    nonisolated(unsafe) private static var said: Set<String> = []
    /// The GLib log domain messages go to, once `logThroughGLib` was called; nil: standard error.
    nonisolated(unsafe) private static var domain: String?

    /// From now on, through g_log under `domain` (set once, by the library as it is first used).
    public static func logThroughGLib(domain: String) {
        lock.withLock { Self.domain = domain }
    }

    public static func say(_ message: String) {
        if let domain = lock.withLock({ Self.domain }) {
            // (g_log is variadic; the structured array is what it comes to.)
            domain.withCString { domain in
                message.withCString { text in
                    let fields = [GLogField(key: "GLIB_DOMAIN", value: UnsafeRawPointer(domain), length: -1),
                                  GLogField(key: "MESSAGE", value: UnsafeRawPointer(text), length: -1)]
                    fields.withUnsafeBufferPointer { g_log_structured_array(G_LOG_LEVEL_MESSAGE, $0.baseAddress, gsize($0.count)) }
                }
            }
            return
        }
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
