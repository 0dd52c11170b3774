/// How the stores tell the widgets of a change: a widget subscribes, keeps the handle, and hears
/// until it cancels it or lets it go. A bound cell subscribes to its own asset only, so a
/// change touches the cells it concerns and no view walks its cells (the selection's numbers,
/// rows read again in place, and next a download's progress all work this way).
@MainActor
public final class Subscription {
    private var cancelAction: (() -> Void)?
    init(_ cancel: @escaping () -> Void) { cancelAction = cancel }

    public func cancel() {
        cancelAction?()
        cancelAction = nil
    }

    // Isolated: a cell or pane lets go of its subscription on the GTK thread.
    isolated deinit { cancel() }
}

/// Handlers by key (an asset id), each called when its key's value is published.
@MainActor
public final class KeyedSubscribers<Key: Hashable, Value> {
    private var handlers: [Key: [Int: (Value) -> Void]] = [:]
    private var nextToken = 0

    public init() {}

    public func subscribe(_ key: Key, _ handler: @escaping (Value) -> Void) -> Subscription {
        let token = nextToken
        nextToken += 1
        handlers[key, default: [:]][token] = handler
        return Subscription { [weak self] in
            guard let self else { return }
            self.handlers[key]?[token] = nil
            if self.handlers[key]?.isEmpty == true { self.handlers[key] = nil }
        }
    }

    /// Whether anyone listens for `key` (the value need not be worked out otherwise).
    public func isSubscribed(_ key: Key) -> Bool { handlers[key] != nil }

    public func publish(_ key: Key, _ value: Value) {
        // (A handler may subscribe or cancel while this runs: a copy is walked.)
        guard let forKey = handlers[key] else { return }
        for handler in forKey.values { handler(value) }
    }

    /// How many handlers there are (bound cells): for tests.
    public var count: Int { handlers.values.reduce(0) { $0 + $1.count } }
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
