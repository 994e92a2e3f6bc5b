import Foundation
import HeraldCore
import HeraldStore
import Logging
import NIOCore
import PostgresNIO
import Synchronization

// How the nodes sharing one database hear what is committed (`SharedDatabaseStore`).
//
// Every transaction that takes seqs sends ONE `NOTIFY herald` when it commits, naming its node and
// its seqs (`feed <node> <from> <through>`): a group commit of many pushes is one signal, not one per
// push (PostgreSQL queues notifications under a lock at commit, so one per push would serialize the
// hot path on it). A registry write sends `registry <node>`. Each node listens on a connection of its
// own and, for every feed signal — its own included — reads the rows and summary events with seqs in
// that range. Seqs are taken under the sequence row's lock, held until commit, so transactions commit
// in seq order, and PostgreSQL delivers notifications in commit order: the ranges arrive in seq
// order without a gap, and each is complete when its signal arrives. A node's sessions get every
// change this way, in seq order, whichever node committed it.

/// The listening connection closed (the server ended it, or the network did).
struct FeedConnectionClosed: Error, CustomStringConvertible {
    var description: String { "The connection that listens for the other nodes' commits closed." }
}

/// One signal on the `herald` channel.
struct FeedSignal: Hashable, Sendable {
    enum Kind: String, Sendable { case feed, registry, invalidation, message }
    var kind: Kind = .feed
    var node: String
    var from: Int64 = 0
    var through: Int64 = 0
    /// What a `message` signal (`msg <node> <text>`) carries.
    var message: NodeMessage?

    init(_ message: NodeMessage, of node: String) {
        kind = .message
        self.node = node
        self.message = message
    }

    /// What an `invalidation` signal (`user|device|app|requests <node> <id>`, `responses <node>
    /// <device> <bundle>`) names.
    var invalidation: SharedInvalidation?

    init(node: String, from: Int64, through: Int64) {
        self.node = node
        self.from = from
        self.through = through
    }

    init(registryOf node: String) {
        kind = .registry
        self.node = node
    }

    init(_ invalidation: SharedInvalidation, of node: String) {
        kind = .invalidation
        self.node = node
        self.invalidation = invalidation
    }

    var payload: String {
        switch kind {
        case .feed: "feed \(node) \(from) \(through)"
        case .registry: "registry \(node)"
        case .message: "msg \(node) \(message?.text ?? "alive")"
        case .invalidation:
            switch invalidation {
            case .user(let id): "user \(node) \(id)"
            case .device(let id): "device \(node) \(id)"
            case .app(let id): "app \(node) \(id)"
            case .pendingRequests(let id): "requests \(node) \(id)"
            // (A bundle id has no space: the last space ends the device id.)
            case .appResponses(let deviceID, let bundleID): "responses \(node) \(deviceID) \(bundleID)"
            case nil: "registry \(node)"
            }
        }
    }

    init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 2).map(String.init)
        switch parts.first {
        case "msg":
            guard parts.count == 3, let message = NodeMessage(text: parts[2]) else { return nil }
            self.init(message, of: parts[1])
        case "responses":
            guard parts.count == 3, let space = parts[2].lastIndex(of: " ") else { return nil }
            let deviceID = String(parts[2][..<space])
            let bundleID = String(parts[2][parts[2].index(after: space)...])
            guard !deviceID.isEmpty, !bundleID.isEmpty else { return nil }
            self.init(.appResponses(deviceID: deviceID, bundleID: bundleID), of: parts[1])
        case "user", "device", "app", "requests":
            guard parts.count == 3, !parts[2].isEmpty else { return nil }
            let invalidation: SharedInvalidation =
                switch parts[0] {
                case "user": .user(parts[2])
                case "device": .device(parts[2])
                case "requests": .pendingRequests(parts[2])
                default: .app(parts[2])
                }
            self.init(invalidation, of: parts[1])
        case "feed":
            let parts = payload.split(separator: " ").map(String.init)
            guard parts.count == 4, let from = Int64(parts[2]), let through = Int64(parts[3]), from < through
            else { return nil }
            self.init(node: parts[1], from: from, through: through)
        case "registry":
            guard parts.count == 2 else { return nil }
            self.init(registryOf: parts[1])
        default:
            return nil
        }
    }
}

extension PostgresStore: SharedDatabaseStore {
    static let feedChannel = "herald"

    /// Tells the other nodes, when the transaction commits, that the registry changed.
    func notifyRegistryChange(_ connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT pg_notify(\(Self.feedChannel), \(FeedSignal(registryOf: nodeID).payload))", logger: logger)
    }

    public func send(_ message: NodeMessage) async throws {
        let payload = FeedSignal(message, of: nodeID).payload
        // PostgreSQL's limit is 8,000 bytes.
        guard payload.utf8.count < 8_000 else {
            throw StoreError(.invalid, "A message to the other nodes is too long (\(payload.utf8.count) bytes).")
        }
        try await execute("SELECT pg_notify(\(Self.feedChannel), \(payload))")
    }

    public func broadcast(_ change: SharedInvalidation) async throws {
        try await execute(
            "SELECT pg_notify(\(Self.feedChannel), \(FeedSignal(change, of: nodeID).payload))")
    }

    public func committedChanges(after cursor: Int64) -> AsyncStream<SharedChange> {
        let (stream, continuation) = AsyncStream<SharedChange>.makeStream()
        let task = Task { await self.relay(after: cursor, to: continuation) }
        continuation.onTermination = { _ in task.cancel() }
        relays.withLock { $0.append(task) }
        return stream
    }

