// SPDX-License-Identifier: LGPL-2.1-or-later
/// How the stores tell the widgets of a change: a widget subscribes, keeps the handle, and hears
/// until it cancels it or lets it go. A bound cell subscribes to its own asset only, so a
/// change touches the cells it concerns and no view walks its cells (the selection's numbers,
/// rows read again in place, and a pick's download all work this way).
@MainActor
public final class Subscription {
    private var cancelAction: (() -> Void)?
    init(_ cancel: @escaping () -> Void) { cancelAction = cancel }

    public func cancel() {
        cancelAction?()
        cancelAction = nil
    }

    // Not `isolated deinit`: released from a GLib callback (no Swift executor is current there),
    // the runtime does not run an isolated deinit at once but queues it to the main actor's
    // executor, and it ran on a libdispatch thread, beside the GTK thread. A cell or pane lets
    // go of its subscription on the GTK thread: run it here, and trap anywhere else.
    deinit { MainActor.assumeIsolated { cancel() } }
}

/// Handlers by key (an asset id), each called when its key's value is published.
///
/// A key nearly always has one handler (the cell bound to that asset), kept inline; a second
/// goes to `more`. (A dictionary of dictionaries made and dropped an inner one at every bind: a
/// cell's two subscriptions took 7,500 of a bind's 97,600 instructions; inline 4,100 of 95,100,
/// callgrind, scrolling 60k photos.)
@MainActor
public final class KeyedSubscribers<Key: Hashable, Value> {
    private typealias Handler = (Value) -> Void
    private var first: [Key: (token: Int, handler: Handler)] = [:]
    private var more: [Key: [Int: Handler]] = [:]
    private var nextToken = 0

    public init() {}

    public func subscribe(_ key: Key, _ handler: @escaping (Value) -> Void) -> Subscription {
        let token = nextToken
        nextToken += 1
        if first[key] == nil { first[key] = (token, handler) } else { more[key, default: [:]][token] = handler }
        return Subscription { [weak self] in self?.unsubscribe(key, token) }
    }

    private func unsubscribe(_ key: Key, _ token: Int) {
        if first[key]?.token == token {
            // The next one, if any, takes the inline place.
            if let next = more[key]?.min(by: { $0.key < $1.key }) {
                first[key] = (next.key, next.value)
                more[key]?[next.key] = nil
                if more[key]?.isEmpty == true { more[key] = nil }
            } else {
                first[key] = nil
            }
        } else {
            more[key]?[token] = nil
            if more[key]?.isEmpty == true { more[key] = nil }
        }
    }

    /// Whether anyone listens for `key` (the value need not be worked out otherwise).
    public func isSubscribed(_ key: Key) -> Bool { first[key] != nil }

    public func publish(_ key: Key, _ value: Value) {
        // (A handler may subscribe or cancel while this runs: copies are walked.)
        guard let entry = first[key] else { return }
        let others = more[key]
        entry.handler(value)
        others?.values.forEach { $0(value) }
    }

    /// How many handlers there are (bound cells): for tests.
    public var count: Int { first.count + more.values.reduce(0) { $0 + $1.count } }

    public func removeAll() {
        first = [:]
        more = [:]
    }
}

/// Handlers that hear every value published.
@MainActor
public final class Subscribers<Value> {
    private var handlers: [(token: Int, handler: (Value) -> Void)] = []
    private var nextToken = 0

    public init() {}

    public func subscribe(_ handler: @escaping (Value) -> Void) -> Subscription {
        let token = nextToken
        nextToken += 1
        handlers.append((token, handler))
        return Subscription { [weak self] in self?.handlers.removeAll { $0.token == token } }
    }

    /// In the order they subscribed.
    public func publish(_ value: Value) {
        for entry in handlers { entry.handler(value) }
    }

    public func removeAll() { handlers.removeAll() }
}
