import Foundation
import HeraldCore
import HeraldStore
import Logging
import NIOCore
import PostgresNIO

// Which node runs the services that must act once across nodes (`SharedDatabaseStore.whileLeading`).
//
// The lease is a session advisory lock (`pg_try_advisory_lock`) taken on a connection of its own and
// held for as long as that connection lives: a node that dies (kill -9, a crash, a lost network) has
// its connection ended by the server, which frees the lock for another node at once; the others try
// every `leadershipRetry`. While it leads, the node checks its connection every
// `leadershipHeartbeat`: a connection that closes, fails, or does not answer in time ends the term
// (its services are cancelled) before the node tries again — so two nodes lead at once only for as
// long as a dying node's last operations take, and what those services write is idempotent in the
// store (a summary slot once, a firing once per revision, a release of what is still held).

extension PostgresStore {
    /// The advisory lock key of the leader's lease ("herald-l" in ASCII): advisory locks are per
    /// database, so Herald databases on one server do not share it.
    static let leadershipLockKey: Int64 = 0x6865_7261_6C64_2D6C
    /// How often a node that does not lead tries to.
    static let leadershipRetry: Duration = .seconds(2)
    /// How often the leader checks its lease's connection, and how long the check may take.
    static let leadershipHeartbeat: Duration = .seconds(5)

    public func whileLeading(_ term: @escaping @Sendable () async throws -> Void) async throws {
        var attempt = 0
        while true {
            try Task.checkCancellation()
            do {
                if let connection = try await leadershipConnection() {
                    attempt = 0
                    defer { Self.closeQuietly(connection) }
                    logger.info("This node leads the services that act once across nodes")
                    try await lead(on: connection, term)
                    try Task.checkCancellation()
                    logger.warning("This node lost the lease of the services that act once across nodes")
                }
            } catch {
                if Task.isCancelled { throw CancellationError() }
                attempt += 1
                logger.log(
                    level: attempt == 1 ? .warning : .debug,
                    "Could not lead the services that act once across nodes (or they failed); trying again",
                    metadata: ["error": "\(String(reflecting: error))"])
            }
            try await Task.sleep(for: Self.leadershipRetry)
        }
    }

    /// A connection holding the lease, or nil when another node holds it.
    private func leadershipConnection() async throws -> PostgresConnection? {
        let connection = try await PostgresConnection.connect(
            configuration: try url.connectionConfiguration(), id: 2, logger: logger)
        do {
            let key = Self.leadershipLockKey
            let locked = try await watch.run(on: connection) {
                var locked = false
                for try await value in try await connection.query(
                    "SELECT pg_try_advisory_lock(\(key))", logger: self.logger
                ).decode(Bool.self) {
                    locked = value
                }
                return locked
            }
            if locked { return connection }
            Self.closeQuietly(connection)
            return nil
        } catch {
            Self.closeQuietly(connection)
            throw error
        }
    }

    /// Runs `term` until the lease's connection is lost (then cancels it and returns once it ended)
    /// or the caller is cancelled.
    private func lead(on connection: PostgresConnection, _ term: @escaping @Sendable () async throws -> Void)
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await term() }
            group.addTask { try await self.keepLease(on: connection) }
            group.addTask {
                // (Not `closeFuture.get()`: that wait ignores cancellation.)
                let closed = OnceResult<Void>()
                connection.closeFuture.whenComplete { _ in closed.resolve(.success(())) }
                try await withTaskCancellationHandler {
                    try await closed.value()
                } onCancel: {
                    closed.resolve(.failure(CancellationError()))
                }
            }
            // Whichever ends first (the term ends only when cancelled or failing; the lease when its
            // connection is lost) ends the other.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Returns when the lease's connection fails or is silent past the heartbeat (a connection the
    /// network lost without a word does not close for a long time).
    private func keepLease(on connection: PostgresConnection) async throws {
        while !connection.isClosed {
            try await Task.sleep(for: Self.leadershipHeartbeat)
            let alive = await succeeds(within: Self.leadershipHeartbeat) {
                try await self.watch.run(on: connection) {
                    _ = try await connection.query("SELECT 1", logger: self.logger)
                }
            }
            if !alive { return }
        }
    }
}
