import HeraldCore
import HeraldStore
import Synchronization

/// What a live session learns from the hub.
public enum LiveEvent: Hashable, Sendable {
    /// Changes committed for the session's device, in `seq` order.
    case changes([StoredNotification])
    /// The session's queue overflowed and was dropped: the session must read the store from its
    /// cursor (or from just before `oldestDropped`, when that is lower) before going live again.
    case lagged(oldestDropped: Int64)
    /// Time to tell the client the connection is alive (requested with `requestHeartbeat()`).
    case heartbeat
    /// The device's state changed (`PUT /v1/devices/{id}/state`): its JSON. Only the latest state
    /// waits in the queue; it is not part of the change feed (no cursor).
    case deviceState(JSONValue)
    /// A Scheduled Summary released notifications of the device: its event has this `seq` in the
    /// change feed; the session reads it (and anything before it not sent yet) from the store.
    case summary(seq: Int64)
    /// A named event outside the change feed (no cursor): its JSON. Only the latest of each name
    /// waits in the queue (`authorization_requests`: the device's pending authorization requests).
    case named(String, JSONValue)
}

/// One live session's subscription to a device's changes: a bounded queue that the hub fills
/// without ever waiting, and that one consumer drains with `next()`.
///
/// When a publish would overflow the queue — in changes or in bytes — the queue is dropped and the
/// subscription is marked lagging: the consumer gets `.lagged` and catches up from the store, so a
/// slow session costs neither memory nor the time of other sessions.
public final class LiveSubscription: Sendable {
    /// The device whose changes this subscription receives.
    public let deviceID: String
    /// The largest number of changes the queue holds before the subscription lags.
    public let capacity: Int
    /// The largest number of bytes (`estimatedBytes`) the queue holds before the subscription lags.
    public let byteCapacity: Int
    let id: UInt64
    /// The hub's counts: this subscription's lags, the rows its session read from the store.
    let counters: LiveCounters
    private let state: HeraldMutex<State>
    private let onFinish: @Sendable (LiveSubscription) -> Void

    init(
        id: UInt64, deviceID: String, capacity: Int, byteCapacity: Int = .max, counters: LiveCounters = LiveCounters(),
        onFinish: @escaping @Sendable (LiveSubscription) -> Void
    ) {
        self.id = id
        self.counters = counters
        self.deviceID = deviceID
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
        self.state = HeraldMutex(State())
        self.onFinish = onFinish
    }

    /// What a change costs a queue that holds it: its payload (shared by the sessions of its device,
    /// but counted in full, to be safe) and the row's own fields (each queue has its copy).
    public static func estimatedBytes(_ change: StoredNotification) -> Int {
        MemoryLayout<StoredNotification>.stride + change.payload.utf8.count
    }

    private struct State {
        var queue: [StoredNotification] = []
        var queuedBytes = 0
        var oldestDropped: Int64?
        var isHeartbeatDue = false
        var pendingState: JSONValue?
        var summaryDue: Int64?
        /// Named events not taken yet, the latest of each name, in the order the names first came.
        var pendingNamed: [(name: String, json: JSONValue)] = []
        var isFinished = false
        var waiter: CheckedContinuation<LiveEvent?, Never>?
        /// Called once when an event is ready or the subscription ends (`whenReady`).
        var onReady: (@Sendable () -> Void)?

        /// Whether `takeEvent()` would return an event.
        var hasEvent: Bool {
            !queue.isEmpty || oldestDropped != nil || summaryDue != nil || pendingState != nil || !pendingNamed.isEmpty
                || isHeartbeatDue
        }

        /// The next event to hand out, if one is ready.
        mutating func takeEvent() -> LiveEvent? {
            if !queue.isEmpty {
                defer {
                    queue = []
                    queuedBytes = 0
                }
                return .changes(queue)
            }
            if let oldest = oldestDropped {
                oldestDropped = nil
                return .lagged(oldestDropped: oldest)
            }
            if let seq = summaryDue {
                summaryDue = nil
                return .summary(seq: seq)
            }
            if let state = pendingState {
                pendingState = nil
                return .deviceState(state)
            }
            if !pendingNamed.isEmpty {
                let event = pendingNamed.removeFirst()
                return .named(event.name, event.json)
            }
            if isHeartbeatDue {
                isHeartbeatDue = false
                return .heartbeat
            }
            return nil
        }

        /// The waiting consumer and what to give it, once there is something.
        mutating func wakeUp() -> Wake? {
            if let onReady, hasEvent || isFinished {
                self.onReady = nil
                return .callback(onReady)
            }
            guard let waiter else { return nil }
            if let event = takeEvent() {
                self.waiter = nil
                return .waiter(waiter, event)
            }
            if isFinished {
                self.waiter = nil
                return .waiter(waiter, nil)
            }
            return nil
        }
    }

    /// A consumer to wake, outside the lock.
    private enum Wake {
        case waiter(CheckedContinuation<LiveEvent?, Never>, LiveEvent?)
        case callback(@Sendable () -> Void)

        func run() {
            switch self {
            case .waiter(let waiter, let event): waiter.resume(returning: event)
            case .callback(let body): body()
            }
        }
    }

