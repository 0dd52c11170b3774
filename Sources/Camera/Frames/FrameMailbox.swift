// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics

/// One slot between the camera's worker and the GTK thread: a new frame replaces one not yet
/// taken, so a busy GTK thread sees the newest frame and never a backlog.
public final class FrameMailbox: @unchecked Sendable {
    private let lock = Lock()
    private var waiting: Frame?
    private var replaced = 0

    public init() {}

    /// Leaves `frame` for the taker. True when the slot was empty: the caller then wakes the taker
    /// (once per batch, however many frames arrive before it takes one).
    @discardableResult
    public func put(_ frame: Frame) -> Bool {
        lock.withLock {
            let wasEmpty = waiting == nil
            if !wasEmpty { replaced += 1 }
            waiting = frame
            return wasEmpty
        }
    }

    public func take() -> Frame? {
        lock.withLock {
            defer { waiting = nil }
            return waiting
        }
    }

    /// Frames that were replaced before anyone took them (shown as dropped by the benchmark).
    public var replacedCount: Int { lock.withLock { replaced } }
}
