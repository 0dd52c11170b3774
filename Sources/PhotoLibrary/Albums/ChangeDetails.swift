// SPDX-License-Identifier: LGPL-2.1-or-later
/// How an open album changed, as exact positions (PHFetchResultChangeDetails): apply `removed`
/// (positions in `before`), then `inserted` (positions in `after`), then `changed` (positions in
/// `after`). A moved asset is a removal plus an insertion.
public struct FetchResultChangeDetails: Sendable {
    public let before: FetchResult
    public let after: FetchResult
    public let removedIndexes: [Int]
    public let insertedIndexes: [Int]
    public let changedIndexes: [Int]

    public var hasChanges: Bool { !removedIndexes.isEmpty || !insertedIndexes.isEmpty || !changedIndexes.isEmpty }

    /// One GListModel items-changed emission: at `position`, `removed` items become `added` items.
    public struct Splice: Equatable, Sendable {
        public let position: Int
        public let removed: Int
        public let added: Int

        public init(position: Int, removed: Int, added: Int) {
            self.position = position
            self.removed = removed
            self.added = added
        }
    }

    /// The changes as items-changed emissions to apply in order: removals from the end, insertions
    /// from the start, then changed items in place. Adjacent positions are merged into one run.
    public var splices: [Splice] {
        var result: [Splice] = []
        for run in Self.runs(removedIndexes).reversed() { result.append(Splice(position: run.lowerBound, removed: run.count, added: 0)) }
        for run in Self.runs(insertedIndexes) { result.append(Splice(position: run.lowerBound, removed: 0, added: run.count)) }
        for run in Self.runs(changedIndexes) { result.append(Splice(position: run.lowerBound, removed: run.count, added: run.count)) }
        return result
    }

    private static func runs(_ sorted: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        for index in sorted {
            if let last = runs.last, last.upperBound == index {
                runs[runs.count - 1] = last.lowerBound..<(index + 1)
            } else {
                runs.append(index..<(index + 1))
            }
        }
        return runs
    }

    /// For tests of views: details between two given fetch results.
    public init(testBefore before: FetchResult, after: FetchResult, change: LibraryChange) {
        self.init(before: before, after: after, change: change)
    }

    /// Computes the positions from the two id lists and the ids a change touched. Ids outside
    /// `change` keep their relative order (their sort keys did not change), so only touched ids are
    /// looked at; a changed id that moved is reported as removed and inserted.
    init(before: FetchResult, after: FetchResult, change: LibraryChange) {
        let oldIDs = before.allIDs, newIDs = after.allIDs
        var positions = Self.positions(oldIDs, newIDs, touched: change.touched, updated: change.updated)
        if !Self.rebuilds(oldIDs, newIDs, positions) {
            // The database moved on past `change` (a later batch committed first): compare every id.
            positions = Self.positions(oldIDs, newIDs, touched: Set(oldIDs).union(newIDs), updated: change.updated)
        }
        self.before = before
        self.after = after
        (removedIndexes, insertedIndexes, changedIndexes) = positions
    }

    /// Whether removing `removed` from the old ids and `inserted` from the new ones leaves the
    /// same sequence: the check that the positions rebuild the new list exactly.
    private static func rebuilds(_ oldIDs: [Int64], _ newIDs: [Int64], _ positions: ([Int], [Int], [Int])) -> Bool {
        let (removed, inserted, _) = positions
        guard oldIDs.count - removed.count == newIDs.count - inserted.count else { return false }
        var removedSet = Set(removed), insertedSet = Set(inserted)
        var left = oldIDs.indices.makeIterator(), right = newIDs.indices.makeIterator()
        while true {
            var a = left.next()
            while let index = a, removedSet.remove(index) != nil { a = left.next() }
            var b = right.next()
            while let index = b, insertedSet.remove(index) != nil { b = right.next() }
            switch (a, b) {
            case (nil, nil): return true
            case let (a?, b?): if oldIDs[a] != newIDs[b] { return false }
            default: return false
            }
        }
    }

    private static func positions(_ oldIDs: [Int64], _ newIDs: [Int64], touched: Set<Int64>,
                                  updated: Set<Int64>) -> ([Int], [Int], [Int]) {
        var oldPositions: [Int64: Int] = [:], newPositions: [Int64: Int] = [:]
        for (position, id) in oldIDs.enumerated() where touched.contains(id) { oldPositions[id] = position }
        for (position, id) in newIDs.enumerated() where touched.contains(id) { newPositions[id] = position }

        var removed = Set(oldPositions.keys.filter { newPositions[$0] == nil })
        var inserted = Set(newPositions.keys.filter { oldPositions[$0] == nil })
        // Ids in both lists keep their place when they keep their order relative to each other:
        // the longest run that does (a longest increasing subsequence of old positions, taken in
        // new order) stays; every other one moved, and is reported as removed and inserted.
        let common = oldPositions.keys.filter { newPositions[$0] != nil }.sorted { newPositions[$0]! < newPositions[$1]! }
        let staying = Set(longestIncreasingRun(common.map { oldPositions[$0]! }).map { common[$0] })
        for id in common where !staying.contains(id) {
            removed.insert(id)
            inserted.insert(id)
        }
        return (removed.compactMap { oldPositions[$0] }.sorted(),
                inserted.compactMap { newPositions[$0] }.sorted(),
                staying.filter { updated.contains($0) }.compactMap { newPositions[$0] }.sorted())
    }

    /// Indexes into `values` of a longest strictly increasing subsequence (patience sorting,
    /// O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []              // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            result.append(cursor)
            cursor = previous[cursor]
        }
        return result.reversed()
    }
}
