import Foundation
import HeraldCore
import HeraldStore
import Logging

/// One change as a stream sends it: the notification in its latest state and the stream cursor
/// a client resumes from after receiving it.
public struct LiveChange: Hashable, Sendable {
    /// The notification in its latest state.
    public var notification: StoredNotification
    /// The stream cursor after this change: what the client resumes from.
    public var cursor: Int64

    /// Whether the stream announces it as `removed` (a tombstone) rather than `notification`.
    public var isRemoval: Bool { notification.isRemoved }
}

/// What a stream transport writes next.
public enum LiveFeedOutput: Hashable, Sendable {
    case changes([LiveChange])
    case heartbeat
    /// The device's state changed: its JSON (`event: state`, no cursor).
    case state(JSONValue)
}

/// A device's change feed for one session: every change after the client's cursor from the store,
/// then the live changes of the hub, each once and in `seq` order; after a lag, the store again.
///
/// Make the subscription before the feed reads anything, so nothing committed in between is
/// missed. Changes the session sends that no session had received are marked delivered in the
/// store when the transport asks for the next output (it has written the previous one by then).
public struct LiveFeed: AsyncSequence, Sendable {
    public typealias Element = LiveFeedOutput

    let deviceID: String
    let cursor: Int64
    /// The hub subscription the feed reads live changes from.
    public let subscription: LiveSubscription
    let store: any HeraldStore
    let now: @Sendable () -> Date
    let logger: Logger
    let pageSize: Int

    /// A feed of `subscription`'s device for a client that has every change up to `cursor`.
    public init(
        subscription: LiveSubscription, after cursor: Int64, store: any HeraldStore,
        now: @escaping @Sendable () -> Date, logger: Logger, pageSize: Int = 200
    ) {
        self.deviceID = subscription.deviceID
        self.cursor = cursor
        self.subscription = subscription
        self.store = store
        self.now = now
        self.logger = logger
        self.pageSize = Swift.max(1, pageSize)
    }

    /// An iterator that reads the backlog first, then the live changes.
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self)
    }

    /// Reads a device's feed for one consumer.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        private enum Phase {
            case catchingUp(after: Int64)
            case live
        }

        private let feed: LiveFeed
        private var phase: Phase
        private var position: FeedCursor
        private var needsDeliveryMark = false

        init(feed: LiveFeed) {
            self.feed = feed
            self.phase = .catchingUp(after: feed.cursor)
            let memory = 2 * feed.subscription.capacity + feed.pageSize
            self.position = FeedCursor(floor: feed.cursor, memory: memory)
        }

        /// The next changes (or a heartbeat); nil when the subscription ended.
        public mutating func next() async throws -> LiveFeedOutput? {
            await markDeliveredIfNeeded()
            while true {
                switch phase {
                case .catchingUp(let after):
                    let page = try await feed.store.changes(
                        deviceID: feed.deviceID, after: after, limit: feed.pageSize, now: feed.now()
                    )
                    phase = page.count < feed.pageSize ? .live : .catchingUp(after: page.last?.seq ?? after)
                    let changes = accept(page)
                    if !changes.isEmpty { return .changes(changes) }
                case .live:
                    guard let event = await feed.subscription.next() else { return nil }
                    switch event {
                    case .changes(let rows):
                        let now = feed.now()
                        let changes = accept(rows.filter { $0.deviceID == feed.deviceID && Self.isLiveDeliverable($0, now: now) })
                        if !changes.isEmpty { return .changes(changes) }
                    case .lagged(let oldestDropped):
                        feed.logger.debug("Live session lagged; catching up from the store", metadata: [
                            "device.id": .string(feed.deviceID),
                        ])
                        phase = .catchingUp(after: position.catchUpStart(oldestDropped: oldestDropped))
                    case .heartbeat:
                        return .heartbeat
                    case .deviceState(let json):
                        return .state(json)
                    }
                }
            }
        }

        /// A change that reached a connected session is delivered unless it expired before that.
        /// (`apns-expiration: 0` means "only to sessions connected now": this one is.)
        static func isLiveDeliverable(_ row: StoredNotification, now: Date) -> Bool {
            guard row.deliveredAt == nil, let expiration = row.expiration, expiration != 0 else { return true }
            return Double(expiration) >= now.timeIntervalSince1970
        }

        private mutating func accept(_ rows: [StoredNotification]) -> [LiveChange] {
            var changes: [LiveChange] = []
            for row in rows {
                guard let cursor = position.accept(row.seq) else { continue }
                changes.append(LiveChange(notification: row, cursor: cursor))
                if row.deliveredAt == nil, !row.isRemoved { needsDeliveryMark = true }
            }
            return changes
        }

        private mutating func markDeliveredIfNeeded() async {
            guard needsDeliveryMark else { return }
            needsDeliveryMark = false
            do {
                try await feed.store.markDelivered(deviceID: feed.deviceID, upTo: position.position, at: feed.now())
            } catch {
                feed.logger.warning("Could not record delivery", metadata: [
                    "device.id": .string(feed.deviceID), "error.type": .string(String(describing: type(of: error))),
                ])
            }
        }
    }
}