    /// Listens until cancelled, connecting again (after a second) when the connection is lost.
    private func relay(after cursor: Int64, to continuation: AsyncStream<SharedChange>.Continuation) async {
        let progress = RelayProgress(seen: cursor)
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection: PostgresConnection
                do {
                    connection = try await PostgresConnection.connect(
                        configuration: try url.connectionConfiguration(), id: 1, logger: logger)
                } catch {
                    // The database is away: operations fail at once until it is back.
                    unavailableSince.withLock { $0 = ContinuousClock.now }
                    throw error
                }
                unavailableSince.withLock { $0 = nil }
                attempt = 0
                let session = progress.begin()
                do {
                    // Under the watch: a query of this session in flight when the server ends the
                    // connection never completes (`ConnectionWatch`); the session is then left
                    // behind, and hands on nothing more, and a new one starts.
                    try await watch.run(on: connection) {
                        try await self.listen(on: connection, session: session, progress: progress, to: continuation)
                    }
                } catch {
                    Self.closeQuietly(connection)
                    throw error
                }
                Self.closeQuietly(connection)
            } catch {
                if Task.isCancelled { break }
                attempt += 1
                logger.log(
                    level: attempt == 1 ? .warning : .debug,
                    "Lost the database connection that hears the other nodes; connecting again",
                    metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
        progress.end()
        continuation.finish()
    }

    /// One listening session on `connection`: what was committed since the last seq handed on, then
    /// each signal's range, until the connection closes.
    private func listen(
        on connection: PostgresConnection, session: Int, progress: RelayProgress,
        to continuation: AsyncStream<SharedChange>.Continuation
    ) async throws {
        try await connection.listen(on: Self.feedChannel) { signals in
            // Listening now: what was committed while it was not is read first.
            let latest = try await latestCursor()
            let seen = progress.seen
            if latest > seen {
                let change = try await committed(after: seen, through: latest, on: connection)
                try progress.handOn(change, through: latest, session: session, to: continuation)
            }
            try progress.handOn(.listening, through: nil, session: session, to: continuation)
            // The signals, until the connection closes: PostgresNIO's sequence of them does not end
            // when the server ends the connection (seen when PostgreSQL stopped: the relay waited on
            // a dead connection), so its close ends them.
            let buffer = SignalBuffer()
            let listening = Task {
                do {
                    for try await notification in signals { buffer.append(notification.payload) }
                    buffer.finish(nil)
                } catch {
                    buffer.finish(error)
                }
            }
            let watching = Task {
                try? await connection.closeFuture.get()
                buffer.finish(FeedConnectionClosed())
            }
            defer {
                listening.cancel()
                watching.cancel()
            }
            // Every signal queued is taken at once, and the feed's ranges among them are read as one:
            // under load (hundreds of commits a second, a signal each) reading range by range, four
            // round trips each, fell seconds behind (1.5 s p50 at 2,000 pushes/s across two nodes).
            while let payloads = try await buffer.take() {
                var through: Int64?
                for payload in payloads {
                    guard let signal = FeedSignal(payload: payload) else {
                        logger.warning(
                            "A signal on Herald's channel that this version does not read",
                            metadata: ["payload": "\(payload.prefix(80))"])
                        continue
                    }
                    switch signal.kind {
                    case .registry:
                        // This node's cache has its own changes already.
                        if signal.node != nodeID {
                            try progress.handOn(.registry, through: nil, session: session, to: continuation)
                        }
                    case .message:
                        if signal.node != nodeID, let message = signal.message {
                            try progress.handOn(
                                .message(from: signal.node, message), through: nil, session: session,
                                to: continuation)
                        }
                    case .invalidation:
                        if signal.node != nodeID, let invalidation = signal.invalidation {
                            try progress.handOn(
                                .changed(invalidation), through: nil, session: session, to: continuation)
                        }
                    case .feed:
                        through = max(through ?? signal.through, signal.through)
                    }
                }
                // The ranges arrive in seq order without a gap: (seen, through] holds them all, read
                // in parts of at most `feedReadSpan` seqs.
                guard let through else { continue }
                while progress.seen < through {
                    let seen = progress.seen
                    let end = min(through, seen + Self.feedReadSpan)
                    let change = try await committed(after: seen, through: end, on: connection)
                    try progress.handOn(change, through: end, session: session, to: continuation)
                }
            }
        }
    }

    /// The most seqs one read of the feed covers.
    static let feedReadSpan: Int64 = 10_000

    /// Closes a connection without waiting: awaiting `close()` on one the server had ended never
    /// returned (the relay stopped after PostgreSQL's first restart).
    static func closeQuietly(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        _ = connection.close() as EventLoopFuture<Void>
        // Kept until it has closed: PostgresNIO asserts that a connection released is closed.
        connection.closeFuture.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// The rows and summary events with seqs after `from` up to `through`, in seq order, read in one
    /// snapshot on the listening connection itself: not behind the live sessions' catch-up reads in
    /// the pool (seen: 400 stalled sessions reading delayed the feed by seconds).
    func committed(after from: Int64, through: Int64, on connection: PostgresConnection) async throws
        -> SharedChange
    {
        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
        do {
            let changes = try await Self.notificationRows(
                connection,
                """
                \(unescaped: Self.selectNotifications)
                WHERE n.seq > \(from) AND n.seq <= \(through) ORDER BY n.seq
                """, logger: logger)
            var summaries: [ReleasedSummary] = []
            for try await (deviceID, seq) in try await connection.query(
                """
                SELECT device_id, seq FROM summary_releases WHERE seq > \(from) AND seq <= \(through) ORDER BY seq
                """, logger: logger
            ).decode((String, Int64).self) {
                summaries.append(ReleasedSummary(deviceID: deviceID, seq: seq))
            }
            try await connection.query("COMMIT", logger: logger)
            return .feed(changes: changes, summaries: summaries)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
