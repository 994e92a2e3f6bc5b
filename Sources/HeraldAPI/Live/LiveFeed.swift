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

/// A Scheduled Summary as a stream sends it (`event: summary`): the device's part of the digest,
/// the released notifications in their released state, and the stream cursor after it.
public struct LiveSummary: Hashable, Sendable {
    public var summary: StoredSummaryEvent
    public var cursor: Int64
}

/// What a stream transport writes next.
public enum LiveFeedOutput: Hashable, Sendable {
    case changes([LiveChange])
    /// A Scheduled Summary released notifications of the device (it has a cursor, like a change).
    case summary(LiveSummary)
    case heartbeat
    /// The device's state changed: its JSON (`event: state`, no cursor).
    case state(JSONValue)
    /// The device's app badges changed after a change this session sent: `BadgeWatch`'s JSON
    /// (`event: badge`, no cursor).
    case badge(JSONValue)
    /// A named event outside the change feed (`event: <name>`, no cursor).
    case named(String, JSONValue)
}

/// What `LiveFeed.Iterator.step()` found.
public enum LiveFeedStep: Hashable, Sendable {
    case output(LiveFeedOutput)
    /// Nothing to write until the subscription has more (`LiveSubscription.whenReady`).
    case idle
    /// The subscription ended.
    case ended
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
    /// A catch-up page is cut after this many bytes (`LiveSubscription.estimatedBytes`, at least one
    /// row): what a session waiting on a client that does not read holds of it is bounded in bytes,
    /// not only in rows (200 rows of 4 KB payloads are 800 KB a session). The rest is read again.
    let pageBytes: Int

