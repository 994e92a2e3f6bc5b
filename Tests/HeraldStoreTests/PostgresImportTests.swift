import Foundation
import HeraldCore
import HeraldStore
import Testing

@testable import HeraldPostgres

/// `herald migrate`'s copy of an SQLite database into PostgreSQL (`importTables`): what a node reads
/// afterwards is what it read from SQLite, ids and cursors included, and what comes next continues.
@Suite("PostgreSQL store: importing an SQLite database")
struct PostgresImportTests {
    /// An SQLite file with something in tables of each kind of column: arrays (a key's topics, an
    /// authorization request's options), identities (local requests, responses), the lists' seqs.
    private static func filledSQLite() async throws -> SQLiteStore {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).sqlite")
        let store = try SQLiteStore(path: path.path)
        try await Fixture.seed(store)
        try await store.createKey(
            SigningKey(
                keyID: "KEY0000001", teamID: Fixture.teamID, topics: [Fixture.appID, "com.example.other"],
                publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----", createdAt: Fixture.time()))
        // More than a page of rows (`importPage`, 1,000).
        _ = try await store.insert(
            (0..<2_500).map { Fixture.notification("n\($0)", receivedAt: Fixture.time(Int64($0))) })
        _ = try await store.insert([Fixture.notification("other", device: Fixture.otherDeviceID)])
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "n3", at: Fixture.time(40))
        try await store.askAuthorization(
            AuthorizationRequestRecord(
                id: "ask-1", deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID, userID: Fixture.userID,
                options: ["alert", "badge"], requestedAt: Fixture.time(5)), provisional: false)
        for identifier in ["a", "b"] {
            _ = try await store.addLocalRequest(LocalNotificationStoreTests.request(identifier), limit: 64)
        }
        try await store.recordResponse(ResponseStoreTests.response("r1"), webhookBody: "{}")
        return store
    }

    @Test("every row copied: the lists with their cursors, the registry, arrays; seqs and identities continue")
    func importedReadsTheSame() async throws {
        let source = try await Self.filledSQLite()
        let target = try await PostgresStore.connect(try await TestPostgres.newDatabase(), logger: TestPostgres.logger)
        let summary = try await target.importTables(from: source)
        #expect(
            summary.rows["notifications"] == 2_501 && summary.rows["teams"] == 1 && summary.rows["signing_keys"] == 1)
        #expect(summary.latestSeq == (try await source.latestCursor()))
        #expect(try await target.latestCursor() == summary.latestSeq)

        for device in [Fixture.deviceID, Fixture.otherDeviceID] {
            let before = try await source.notifications(deviceID: device, after: 0, limit: 5_000, now: Fixture.time())
            let after = try await target.notifications(deviceID: device, after: 0, limit: 5_000, now: Fixture.time())
            #expect(after == before)
            #expect(after.count == (device == Fixture.deviceID ? 2_500 : 1))
        }
        #expect(try await target.keys() == (try await source.keys()))
        let (registry, sourceRegistry) = (try await target.registrySnapshot(), try await source.registrySnapshot())
        #expect(registry.keys == sourceRegistry.keys && registry.apps == sourceRegistry.apps)
        #expect(registry.tokens == sourceRegistry.tokens)
        #expect(
            try await target.pendingAuthorizationRequests(deviceID: Fixture.deviceID)
                == (try await source.pendingAuthorizationRequests(deviceID: Fixture.deviceID)))
        let requests = try await target.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
        #expect(requests == (try await source.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID)))

        // What comes next continues after what was copied: a seq, a request's revision, a response.
        let next = try await target.insert([Fixture.notification("next")])
        #expect(next.map(\.seq) == [summary.latestSeq + 1])
        let (added, _) = try await target.addLocalRequest(LocalNotificationStoreTests.request("c"), limit: 64)
        #expect(added.revision > requests.map(\.revision).max() ?? 0)
        try await target.recordResponse(ResponseStoreTests.response("r2"), webhookBody: "{}")
        let claimed = try await target.claimResponses(
            deviceID: Fixture.deviceID, bundleID: Fixture.appID, limit: 5, at: Fixture.time(20))
        #expect(claimed.map(\.id) == ["r1", "r2"])
        await target.close()
    }

    @Test("a database that already holds Herald data is refused, and nothing is written to it")
    func aFilledDatabaseIsRefused() async throws {
        let source = try await Self.filledSQLite()
        let target = try await PostgresStore.connect(try await TestPostgres.newDatabase(), logger: TestPostgres.logger)
        try await target.createTeam(Team(teamID: "TEAM000002", name: "Here first", createdAt: Fixture.time()))
        let error = await #expect(throws: ImportError.self) { try await target.importTables(from: source) }
        #expect(
            error?.description.contains("already holds Herald data (in teams)") == true, "\(String(describing: error))")
        #expect(try await target.teams().map(\.teamID) == ["TEAM000002"])
        #expect(try await target.latestCursor() == 0)
        await target.close()
    }
}
