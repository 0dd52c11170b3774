// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// Warms the thumbnails just beyond the visible rows in the direction of scrolling, and stops
/// warming what fell out of range. Like Apple's PhotoKit sample, it acts only after the view moved
/// a third of a screen, so scrolling costs no work per frame. Use from the main thread.
public final class Prefetcher {
    private let loader: ThumbnailLoader
    private let flavor: ThumbnailFlavor
    private var warming: [Int: ThumbnailRequest] = [:]
    private var lastVisible: Range<Int>?
    private var lastCount = 0

    public init(loader: ThumbnailLoader, flavor: ThumbnailFlavor) {
        self.loader = loader
        self.flavor = flavor
    }

    /// The positions currently being warmed.
    public var warmedRange: Range<Int>? {
        guard let low = warming.keys.min(), let high = warming.keys.max() else { return nil }
        return low..<(high + 1)
    }

    /// Call when the visible positions change. `path(at:)` gives the file at a position (nil for
    /// slots without one, such as the camera cell).
    public func update(visible: Range<Int>, count: Int, path: (Int) -> FilePath?) {
        let screen = max(1, visible.count)
        if let last = lastVisible, Double(abs(visible.lowerBound - last.lowerBound)) < Double(screen) / 3,
           last.count == visible.count, count == lastCount {
            return
        }
        lastCount = count
        let forward = lastVisible.map { visible.lowerBound >= $0.lowerBound } ?? true
        lastVisible = visible
        // A screen ahead in the direction of travel, a quarter screen behind.
        let ahead = screen, behind = screen / 4
        let low = max(0, visible.lowerBound - (forward ? behind : ahead))
        let high = min(count, visible.upperBound + (forward ? ahead : behind))
        var wanted = Set(low..<max(low, high))
        wanted.subtract(visible)  // visible cells request their own thumbnails
        for (position, request) in warming where !wanted.contains(position) {
            request.cancel()
            warming[position] = nil
        }
        for position in wanted.sorted(by: forward ? (<) : (>)) where warming[position] == nil {
            guard let path = path(position) else { continue }
            warming[position] = loader.request(path, flavor: flavor, priority: .prefetch) { _ in }
        }
    }

    /// Stops all warming. Call it when the positions change meaning (the album was switched, items
    /// were inserted or removed) or the view goes away.
    public func reset() {
        for request in warming.values { request.cancel() }
        warming.removeAll()
        lastVisible = nil
    }
}
