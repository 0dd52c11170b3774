// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics

/// A handle on one thumbnail request. Cancel it when the cell it is for goes away.
public final class ThumbnailRequest: @unchecked Sendable {
    private let lock = Lock()
    private var cancelled = false
    private var completion: ThumbnailLoader.Completion?
    var detach: (() -> Void)?

    init(completion: @escaping ThumbnailLoader.Completion) {
        self.completion = completion
    }

    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// After this returns, the completion is never called.
    public func cancel() {
        let detach = lock.withLock { () -> (() -> Void)? in
            guard !cancelled else { return nil }
            cancelled = true
            completion = nil
            defer { self.detach = nil }
            return self.detach
        }
        detach?()
    }

    /// A first paint: the completion stays for the final result.
    @MainActor func deliverPreliminary(_ thumbnail: Thumbnail) {
        let completion = lock.withLock { cancelled ? nil : self.completion }
        completion?(.success(thumbnail))
    }

    /// Called on the main loop: a request cancelled after its result was posted is skipped.
    @MainActor func deliver(_ result: Result<Thumbnail, ThumbnailFailure>) {
        let completion = lock.withLock { () -> ThumbnailLoader.Completion? in
            defer { self.completion = nil; self.detach = nil }
            return cancelled ? nil : self.completion
        }
        completion?(result)
    }
}
