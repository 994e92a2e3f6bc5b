import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import HeraldPostgres

/// The PostgreSQL engine's own parts: its URL, its migrations, and what two nodes on one database do
/// at once (what every engine does is in the contract suites).
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
        for store in stores + [again] { await store.close() }
    }

    @Test("a store released without close() gives its connections back to the server")
    func aReleasedStoreClosesItsConnections() async throws {
        let url = try await TestPostgres.newDatabase()
        let database = try PostgresURL(url).database
        let connections =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
        var store: PostgresStore? = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        // Several reads at once: the readers' pool opens more than one connection.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { [store] in _ = try await store!.teams() } }
            try await group.waitForAll()
        }
        #expect(try TestPostgres.query(url, connections) != ["0"])
        store = nil
        var open = try TestPostgres.query(url, connections)
        for _ in 0..<500 where open != ["0"] {
            try await Task.sleep(for: .milliseconds(10))
            open = try TestPostgres.query(url, connections)
        }
        #expect(open == ["0"], "connections still open 5 s after the store was released")
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
        await first.close()
        await second.close()
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
        for store in [first, second, reader] { await store.close() }
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

    /// Two nodes on one database, seeded with the fixture.
    private static func twoNodes() async throws -> (PostgresStore, PostgresStore) {
        let url = try await TestPostgres.newDatabase()
        let first = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        let second = try await PostgresStore.connect(url, logger: TestPostgres.logger)
        try await Fixture.seed(first)
        return (first, second)
    }

    /// What two nodes claim, each in batches until nothing is left, at once: every id either got.
    private static func claimedByBoth(
        _ first: PostgresStore, _ second: PostgresStore,
        _ claim: @escaping @Sendable (PostgresStore) async throws -> [String]
    ) async throws -> [String] {
        try await withThrowingTaskGroup(of: [String].self) { group in
            for node in [first, second] {
                group.addTask {
                    var ids: [String] = []
                    while true {
                        let batch = try await claim(node)
                        if batch.isEmpty { return ids }
                        ids += batch
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    @Test("both nodes' schedulers fire one due request at once: it fires once and advances once")
    func aFiringHappensOnceAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        for round in 0..<5 {
            let (stored, _) = try await first.addLocalRequest(
                LocalNotificationStoreTests.request("repeat-\(round)"), limit: 64)
            // Each node read it due at its fire date and fires it, repeating a minute later.
            var delivery = LocalNotificationStoreTests.delivery(
                stored, firedRevision: stored.revision, next: Fixture.time(120))
            delivery.firedFireDate = stored.nextFireAt
            let firing = delivery
            let fired = try await withThrowingTaskGroup(of: [StoredNotification].self) { group in
                for node in [first, second] { group.addTask { try await node.deliverLocal([firing]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(fired.filter { !$0.isEmpty }.count == 1, "round \(round)")
            let pending = try await second.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
            #expect(pending.first { $0.identifier == "repeat-\(round)" }?.nextFireAt == Fixture.time(120))
        }
        let changes = try await first.changes(deviceID: Fixture.deviceID, after: 0, limit: 100, now: Fixture.time())
        #expect(changes.count == 5)
        await first.close()
        await second.close()
    }

    @Test("both nodes' connections claim an app's responses at once: each is handed out once")
    func responsesAreClaimedOnceAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        for index in 0..<40 {
            try await first.recordResponse(ResponseStoreTests.response("r-\(index)"), webhookBody: "{}")
        }
        let claimed = try await Self.claimedByBoth(first, second) { node in
            try await node.claimResponses(
                deviceID: Fixture.deviceID, bundleID: Fixture.appID, limit: 3, at: Fixture.time(20)
            ).map(\.id)
        }
        #expect(claimed.count == 40)
        #expect(Set(claimed).count == 40)
        await first.close()
        await second.close()
    }

    @Test("both nodes' webhook services claim the due deliveries at once: each is attempted by one")
    func webhookDeliveriesAreClaimedOnceAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        try await first.setAppWebhook(
            AppWebhookRecord(
                bundleID: Fixture.appID, url: "http://x/hook", secret: "whsec_s", createdAt: Fixture.time()))
        for index in 0..<40 {
            try await first.recordResponse(ResponseStoreTests.response("w-\(index)"), webhookBody: "{}")
        }
        let claimed = try await Self.claimedByBoth(first, second) { node in
            try await node.claimDueWebhookDeliveries(
                through: Fixture.time(20), leaseEnd: Fixture.time(600), limit: 3
            ).map(\.id)
        }
        #expect(claimed.count == 40)
        #expect(Set(claimed).count == 40)
        await first.close()
        await second.close()
    }

    @Test("both nodes claim the service extension jobs no node runs at once: each job is claimed by one")
    func extensionJobsAreClaimedOnceAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        try await first.updateExtensionJobs(
            adding: (0..<40).map { ServiceExtensionStoreTests.job("j-\($0)", at: Int64($0)) }, removing: [])
        let claimed = try await Self.claimedByBoth(first, second) { node in
            try await node.claimExtensionJobs(
                through: Fixture.time(50), leaseEnd: Fixture.time(600), limit: 3
            ).map(\.id)
        }
        #expect(claimed.count == 40)
        #expect(Set(claimed).count == 40)
        await first.close()
        await second.close()
    }

    @Test("two devices of one person ask on two nodes at once: one request is pending, nothing is refused")
    func oneAuthorizationRequestAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        let outcomes = try await withThrowingTaskGroup(of: AuthorizationOutcome.self) { group in
            for (index, node) in [first, second, first, second].enumerated() {
                group.addTask {
                    try await node.askAuthorization(
                        AppRequestStoreTests.authorization(
                            "ask-\(index)", device: index.isMultiple(of: 2) ? Fixture.deviceID : Fixture.otherDeviceID),
                        provisional: false)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let ids = outcomes.compactMap { outcome -> String? in
            if case .pending(let request) = outcome { request.id } else { nil }
        }
        #expect(ids.count == 4)
        #expect(Set(ids).count == 1)
        await first.close()
        await second.close()
    }

    @Test("two nodes adding an app's attachments at once keep to its quota")
    func attachmentQuotaAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        let added = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                let node = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    do {
                        try await node.addAttachment(
                            AppRequestStoreTests.attachment("a-\(index)", size: 100), quota: 1000)
                        return true
                    } catch let error as StoreError where error.kind == .conflict {
                        return false
                    }
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(added == 10)
        #expect(try await second.attachmentBytes(bundleID: Fixture.appID) == 1000)
        await first.close()
        await second.close()
    }

    @Test(
        "a node hears every commit of the feed in seq order, its own and the other's, and the other's registry changes and invalidations"
    )
    func committedFeedAcrossNodes() async throws {
        let (first, second) = try await Self.twoNodes()
        let start = try await first.latestCursor()
        let feed = first.committedChanges(after: start)
        var iterator = feed.makeAsyncIterator()
        // The first thing heard once listening: what changed before is unknown.
        #expect(await iterator.next() == .listening)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                let node = task.isMultiple(of: 2) ? first : second
                group.addTask {
                    for batch in 0..<10 {
                        _ = try await node.insert((0..<3).map { Fixture.notification("f-\(task)-\(batch)-\($0)") })
                    }
                }
            }
            try await group.waitForAll()
        }
        _ = try await second.markRead(deviceID: Fixture.deviceID, id: "f-0-0-0", at: Fixture.time(5))
        let latest = try await first.latestCursor()
        var seqs: [Int64] = []
        var ids: [String] = []
        while seqs.last ?? start < latest {
            guard case .feed(let changes, _)? = await iterator.next() else { continue }
            seqs += changes.map(\.seq)
            ids += changes.map(\.id)
        }
        #expect(seqs == seqs.sorted())
        #expect(Set(ids).count == 120)
        #expect(seqs.last == latest)
        // The other node's registry change is heard; this node's own is not.
        try await first.createTeam(Team(teamID: "TOWN000001", name: "Own", createdAt: Fixture.time()))
        try await second.createTeam(Team(teamID: "TOTHER0001", name: "Other", createdAt: Fixture.time()))
        #expect(await iterator.next() == .registry)
        // The same for what nodes keep in memory: the other node's invalidations, in order, not its own.
        try await first.broadcast(.user("own-user"))
        let changes: [SharedInvalidation] = [
            .user("u 1"), .device("d-1"), .app("com.example.app"), .pendingRequests("d-1"),
            .appResponses(deviceID: "d 2", bundleID: "com.example.app"),
        ]
        for change in changes { try await second.broadcast(change) }
        for change in changes { #expect(await iterator.next() == .changed(change)) }
        await first.close()
        await second.close()
    }

    @Test("a connection handed over before the operation asks for it stays leased until the operation releases it")
    func handedOverConnectionStaysLeased() async throws {
        let url = try PostgresURL(try await TestPostgres.newDatabase())
        let connection = try await PostgresConnection.connect(
            configuration: try url.connectionConfiguration(), id: 1, logger: TestPostgres.logger)
        let handoff = LeaseHandoff()
        let released = Mutex(false)
        #expect(handoff.offer(connection))
        // The holder waits for the release, as it does holding the pool's lease.
        let holder = Task {
            await handoff.waitUntilReleased()
            released.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!released.withLock { $0 }, "given back to the pool before the operation took it")
        _ = try await handoff.connection()
        try await Task.sleep(for: .milliseconds(100))
        #expect(!released.withLock { $0 }, "given back to the pool while the operation used it")
        handoff.release()
        await holder.value
        #expect(released.withLock { $0 })
        // Given up on before a connection came: the operation fails, and a late one goes back.
        let late = LeaseHandoff()
        #expect(late.giveUp())
        await #expect(throws: DatabaseUnavailableError.self) { _ = try await late.connection() }
        #expect(!late.offer(connection))
        try await connection.close()
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
