// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// The picked assets in the order they were picked, shared by every view that shows them: the
/// cells' numbered badges, the strip of picked photos, the primary button and the output. No GTK.
/// The GTK thread's (the main actor's).
@MainActor
public final class SelectionStore {
    /// What a pick or an unpick did.
    public enum Outcome: Equatable {
        case picked(number: Int)
        case unpicked
        /// The maximum is reached: nothing changed, and the view should say so.
        case refusedAtMaximum
        /// The asset cannot be picked (`refuse`): nothing changed; the reason, in words.
        case refused(String)
    }

    /// A change of the order: the ids whose number changed (picked, unpicked or renumbered).
    public struct Change: Sendable {
        public let affected: Set<Int64>
    }

    public private(set) var picked: [Int64] = []
    /// At most this many may be picked; nil for no limit.
    public var maximum: Int? {
        didSet { if let maximum, picked.count > maximum { remove(Set(picked[maximum...])) } }
    }

    private var numbers: [Int64: Int] = [:]
    private let pickSubscribers = KeyedSubscribers<Int64, PickState>()
    private let changeSubscribers = Subscribers<Change>()

    public init(maximum: Int? = nil) {
        self.maximum = maximum
    }

    /// Assets that cannot be picked, with why, in a person's words: a file whose picture failed
    /// for a reason of its own (damaged, unreadable, too large): a person would send a file
    /// nobody can open. One already picked stays picked until it is unpicked.
    public private(set) var refusals: [Int64: String] = [:]

    /// `id` cannot be picked from now on, because of `reason`.
    public func refuse(_ id: Int64, because reason: String) { refusals[id] = reason }

    /// `id` can be picked again (its file changed and shows now).
    public func allow(_ id: Int64) { refusals[id] = nil }

    public var count: Int { picked.count }
    public var isFull: Bool { maximum.map { picked.count >= $0 } ?? false }

    /// 1, 2, 3 … in pick order, or nil when not picked.
    public func number(of id: Int64) -> Int? { numbers[id] }

    @discardableResult
    public func toggle(_ id: Int64) -> Outcome {
        if numbers[id] != nil {
            remove([id])
            return .unpicked
        }
        if let reason = refusals[id] { return .refused(reason) }
        // A single-choice picker (a maximum of 1, as zenity without --multiple): a pick
        // replaces the one before instead of being refused.
        if maximum == 1, let previous = picked.first {
            picked = [id]
            numbers = [id: 1]
            publish(affected: [previous, id], totalChanged: false)
            return .picked(number: 1)
        }
        if isFull { return .refusedAtMaximum }
        picked.append(id)
        numbers[id] = picked.count
        publish(affected: [id])
        return .picked(number: picked.count)
    }

    /// What picking many at once did: how many were picked, and how many were left because the
    /// maximum was reached or they cannot be picked (already picked ones are neither).
    public struct ManyOutcome: Equatable, Sendable {
        public var picked: [Int64] = []
        public var overMaximum = 0
        public var refused = 0
    }

    /// Picks `ids` not picked yet, in their order, after the picks there are, up to the maximum
    /// (a range, the whole album): one change for all.
    @discardableResult
    public func add(_ ids: [Int64]) -> ManyOutcome {
        var outcome = ManyOutcome()
        for id in ids where numbers[id] == nil {
            if refusals[id] != nil {
                outcome.refused += 1
            } else if isFull {
                outcome.overMaximum += 1
            } else {
                picked.append(id)
                numbers[id] = picked.count
                outcome.picked.append(id)
            }
        }
        if !outcome.picked.isEmpty { publish(affected: Set(outcome.picked)) }
        return outcome
    }

    /// Unpicks everything; returns what was picked, in order (to put back).
    @discardableResult
    public func removeAll() -> [Int64] {
        let was = picked
        remove(Set(was))
        return was
    }

    /// Unpicks `ids` (unpicked by the person, or deleted from disk); later numbers close up.
    public func remove(_ ids: Set<Int64>) {
        guard let first = picked.firstIndex(where: ids.contains) else { return }
        let renumbered = Set(picked[first...])
        picked.removeAll { ids.contains($0) }
        for id in ids { numbers[id] = nil }
        for (index, id) in picked.enumerated().dropFirst(first) { numbers[id] = index + 1 }
        publish(affected: renumbered)
    }

    /// Moves the asset at `from` to `to` in the order (drag in the strip).
    public func move(from: Int, to: Int) {
        guard picked.indices.contains(from), picked.indices.contains(to), from != to else { return }
        let id = picked.remove(at: from)
        picked.insert(id, at: to)
        let range = min(from, to)...max(from, to)
        for index in range { numbers[picked[index]] = index + 1 }
        publish(affected: Set(range.map { picked[$0] }), totalChanged: false)
    }


    // MARK: Observing

    /// What a cell bound to an asset shows of the selection: its number, and of how many.
    public struct PickState: Equatable, Sendable {
        /// 1, 2, 3 … in pick order, or nil when not picked.
        public let number: Int?
        /// How many are picked.
        public let total: Int
    }

    public func state(of id: Int64) -> PickState { PickState(number: numbers[id], total: picked.count) }

    /// Calls `handler` whenever `id`'s number changes, and while it is picked whenever the total
    /// does ("picked 2 of 4"): what a cell bound to `id` uses, so a toggle touches only the
    /// cells it concerns.
    public func observe(_ id: Int64, _ handler: @escaping (PickState) -> Void) -> Subscription {
        pickSubscribers.subscribe(id, handler)
    }

    /// Calls `handler` after every change (the strip, the button).
    public func observe(_ handler: @escaping (Change) -> Void) -> Subscription {
        changeSubscribers.subscribe(handler)
    }

    /// How many per-asset observers there are (bound cells): for tests.
    public var assetObserverCount: Int { pickSubscribers.count }

    private func publish(affected: Set<Int64>, totalChanged: Bool = true) {
        // The picks whose number stayed hear of the new total too (a few ids: the picks).
        let told = totalChanged ? affected.union(picked) : affected
        for id in told { pickSubscribers.publish(id, state(of: id)) }
        changeSubscribers.publish(Change(affected: affected))
    }
}