    /// What `poll()` finds.
    public enum Poll: Hashable, Sendable {
        case event(LiveEvent)
        /// Nothing yet: `whenReady` tells when there is.
        case empty
        case finished
    }

    /// The number of changes waiting in the queue.
    public var queuedCount: Int {
        state.withLock { $0.queue.count }
    }

    /// The bytes (`estimatedBytes`) of the changes waiting in the queue.
    public var queuedBytes: Int {
        state.withLock { $0.queuedBytes }
    }

    /// Whether the subscription dropped its queue and waits for its consumer to catch up.
    public var isLagging: Bool {
        state.withLock { $0.oldestDropped != nil }
    }

    /// The next event; nil once the subscription is finished. One consumer at a time.
    public func next() async -> LiveEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LiveEvent?, Never>) in
                let ready: LiveEvent?? = state.withLock { state in
                    if let event = state.takeEvent() { return .some(event) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    precondition(state.waiter == nil, "A live subscription has one consumer")
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// The next event if one is ready, without waiting: a consumer that holds no task while its
    /// device is quiet polls, and asks `whenReady` to be called when there is more.
    public func poll() -> Poll {
        state.withLock { state in
            if let event = state.takeEvent() { return .event(event) }
            return state.isFinished ? .finished : .empty
        }
    }

    /// Calls `body` once, as soon as `poll()` would find an event or the end (at once if it would
    /// now). One consumer at a time: not while `next()` waits or another `whenReady` is pending.
    public func whenReady(_ body: @escaping @Sendable () -> Void) {
        let isReady = state.withLock { state -> Bool in
            if state.hasEvent || state.isFinished { return true }
            precondition(state.waiter == nil && state.onReady == nil, "A live subscription has one consumer")
            state.onReady = body
            return false
        }
        if isReady { body() }
    }

    /// Adds changes of this subscription's device; called by the hub, never waits.
    func enqueue(_ changes: [StoredNotification]) {
        enqueue(changes, bytes: changes.reduce(0) { $0 + Self.estimatedBytes($1) })
    }

    /// Adds changes whose `estimatedBytes` sum to `bytes` (the hub counts a batch once for all the
    /// sessions it hands it to).
    func enqueue(_ changes: [StoredNotification], bytes: Int) {
        let wake = state.withLock { state -> Wake? in
            guard !state.isFinished, let first = changes.first else { return nil }
            if let oldest = state.oldestDropped {
                state.oldestDropped = min(oldest, first.seq)
            } else if state.queue.count + changes.count > capacity
                || (!state.queue.isEmpty && state.queuedBytes + bytes > byteCapacity)
            {
                let oldest = min(state.queue.first?.seq ?? first.seq, first.seq)
                counters.lagged()
                state.queue = []
                state.queuedBytes = 0
                state.oldestDropped = oldest
            } else if state.queue.isEmpty {
                // The batch the hub hands every session of the device: kept as it is, one array
                // shared by all of them (copy-on-write), so a session that reads nothing costs none.
                // An empty queue takes a batch over the byte bound: a reading session then does not
                // lag on each big group commit.
                state.queue = changes
                state.queuedBytes = bytes
            } else {
                state.queue.append(contentsOf: changes)
                state.queuedBytes += bytes
            }
            return state.wakeUp()
        }
        wake?.run()
    }

    /// Hands the device's new state to the consumer (replacing a state it has not taken yet).
    func enqueueState(_ json: JSONValue) {
        let wake = state.withLock { state -> Wake? in
            guard !state.isFinished else { return nil }
            state.pendingState = json
            return state.wakeUp()
        }
        wake?.run()
    }

    /// Hands a named event to the consumer (replacing one of the same name it has not taken yet).
    func enqueueNamed(_ name: String, _ json: JSONValue) {
        let wake = state.withLock { state -> Wake? in
            guard !state.isFinished else { return nil }
            if let index = state.pendingNamed.firstIndex(where: { $0.name == name }) {
                state.pendingNamed[index].json = json
            } else {
                state.pendingNamed.append((name, json))
            }
            return state.wakeUp()
        }
        wake?.run()
    }

    /// Tells the consumer a summary event with `seq` is in the store (the lowest one waits).
    func enqueueSummary(seq: Int64) {
        let wake = state.withLock { state -> Wake? in
            guard !state.isFinished else { return nil }
            state.summaryDue = min(state.summaryDue ?? seq, seq)
            return state.wakeUp()
        }
        wake?.run()
    }

    /// Asks the consumer to send a heartbeat when it is next idle.
    public func requestHeartbeat() {
        let wake = state.withLock { state -> Wake? in
            guard !state.isFinished else { return nil }
            state.isHeartbeatDue = true
            return state.wakeUp()
        }
        wake?.run()
    }

    /// Ends the subscription: the hub forgets it, and `next()` returns what is queued, then nil.
    public func finish() {
        let (wake, wasFinished) = state.withLock {
            state -> (Wake?, Bool) in
            let wasFinished = state.isFinished
            state.isFinished = true
            return (state.wakeUp(), wasFinished)
        }
        wake?.run()
        if !wasFinished { onFinish(self) }
    }
}
