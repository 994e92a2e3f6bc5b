import Foundation
import HeraldCore
import HeraldStore
import Synchronization

/// The fan-out of committed changes to the live sessions of each device.
///
/// The group-commit writer calls `publish` for every committed batch, in `seq` order; the device
/// API publishes the changes it makes (read, dismiss, remove). Publishing never waits: each session
/// has a queue bounded in changes and in bytes, and a session that falls behind lags and catches up
/// from the store.
public final class LiveHub: Sendable {
    /// The queue size each session gets unless told otherwise.
    public static let defaultQueueCapacity = 1_000
    /// The bytes each session's queue holds unless told otherwise (`LiveSubscription.estimatedBytes`).
    /// Big enough that a reading session rarely lags under a burst (the push benchmark's reader keeps
    /// up), small enough that thousands of sessions that never read stay cheap (docs/reliability.md).
    public static let defaultQueueByteCapacity = 128 << 10

    /// The largest number of changes a session's queue holds before the session lags.
    public let queueCapacity: Int
    /// The largest number of bytes (estimated) a session's queue holds before the session lags.
    public let queueByteCapacity: Int
    /// The apps' live connections (`GET /v1/app/stream`): woken when a response for them is stored,
    /// asked `willPresent` while their app is in front.
    public let apps: AppConnections
    /// Whether sessions get changes only from the database's committed feed (`publishCommitted`),
    /// in seq order across every node sharing it; `publish` and `publishSummary` then do nothing.
    public let followsCommittedFeed: Bool
    /// Lags and rows read from the store by this hub's sessions (`GET /metrics`).
    public let counters = LiveCounters()
    private let state = HeraldMutex(State())

    private struct State {
        var sessions: [String: [UInt64: LiveSubscription]] = [:]
        var nextID: UInt64 = 0
        var isClosed = false
    }

    /// Makes a hub whose sessions each hold at most `queueCapacity` changes and `queueByteCapacity`
    /// bytes of them, and whose deliveries wait at most `willPresentTimeout` for a foreground app.
    /// On a database several nodes share: the other nodes' sessions and answering apps, and this
    /// node's own told to them (`ClusterPresence`).
    public let presence: ClusterPresence?

    public init(
        queueCapacity: Int = LiveHub.defaultQueueCapacity, queueByteCapacity: Int = LiveHub.defaultQueueByteCapacity,
        willPresentTimeout: Duration = .seconds(2), followsCommittedFeed: Bool = false,
        presence: ClusterPresence? = nil
    ) {
        self.followsCommittedFeed = followsCommittedFeed
        self.queueCapacity = max(1, queueCapacity)
        self.queueByteCapacity = max(1, queueByteCapacity)
        self.presence = presence
        self.apps = AppConnections(willPresentTimeout: willPresentTimeout, presence: presence)
    }

    /// Subscribes a session to a device's changes. Subscribe first, then read the backlog from the
    /// store, so nothing committed in between is missed (the session drops duplicates by `seq`).
    public func subscribe(deviceID: String) -> LiveSubscription {
        let (subscription, isClosed) = state.withLock { state -> (LiveSubscription, Bool) in
            state.nextID += 1
            let subscription = LiveSubscription(
                id: state.nextID, deviceID: deviceID, capacity: queueCapacity, byteCapacity: queueByteCapacity,
                counters: counters, onFinish: { [weak self] in self?.remove($0) }
            )
            if !state.isClosed {
                if state.sessions[deviceID] == nil, NodeMessage.isSayable(deviceID) {
                    presence?.local(.sessionUp(deviceID: deviceID))
                }
                state.sessions[deviceID, default: [:]][subscription.id] = subscription
            }
            return (subscription, state.isClosed)
        }
        if isClosed { subscription.finish() }
        return subscription
    }

    /// Hands committed changes to the sessions of their devices. Synchronous and never blocks.
    /// Does nothing when the hub `followsCommittedFeed` (the feed brings them).
    public func publish(_ changes: [StoredNotification]) {
        guard !followsCommittedFeed else { return }
        deliver(changes)
    }

    /// Hands changes from the database's committed feed to the sessions of their devices
    /// (`SharedDatabaseStore.committedChanges`), in seq order.
    public func publishCommitted(_ changes: [StoredNotification], summaries: [ReleasedSummary]) {
        var rest = changes[...]
        for summary in summaries {
            let before = rest.prefix { $0.seq < summary.seq }
            rest = rest.dropFirst(before.count)
            deliver(Array(before))
            deliverSummary(deviceID: summary.deviceID, seq: summary.seq)
        }
        deliver(Array(rest))
    }

