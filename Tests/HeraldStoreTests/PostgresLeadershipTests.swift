import Foundation
import HeraldStore
import Synchronization
import Testing

@testable import HeraldPostgres

/// The lease of the services that must act once across nodes (`whileLeading`): two nodes on one
/// database, as two Herald processes would be.
@Suite("PostgreSQL store: one node leads the time-driven services")
struct PostgresLeadershipTests {
    /// Which node's term runs, and which ever started.
    final class Terms: Sendable {
        private let state = Mutex<(started: [String], running: Set<String>)>(([], []))

        func term(_ node: String) async throws {
            state.withLock { state in
                state.started.append(node)
                state.running.insert(node)
            }
            defer { _ = state.withLock { $0.running.remove(node) } }
            while true { try await Task.sleep(for: .seconds(3600)) }
        }

        var started: [String] { state.withLock { $0.started } }
        var running: Set<String> { state.withLock { $0.running } }
    }

    /// Waits up to `seconds` for `condition`.
    private static func eventually(_ seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test("one node leads; when the server ends its lease's connection its term stops and a node takes over")
    func oneLeaderThenTakeOver() async throws {
        let url = try await TestPostgres.newDatabase()
        let first = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let second = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let terms = Terms()
        let a = Task { try await first.whileLeading { try await terms.term("first") } }
        #expect(try await Self.eventually(10) { terms.running == ["first"] })
        let b = Task { try await second.whileLeading { try await terms.term("second") } }
        // The second node tries (every 2 s) and does not lead while the first holds the lease.
        try await Task.sleep(for: PostgresStore.leadershipRetry * 2)
        #expect(terms.started == ["first"] && terms.running == ["first"])

        // The lease's connection ends, as when the node dies or the server restarts.
        let ended = try TestPostgres.query(
            url,
            """
            SELECT pg_terminate_backend(pid) FROM pg_locks
            WHERE locktype = 'advisory' AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
        #expect(ended == ["t"], "one connection held the lease: \(ended)")
        // The first node's term is cancelled, and one node (either) leads again within seconds.
        #expect(try await Self.eventually(15) { terms.started.count == 2 && terms.running.count == 1 })
        try await Task.sleep(for: PostgresStore.leadershipRetry * 2)
        #expect(terms.started.count == 2 && terms.running.count == 1, "\(terms.started) \(terms.running)")
        #expect(terms.started[0] == "first")

        // Cancelled (shutdown), a node's term ends and it no longer leads.
        a.cancel()
        b.cancel()
        _ = await a.result
        _ = await b.result
        #expect(terms.running.isEmpty)
        await first.close()
        await second.close()
    }

    @Test("a term that fails gives the lease up, and the node tries again")
    func aFailedTermTriesAgain() async throws {
        struct Failure: Error {}
        let url = try await TestPostgres.newDatabase()
        let store = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let count = Mutex(0)
        let leading = Task {
            try await store.whileLeading {
                let attempt = count.withLock { value in
                    value += 1
                    return value
                }
                if attempt == 1 { throw Failure() }
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
        }
        #expect(try await Self.eventually(15) { count.withLock { $0 } == 2 })
        leading.cancel()
        let result = await leading.result
        #expect(throws: CancellationError.self) { try result.get() }
        await store.close()
    }
}
