// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import GObjectSupport
import Glibc
import PhotoLibrary

/// The local copies being made of picks that live on another machine, keyed by asset id, beside
/// the selection store: a bound cell subscribes to its own asset's state (a ring that fills, a
/// reason with a retry), the strip to its picks', the primary button to all of them ("Fetching
/// 2 of 3…"). An asset no one fetches costs nothing. No GTK; the GTK thread's.
///
/// The copies are made by `FetchedCopies` on this store's own threads, three at a time (a
/// fourth pick waits at 0 %); their progress comes back through the main loop.
@MainActor
public final class FetchStore {
    public enum State: Equatable, Sendable {
        /// Waiting for a turn: three copies are under way (a ring that looks waiting, not one
        /// stuck at 0 %: issue 40, point 13).
        case waiting
        /// Copying: the fraction copied, 0 to 1.
        case fetching(Double)
        /// The local copy, complete.
        case fetched(FilePath)
        /// Why it failed, in words; `retry` tries again.
        case failed(String)

        public var isUnderWay: Bool {
            switch self {
            case .waiting, .fetching: return true
            case .fetched, .failed: return false
            }
        }
    }

    /// The bytes of each copy under way (`total` from the server once the copy began, else the
    /// size the index knows), and when the first of them began: for the overall progress.
    private var bytes: [Int64: (copied: Int64, total: Int64)] = [:]
    private var firstBegan: Double?

    public private(set) var states: [Int64: State] = [:]
    private var locations: [Int64: FilePath] = [:]
    private var cancellations: [Int64: Cancellation] = [:]
    private let copies: FetchedCopies
    private let post: PickerController.Post
    /// Started at the first copy: a picker of local folders never starts its threads.
    private let workers = WorkerPoolOnDemand(name: "fetch", threads: 3)
    private let assetSubscribers = KeyedSubscribers<Int64, State?>()
    private let changeSubscribers = Subscribers<Int64>()
    private var trimmed = false
    private var isClosed = false

    public init(copies: FetchedCopies = FetchedCopies(), post: @escaping PickerController.Post) {
        self.copies = copies
        self.post = post
    }

    public func state(of id: Int64) -> State? { states[id] }

    /// The local copy of `id`, once complete.
    public func copy(of id: Int64) -> FilePath? {
        if case .fetched(let path)? = states[id] { return path }
        return nil
    }

    /// Starts copying the file at `location` for `id` (a pick), unless it is under way or done;
    /// `size`, the file's size as the index knows it, counts in the overall progress until the
    /// server says.
    public func fetch(_ id: Int64, from location: FilePath, size: Int64? = nil) {
        guard !isClosed else { return }
        if let state = states[id], state.isUnderWay || copy(of: id) != nil { return }
        locations[id] = location
        bytes[id] = (0, max(0, size ?? 0))
        start(id)
    }

    /// Tries a failed copy again.
    public func retry(_ id: Int64) {
        guard case .failed? = states[id], locations[id] != nil else { return }
        start(id)
    }

    /// Stops `id`'s copy (its partial file is removed) and forgets it: its ring goes at once.
    public func cancel(_ id: Int64) {
        cancellations.removeValue(forKey: id)?.cancel()
        locations[id] = nil
        bytes[id] = nil
        guard states.removeValue(forKey: id) != nil else { return }
        if Self.traces { DeveloperLog.say("fetch \(id) cancelled") }
        publish(id, nil)
    }

    /// How many of `ids` are fetched, under way and failed (the primary button: "Fetching 2 of 3…").
    public func counts(of ids: [Int64]) -> (fetched: Int, underWay: Int, failed: Int) {
        var counts = (fetched: 0, underWay: 0, failed: 0)
        for id in ids {
            switch states[id] {
            case .fetched?: counts.fetched += 1
            case .fetching?, .waiting?: counts.underWay += 1
            case .failed?: counts.failed += 1
            case nil: break
            }
        }
        return counts
    }

    /// The copies of `ids` under way together: bytes copied of all their bytes, and the seconds
    /// left at the rate so far (nil for the first second, or while nothing came).
    public func progress(of ids: [Int64], now: Double = monotonicSeconds()) -> (copied: Int64, total: Int64, secondsLeft: Double?) {
        var copied: Int64 = 0, total: Int64 = 0
        for id in ids where states[id]?.isUnderWay == true {
            guard let known = bytes[id] else { continue }
            copied += known.copied
            total += max(known.total, known.copied)
        }
        guard let began = firstBegan, now - began >= 1, copied > 0 else { return (copied, total, nil) }
        let rate = Double(copied) / (now - began)
        return (copied, total, Double(total - copied) / rate)
    }

