// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// An advisory lock between processes (flock on a file beside the index), for what SQLite's
/// own locking does not cover:
/// - `<index>.scan-lock`, held for a whole scan: the app, a script's `photopick index`, a second
///   window. SQLite locks per transaction, so two scans would take turns batch by batch, and a
///   batch that waited longer than SQLite's busy timeout failed as "database is locked". A
///   second scan waits for the first instead, and then has little left to do. Readers never take
///   it: they read the last committed state (WAL).
/// - `<index>.open-lock`, held while the index is opened, created and migrated: switching a new
///   file to WAL needs it to itself, and SQLite answers "locked" at once rather than waiting.
final class FileLock: @unchecked Sendable {
    private let descriptor: Int32

    /// Nil when the lock file cannot be opened (a read-only folder): SQLite's own locking still
    /// keeps the index whole.
    init?(path: String) {
        let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Takes the lock at once if it is free.
    func tryAcquire() -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Takes the lock, waiting for the scan that holds it. `waiting` is called once when it has
    /// to wait; `isCancelled` is asked ten times a second meanwhile (false: gave up).
    func acquire(waiting: () -> Void, isCancelled: () -> Bool) -> Bool {
        if tryAcquire() { return true }
        waiting()
        while !isCancelled() {
            usleep(100_000)
            if tryAcquire() { return true }
        }
        return false
    }

    func release() {
        flock(descriptor, LOCK_UN)
    }
}