    /// A feed of `subscription`'s device for a client that has every change up to `cursor`.
    public init(
        subscription: LiveSubscription, after cursor: Int64, store: any HeraldStore,
        now: @escaping @Sendable () -> Date, logger: Logger, pageSize: Int = 200, pageBytes: Int = 64 << 10
    ) {
        self.deviceID = subscription.deviceID
        self.cursor = cursor
        self.subscription = subscription
        self.store = store
        self.now = now
        self.logger = logger
        self.pageSize = Swift.max(1, pageSize)
        self.pageBytes = Swift.max(1, pageBytes)
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
        private var position: SessionPosition
        private var needsDeliveryMark = false
        private var badges = BadgeWatch()
        /// Outputs of a catch-up page not returned yet (changes and summaries, in seq order).
        private var pending: [LiveFeedOutput] = []
        /// Live rows not looked at yet: a slice of the batch the hub shares between the device's
        /// sessions (no copy), turned into outputs of at most `pageBytes` each, so a session waiting
        /// on a client that does not read holds one output of its own, not the whole batch.
        private var liveRest: ArraySlice<StoredNotification> = []
        /// The average `estimatedBytes` of the rows of the last catch-up page.
        private var rowBytesGuess = 1_024

        init(feed: LiveFeed) {
            self.feed = feed
            self.phase = .catchingUp(after: feed.cursor)
            let memory = 2 * feed.subscription.capacity + feed.pageSize
            self.position = SessionPosition(floor: feed.cursor, memory: memory)
        }

        /// The next output; nil when the subscription ended. After changes that applied a badge,
        /// a `badge` event when the device's badges changed.
        public mutating func next() async throws -> LiveFeedOutput? {
            switch try await advance(waiting: true) {
            case .output(let output): return output
            case .ended, .idle: return nil
            }
        }

        /// The next output when one is ready, without waiting for the hub: `.idle` when the device is
        /// quiet (`subscription.whenReady` says when to step again), `.ended` when the subscription
        /// ended. Reading the store (a catch-up, the badges, a delivery mark) is still awaited.
        public mutating func step() async throws -> LiveFeedStep {
            try await advance(waiting: false)
        }

        private mutating func advance(waiting: Bool) async throws -> LiveFeedStep {
            do {
                if let badge = try await badges.event(store: feed.store, deviceID: feed.deviceID) {
                    return .output(.badge(badge))
                }
            } catch {
                feed.logger.log(
                    level: error is StorageFaultError ? .debug : .warning,
                    "Could not read the badges",
                    metadata: [
                        "device.id": .string(feed.deviceID), "error.type": .string(String(describing: type(of: error))),
                    ])
            }
            let step = try await nextOutput(waiting: waiting)
            if case .output(.changes(let changes)) = step { badges.note(changes) }
            return step
        }

        /// The next changes (or a heartbeat); `.ended` when the subscription ended, `.idle` when
        /// not `waiting` and the hub has nothing yet.
        private mutating func nextOutput(waiting: Bool) async throws -> LiveFeedStep {
            await markDeliveredIfNeeded()
            while true {
                if !pending.isEmpty { return .output(pending.removeFirst()) }
                if !liveRest.isEmpty {
                    let changes = takeLive()
                    if !changes.isEmpty { return .output(.changes(changes)) }
                    continue
                }
                switch phase {
                case .catchingUp(let after):
                    try await catchUp(after: after)
                case .live:
                    let event: LiveEvent
                    if waiting {
                        guard let next = await feed.subscription.next() else { return .ended }
                        event = next
                    } else {
                        switch feed.subscription.poll() {
                        case .event(let next): event = next
                        case .empty: return .idle
                        case .finished: return .ended
                        }
                    }
                    switch event {
                    case .changes(let rows):
                        liveRest = rows[...]
                    case .lagged(let oldestDropped):
                        feed.logger.debug(
                            "Live session lagged; catching up from the store",
                            metadata: [
                                "device.id": .string(feed.deviceID)
                            ])
                        phase = .catchingUp(after: position.catchUpStart(oldestDropped: oldestDropped))
                    case .heartbeat:
                        return .output(.heartbeat)
                    case .deviceState(let json):
                        return .output(.state(json))
                    case .named(let name, let json):
                        return .output(.named(name, json))
                    case .summary(let seq):
                        phase = .catchingUp(after: position.catchUpStart(oldestDropped: seq))
                    }
                }
            }
        }

        /// Reads one page of the store after `after`: the changes and the summary events up to the
        /// page's end, merged in seq order into `pending`.
        private mutating func catchUp(after: Int64) async throws {
            // Rows are read as many as the byte bound holds at the size of the last page's rows (the
            // first guess 1 KiB), so a read allocates about `pageBytes`, not `pageSize` big rows: with
            // thousands of sessions catching up, those reads had grown the server's heap.
            let limit = Swift.max(1, Swift.min(feed.pageSize, feed.pageBytes / Swift.max(1, rowBytesGuess) + 1))
            var page = try await feed.store.changes(
                deviceID: feed.deviceID, after: after, limit: limit, now: feed.now()
            )
            feed.subscription.counters.readFromStore(page.count)
            if !page.isEmpty {
                rowBytesGuess = page.reduce(0) { $0 + LiveSubscription.estimatedBytes($1) } / page.count
            }
            var isFull = page.count >= limit
            var bytes = 0
            for index in page.indices {
                bytes += LiveSubscription.estimatedBytes(page[index])
                if bytes > feed.pageBytes, index > page.startIndex {
                    page.removeSubrange(index...)
                    isFull = true
                    break
                }
            }
            var end: Int64? = isFull ? page.last?.seq : nil
            let summaries = try await feed.store.summaryEvents(
                deviceID: feed.deviceID, after: after, through: end, limit: feed.pageSize
            )
            if summaries.count == feed.pageSize, let last = summaries.last?.seq { end = Swift.min(end ?? last, last) }
            phase = end.map { .catchingUp(after: $0) } ?? .live
            var rows = page.filter { end == nil || $0.seq <= end! }[...]
            for summary in summaries where end == nil || summary.seq <= end! {
                let before = rows.prefix { $0.seq < summary.seq }
                rows = rows.dropFirst(before.count)
                let changes = accept(Array(before))
                if !changes.isEmpty { pending.append(.changes(changes)) }
                if let cursor = position.accept(summary.seq) {
                    pending.append(.summary(LiveSummary(summary: summary, cursor: cursor)))
                }
            }
            let changes = accept(Array(rows))
            if !changes.isEmpty { pending.append(.changes(changes)) }
        }

        /// A change that reached a connected session is delivered unless it expired before that.
        /// (`apns-expiration: 0` means "only to sessions connected now": this one is.)
        static func isLiveDeliverable(_ row: StoredNotification, now: Date) -> Bool {
            ExpiryRule.isDeliverable(
                expiration: row.expiration, alreadyDelivered: row.deliveredAt != nil, toConnectedSession: true, now: now
            )
        }

        /// The next live rows to send, up to `pageBytes` of them (at least one).
        private mutating func takeLive() -> [LiveChange] {
            let now = feed.now()
            var changes: [LiveChange] = []
            var bytes = 0
            while bytes < feed.pageBytes, let row = liveRest.popFirst() {
                guard row.deviceID == feed.deviceID, Self.isLiveDeliverable(row, now: now),
                    let change = accept(row)
                else { continue }
                changes.append(change)
                bytes += LiveSubscription.estimatedBytes(row)
            }
            return changes
        }

        private mutating func accept(_ row: StoredNotification) -> LiveChange? {
            guard let cursor = position.accept(row.seq) else { return nil }
            if row.deliveredAt == nil, !row.isRemoved { needsDeliveryMark = true }
            return LiveChange(notification: row, cursor: cursor)
        }

        private mutating func accept(_ rows: [StoredNotification]) -> [LiveChange] {
            var changes: [LiveChange] = []
            for row in rows {
                if let change = accept(row) { changes.append(change) }
            }
            return changes
        }

        private mutating func markDeliveredIfNeeded() async {
            guard needsDeliveryMark else { return }
            needsDeliveryMark = false
            do {
                try await feed.store.markDelivered(deviceID: feed.deviceID, upTo: position.position, at: feed.now())
            } catch {
                // A storage fault (a full disk) was logged once by the store: not once per batch.
                feed.logger.log(
                    level: error is StorageFaultError ? .debug : .warning,
                    "Could not record delivery",
                    metadata: [
                        "device.id": .string(feed.deviceID), "error.type": .string(String(describing: type(of: error))),
                    ])
            }
        }
    }
}
