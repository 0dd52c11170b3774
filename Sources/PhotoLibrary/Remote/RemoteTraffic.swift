// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// What a person waits for from another machine goes first: the index's reads of remote files
/// wait while thumbnails are read from there. A link to a NAS carries one thing at a time, and
/// the server answers requests in turn: the eight readers of a first run, behind its first
/// screen, kept that screen's thumbnails waiting (400 photos at 4 Mbit/s: 39 of 42 cells still
/// grey 2 s after the grid opened, the last thumbnail 9 s later).
public enum RemoteTraffic {
    private static let state = State()

    /// Runs `body`, reads a person waits for (a thumbnail), while the index's remote reads wait.
    public static func awaited<R>(_ body: () throws -> R) rethrows -> R {
        state.begin()
        defer { state.end() }
        return try body()
    }

    /// Waits while reads a person waits for are under way, or ended less than `grace` seconds
    /// ago (the next is usually about to start), at most `longest` seconds: the index still
    /// moves on when thumbnails are read all the time.
    static func yieldToAwaited(grace: Double = 0.1, longest: Double = 2) {
        state.waitForQuiet(grace: grace, longest: longest)
    }

    private final class State: @unchecked Sendable {
        private let lock = Lock()
        private var running = 0
        private var lastEnd = -Double.infinity

        func begin() { lock.withLock { running += 1 } }

        func end() {
            lock.withLock {
                running -= 1
                lastEnd = monotonicSeconds()
            }
        }

        func waitForQuiet(grace: Double, longest: Double) {
            let deadline = monotonicSeconds() + longest
            while true {
                let now = monotonicSeconds()
                let busy = lock.withLock { running > 0 || now - lastEnd < grace }
                guard busy, now < deadline else { return }
                // (Polled: a reader waits a few milliseconds more, and a thumbnail's end wakes nobody.)
                usleep(20_000)
            }
        }
    }
}
