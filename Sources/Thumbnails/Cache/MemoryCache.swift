// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// Decoded thumbnails in memory, least recently used dropped first, bounded in bytes of pixel
/// data (default 128 MB). In front of the disk cache: a hit costs a dictionary lookup.
public final class MemoryCache: @unchecked Sendable {
    public struct Key: Hashable, Sendable {
        let path: FilePath
        let flavor: ThumbnailFlavor
        /// The file version the thumbnail shows: a changed file misses.
        let modificationTimeNanoseconds: Int64
        let size: Int64
    }

    private final class Node {
        let key: Key
        let thumbnail: Thumbnail
        let cost: Int
        var older: Node?
        weak var newer: Node?
        init(key: Key, thumbnail: Thumbnail, cost: Int) {
            self.key = key
            self.thumbnail = thumbnail
            self.cost = cost
        }
    }

    public let byteLimit: Int
    private let lock = Lock()
    private var nodes: [Key: Node] = [:]
    private var newest: Node?
    private weak var oldest: Node?
    private var storedBytes = 0

    /// Bytes of pixel data held now.
    public var bytes: Int { lock.withLock { storedBytes } }

    public init(byteLimit: Int = 128 << 20) {
        self.byteLimit = byteLimit
    }

    public var count: Int { lock.withLock { nodes.count } }

    func thumbnail(for key: Key) -> Thumbnail? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            unlink(node)
            pushNewest(node)
            return node.thumbnail
        }
    }

    func insert(_ thumbnail: Thumbnail, for key: Key) {
        let cost = max(1, thumbnail.pixbuf?.byteCount ?? 64)
        guard cost <= byteLimit else { return }
        lock.withLock {
            if let existing = nodes.removeValue(forKey: key) {
                unlink(existing)
                storedBytes -= existing.cost
            }
            let node = Node(key: key, thumbnail: thumbnail, cost: cost)
            nodes[key] = node
            pushNewest(node)
            storedBytes += cost
            while storedBytes > byteLimit, let victim = oldest {
                unlink(victim)
                nodes[victim.key] = nil
                storedBytes -= victim.cost
            }
        }
    }

    public func removeAll() {
        lock.withLock { unlinkAll() }
    }

    deinit { unlinkAll() }

    /// Breaks the chain node by node: releasing a long chain at once would recurse deeply.
    private func unlinkAll() {
        var node = newest
        while let current = node {
            node = current.older
            current.older = nil
        }
        nodes.removeAll()
        newest = nil
        oldest = nil
        storedBytes = 0
    }

    private func pushNewest(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private func unlink(_ node: Node) {
        let older = node.older, newer = node.newer
        newer?.older = older
        older?.newer = newer
        if newest === node { newest = older }
        if oldest === node { oldest = newer }
        node.older = nil
        node.newer = nil
    }
}