    private func deliver(_ changes: [StoredNotification]) {
        guard let first = changes.first else { return }
        // A batch of one device (a burst to it, every batch of a single-device test) goes to its
        // sessions as it is: one array shared with the writer, no row copied. Otherwise the rows
        // are grouped by device, and only those of devices with a session here are copied.
        if changes.allSatisfy({ $0.deviceID == first.deviceID }) {
            let subscriptions = state.withLock { state in state.sessions[first.deviceID].map { Array($0.values) } ?? []
            }
            guard !subscriptions.isEmpty else { return }
            let bytes = changes.reduce(0) { $0 + LiveSubscription.estimatedBytes($1) }
            for subscription in subscriptions { subscription.enqueue(changes, bytes: bytes) }
            return
        }
        let sessionsByDevice = state.withLock { state -> [String: [LiveSubscription]] in
            var found: [String: [LiveSubscription]] = [:]
            for change in changes where found[change.deviceID] == nil {
                found[change.deviceID] = state.sessions[change.deviceID].map { Array($0.values) } ?? []
            }
            return found
        }
        var byDevice: [String: [StoredNotification]] = [:]
        for change in changes where !(sessionsByDevice[change.deviceID]?.isEmpty ?? true) {
            byDevice[change.deviceID, default: []].append(change)
        }
        for (deviceID, rows) in byDevice {
            let bytes = rows.reduce(0) { $0 + LiveSubscription.estimatedBytes($1) }
            for subscription in sessionsByDevice[deviceID] ?? [] { subscription.enqueue(rows, bytes: bytes) }
        }
    }

    /// Hands a device's new state (its JSON) to the device's sessions: streams send it as `state`.
    public func publishState(deviceID: String, _ json: JSONValue) {
        let subscriptions = state.withLock { state in state.sessions[deviceID].map { Array($0.values) } ?? [] }
        for subscription in subscriptions {
            subscription.enqueueState(json)
        }
    }

    /// Hands a named event (outside the change feed: no cursor) to the device's sessions: streams
    /// send it as `event: <name>` (WebSocket: `{"type": name, name: json}`).
    /// A device with a session on another node sharing the database gets it there too (unless it
    /// came `fromAnotherNode`).
    public func publishEvent(deviceID: String, name: String, _ json: JSONValue, fromAnotherNode: Bool = false) {
        let subscriptions = state.withLock { state in state.sessions[deviceID].map { Array($0.values) } ?? [] }
        for subscription in subscriptions {
            subscription.enqueueNamed(name, json)
        }
        if !fromAnotherNode, let presence, presence.hasRemoteSession(deviceID: deviceID),
            let data = try? JSONEncoder().encode(json)
        {
            presence.forward(deviceID: deviceID, name: name, json: String(decoding: data, as: UTF8.self))
        }
    }

    /// Tells the device's sessions that its summary event `seq` is committed: each reads it from
    /// the store (`HeraldStore.summaryEvents`) and sends it as `summary`.
    public func publishSummary(deviceID: String, seq: Int64) {
        guard !followsCommittedFeed else { return }
        deliverSummary(deviceID: deviceID, seq: seq)
    }

    private func deliverSummary(deviceID: String, seq: Int64) {
        let subscriptions = state.withLock { state in state.sessions[deviceID].map { Array($0.values) } ?? [] }
        for subscription in subscriptions {
            subscription.enqueueSummary(seq: seq)
        }
    }

    /// Whether a session of the device is connected now (`apns-expiration: 0` needs one).
    public func hasSession(deviceID: String) -> Bool {
        hasLocalSession(deviceID: deviceID) || (presence?.hasRemoteSession(deviceID: deviceID) ?? false)
    }

    /// Whether a session of the device is connected to this node.
    public func hasLocalSession(deviceID: String) -> Bool {
        state.withLock { !($0.sessions[deviceID]?.isEmpty ?? true) }
    }

    /// This node's sessions and answering apps as presence (its whole, `ClusterPresence`).
    public func localPresence() -> [PresenceChange] {
        let devices = state.withLock { $0.sessions.keys.sorted() }
        return devices.filter(NodeMessage.isSayable).map { .sessionUp(deviceID: $0) } + apps.answeringPresence()
    }

    /// The number of connected sessions, over every device.
    public var sessionCount: Int {
        state.withLock { $0.sessions.values.reduce(0) { $0 + $1.count } }
    }

    /// Whether the hub was closed: the server is shutting down.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Ends every session and refuses new ones (server shutdown).
    public func close() {
        let subscriptions = state.withLock { state -> [LiveSubscription] in
            state.isClosed = true
            return state.sessions.values.flatMap(\.values)
        }
        for subscription in subscriptions {
            subscription.finish()
        }
    }

    private func remove(_ subscription: LiveSubscription) {
        state.withLock { state in
            guard state.sessions[subscription.deviceID]?.removeValue(forKey: subscription.id) != nil else { return }
            if state.sessions[subscription.deviceID]?.isEmpty == true {
                state.sessions[subscription.deviceID] = nil
                if NodeMessage.isSayable(subscription.deviceID) {
                    presence?.local(.sessionDown(deviceID: subscription.deviceID))
                }
            }
        }
    }
}
