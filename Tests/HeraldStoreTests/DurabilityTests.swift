import Foundation
import GRDB
import HeraldCore
@testable import HeraldStore
import Testing

@Suite("Database file")
struct DurabilityTests {
    /// A fresh directory for one test's database, removed afterwards by `body`'s caller.
    private func withDatabasePath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("herald.sqlite").path)
    }

    @Test func committedDataSurvivesReopeningTheDatabase() async throws {
        try await withDatabasePath { path in
            // Given a file database with a registry and a few notifications, closed cleanly
            let store = try SQLiteStore(path: path)
            try await Fixture.seed(store)
            let token = DeviceTokenRecord(token: Fixture.token(1), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time())
            try await store.createDeviceToken(token)
            let writer = NotificationWriter(store: store) { _ in }
            for index in 0 ..< 3 {
                _ = try await writer.write(Fixture.notification("n\(index)", receivedAt: Fixture.time(Int64(index), milliseconds: 7)))
            }
            _ = try await store.markRead(deviceID: Fixture.deviceID, id: "n0", at: Fixture.time(9, milliseconds: 999))
            let before = try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: Fixture.time())
            try await store.close()

            // The write-ahead log was checkpointed into the database file
            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            #expect(walSize == 0)

            // When it is opened again
            let reopened = try SQLiteStore(path: path)

            // Then everything is there, to the millisecond, and the sequence continues
            #expect(try await reopened.latestCursor() == 4)
            #expect(try await reopened.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: Fixture.time()) == before)
            #expect(before.map(\.id) == ["n1", "n2", "n0"])
            #expect(before.last?.readAt == Fixture.time(9, milliseconds: 999))
            #expect(before.first?.receivedAt == Fixture.time(1, milliseconds: 7))
            #expect(try await reopened.registrySnapshot().tokens[token.token] == token)
            #expect(try await reopened.user(tokenDigest: Fixture.tokenDigest)?.userID == Fixture.userID)
            #expect(try await reopened.insert([Fixture.notification("n3")]).map(\.seq) == [5])
            try await reopened.close()
        }
    }

    @Test func theFileDatabaseSyncsEveryCommitInWALMode() async throws {
        try await withDatabasePath { path in
            let store = try SQLiteStore(path: path)
            let settings = try await store.writer.writeWithoutTransaction { db in
                (
                    synchronous: try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                    journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                    foreignKeys: try Bool.fetchOne(db, sql: "PRAGMA foreign_keys")
                )
            }
            #expect(settings.synchronous == 2) // FULL
            #expect(settings.journalMode == "wal")
            #expect(settings.foreignKeys == true)
            try await store.close()
        }
    }

    @Test func datesAreKeptToTheMillisecond() async throws {
        let store = try await Fixture.makeStore()
        let received = Date(timeIntervalSince1970: 1_750_000_000.123_4)
        let stored = try await store.insert([Fixture.notification("n", receivedAt: received)])
        let read = try await store.notification(deviceID: Fixture.deviceID, id: "n")
        #expect(read?.receivedAt == Fixture.time())
        #expect(stored.first == read)
    }
}