    /// Every copy under way stops (the picker closed); their partial files are removed as each
    /// copy returns. A copy blocked on a server that stopped answering, which its cancellation
    /// does not reach, is not waited for beyond `closingWait`: it is let go, and removes its
    /// partial file when it returns (or ends with the process).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for cancellation in cancellations.values { cancellation.cancel() }
        cancellations = [:]
        workers.shutdown(waitingAtMost: Self.closingWait)
        assetSubscribers.removeAll()
        changeSubscribers.removeAll()
    }

    /// How long closing waits for the copies under way to return once cancelled (a local or
    /// answering server returns in milliseconds).
    public static let closingWait = 0.2

    // MARK: Observing

    /// Calls `handler` whenever `id`'s state changes (nil: no copy, or it was cancelled).
    public func observe(_ id: Int64, _ handler: @escaping (State?) -> Void) -> Subscription {
        assetSubscribers.subscribe(id, handler)
    }

    /// Calls `handler` with the id after every change of any asset's state.
    public func observe(_ handler: @escaping (Int64) -> Void) -> Subscription {
        changeSubscribers.subscribe(handler)
    }

    /// How many per-asset observers there are (bound cells): for tests.
    public var assetObserverCount: Int { assetSubscribers.count }

    private func publish(_ id: Int64, _ state: State?) {
        assetSubscribers.publish(id, state)
        changeSubscribers.publish(id)
    }

    // MARK: Copying

    private func start(_ id: Int64) {
        guard let location = locations[id] else { return }
        let cancellation = Cancellation()
        cancellations[id] = cancellation
        set(id, .waiting)
        if firstBegan == nil || !states.values.contains(where: { if case .fetching = $0 { true } else { false } }) {
            firstBegan = monotonicSeconds()
        }
        let copies = self.copies, post = self.post, trim = !trimmed
        trimmed = true
        // Each message carries its cancellation: one from a copy cancelled, or tried again
        // since, finds another (or none) in `cancellations` and is dropped.
        let deliver: @Sendable (@escaping @MainActor (FetchStore) -> Void) -> Void = { [weak self] work in
            post {
                guard let self, !self.isClosed, self.cancellations[id] === cancellation else { return }
                work(self)
            }
        }
        workers.pool.submit {
            // Its turn: the ring fills from here.
            deliver { store in if store.states[id] == .waiting { store.set(id, .fetching(0)) } }
            // (The first copy of a picker trims the folder, off the GTK thread, before it adds to it.)
            if trim { copies.trim() }
            let result = Result { () throws(FetchedCopies.Failure) in
                try copies.fetch(location, cancellation: cancellation) { copied, total in
                    let fraction = total > 0 ? Double(copied) / Double(total) : 0
                    deliver { store in
                        store.bytes[id] = (copied, total)
                        store.set(id, .fetching(min(fraction, 1)))
                    }
                }
            }
            deliver { store in
                store.cancellations[id] = nil
                switch result {
                case .success(let path): store.set(id, .fetched(path))
                case .failure(.cancelled): break
                case .failure(.failed(let reason)):
                    DeveloperLog.say("cannot fetch \(location.displayString): \(reason)")
                    store.set(id, .failed(reason))
                case .failure(.remote(let kind, let detail)):
                    DeveloperLog.say("cannot fetch \(location.displayString): \(detail)")
                    store.set(id, .failed(Self.sentence(kind)))
                }
            }
        }
    }

    /// What the person reads in the toast, the ring's tooltip and the cell's description: a
    /// sentence whole in a toast. GIO's own words ran on with ssh's ("The connection is closed
    /// (the underlying SSH process exited)") and were cut off mid-way (issue 40, point 17); they
    /// go to the log.
    static func sentence(_ kind: RemoteFiles.Failure.Kind) -> String {
        switch kind {
        case .vanished: return i18n("it is no longer on the other computer")
        case .refused: return i18n("the other computer does not let it be read")
        case .notMounted, .staleMount, .unreachable: return i18n("the connection to the other computer was lost")
        }
    }

    /// PHOTOPICK_TRACE_FETCH: each state a copy goes through, on standard error ("fetch 12
    /// fetching 0.42"): what the tests read of a picker in another process.
    private static let traces = getenv("PHOTOPICK_TRACE_FETCH") != nil

    private func set(_ id: Int64, _ state: State) {
        guard states[id] != state else { return }
        states[id] = state
        // (Only copies under way count their bytes: a finished one's go, a failed one's stay for a retry.)
        if case .fetched = state { bytes[id] = nil }
        if Self.traces {
            switch state {
            case .waiting: DeveloperLog.say("fetch \(id) waiting")
            case .fetching(let fraction): DeveloperLog.say("fetch \(id) fetching \(fraction)")
            case .fetched(let path): DeveloperLog.say("fetch \(id) fetched \(path.displayString)")
            case .failed(let reason): DeveloperLog.say("fetch \(id) failed \(reason)")
            }
        }
        publish(id, state)
    }
}
