import Foundation
import HeraldCore
import HeraldPolicy
import HeraldPostgres
import HeraldStore
import Logging
import Testing

/// The PostgreSQL engine's own parts: its URL, its migrations. (What every engine does is in the
/// contract suites.)
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("a database URL in libpq's form: TCP or a socket directory, sslmode; a bad one is refused in words")
    func urls() throws {
        let tcp = try PostgresURL("postgres://herald:s%40cret@db.example.com:6543/herald?sslmode=require")
        #expect(tcp.user == "herald" && tcp.password == "s@cret" && tcp.host == "db.example.com")
        #expect(tcp.port == 6543 && tcp.database == "herald" && tcp.sslMode == "require" && tcp.socketDirectory == nil)
        let socket = try PostgresURL("postgresql://herald@localhost/db?host=/run/postgresql")
        #expect(socket.socketDirectory == "/run/postgresql" && socket.port == 5432 && socket.sslMode == "prefer")

        for (bad, words) in [
            ("mysql://herald@h/db", "postgres://user@host/database"),
            ("postgres://h/db", "names no user"),
            ("postgres://herald@h/", "names no database"),
            ("postgres://herald@h/db?host=relative", "socket directory"),
            ("postgres://herald@h/db?sslmode=verify-full", "sslmode"),
            ("postgres://herald@h/db?pool=3", "does not know: pool"),
        ] {
            let error = #expect(throws: PostgresURLError.self, "\(bad)") { try PostgresURL(bad) }
            #expect(error?.description.contains(words) == true, "\(bad): \(error?.description ?? "")")
        }
        // A refused URL's message never shows its password.
        let secret = #expect(throws: PostgresURLError.self) { try PostgresURL("mysql://u:hunter2@h/db") }
        #expect(secret?.description.contains("hunter2") == false)
    }

    @Test("nodes starting together apply each migration once; a restart applies none")
    func migrationsOnce() async throws {
        let url = try await TestPostgres.newDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresStore.connect(url, logger: TestPostgres.logger) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        let again = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        try await again.createTeam(Team(teamID: "T1", name: "One", createdAt: Date(timeIntervalSince1970: 1)))
        #expect(try await stores[0].teams().map(\.teamID) == ["T1"])  // one database, seen by every node

        let counts = try await TestPostgres.query(url, "SELECT name, count(*) FROM herald_migrations GROUP BY name")
        #expect(!counts.isEmpty && counts.allSatisfy { $0.hasSuffix("|1") }, "\(counts)")
        for store in stores + [again] { store.close() }
    }

    @Test("two nodes adding Focus modes for one user at once: each lands, in turn, none refused")
    func focusModesFromTwoNodes() async throws {
        let url = try await TestPostgres.newDatabase()
        let first = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let second = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        try await Fixture.seed(first)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let node = index.isMultiple(of: 2) ? first : second
                var mode = Fixture.workFocus
                mode.id = "mode-\(index)"
                group.addTask { try await node.upsertFocusMode(mode, userID: Fixture.userID) }
            }
            try await group.waitForAll()
        }
        let modes = try await second.focusModes(userID: Fixture.userID)
        #expect(Set(modes.map(\.id)) == Set((0..<20).map { "mode-\($0)" }))
        first.close()
        second.close()
    }

    @Test("two nodes writing at once: a reader following the change feed by cursor misses no row")
    func cursorMissesNothingAcrossNodes() async throws {
        let url = try await TestPostgres.newDatabase()
        let first = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let second = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        try await Fixture.seed(first)
        let reader = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    let node = task.isMultiple(of: 2) ? first : second
                    group.addTask {
                        for batch in 0..<15 {
                            try await _ = node.insert(
                                (0..<4).map { Fixture.notification("n-\(task)-\(batch)-\($0)") })
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // The reader follows the feed while they write, as a live session does: from its cursor on.
        var seen = Set<String>()
        var cursor: Int64 = 0
        func follow() async throws {
            let changes = try await reader.changes(
                deviceID: Fixture.deviceID, after: cursor, limit: 10_000, now: Fixture.time())
            for change in changes { seen.insert(change.id) }
            cursor = changes.last?.seq ?? cursor
        }
        while !writers.isCancelled, await !Self.isDone(writers) { try await follow() }
        try await writers.value
        try await follow()
        #expect(seen.count == 8 * 15 * 4)
        #expect(cursor == (try await reader.latestCursor()))
        for store in [first, second, reader] { store.close() }
    }

    private static func isDone(_ task: Task<Void, any Error>) async -> Bool {
        // Done when its value is ready without waiting: a short race against a sleep.
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try? await task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(2))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Test("a server that is not there: connect fails with PostgreSQL's error, not a hang")
    func noServer() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-postgres-\(UUID())").path
        await #expect(throws: (any Error).self) {
            try await PostgresStore.connect(
                "postgres://herald@localhost/herald?host=\(missing)", logger: TestPostgres.logger)
        }
    }
}
