import Foundation
import GRDB
import HeraldCore
import Testing

@testable import HeraldStore

@Suite("Database file")
struct DurabilityTests {
    /// A fresh directory for one test's database, removed afterwards by `body`'s caller.
    private func withDatabasePath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("herald.sqlite").path)
    }

    @Test func committedDataSurvivesReopeningTheDatabase() async throws {
        try await withDatabasePath { path in
            // Given a file database with a registry and a few notifications, closed cleanly
            let store = try SQLiteStore(path: path)
            try await Fixture.seed(store)
            let token = DeviceTokenRecord(
                token: Fixture.token(1), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time())
            try await store.createDeviceToken(token)
            let writer = NotificationWriter(store: store) { _ in }
            let running = Task { try await writer.run() }
            defer { running.cancel() }
            for index in 0..<3 {
                _ = try await writer.write(
                    Fixture.notification("n\(index)", receivedAt: Fixture.time(Int64(index), milliseconds: 7)))
            }
            _ = try await store.markRead(deviceID: Fixture.deviceID, id: "n0", at: Fixture.time(9, milliseconds: 999))
            let before = try await store.notifications(
                deviceID: Fixture.deviceID, after: 0, limit: 10, now: Fixture.time())
            try await store.close()

            // The write-ahead log was checkpointed into the database file
            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            #expect(walSize == 0)

            // When it is opened again
            let reopened = try SQLiteStore(path: path)

            // Then everything is there, to the millisecond, and the sequence continues
            #expect(try await reopened.latestCursor() == 4)
            #expect(
                try await reopened.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: Fixture.time())
                    == before)
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
            #expect(settings.synchronous == 2)  // FULL
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

    @Test("the background checkpointer keeps the log bounded while a writer commits without pause")
    func checkpointerBoundsTheLog() async throws {
        try await withDatabasePath { path in
            // Given a WAL database and a checkpointer that starts the log over past 64 pages
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let pool = try DatabasePool(path: path, configuration: configuration)
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (b BLOB)")
            }
            let checkpointer = try WALCheckpointer(
                path: path, configuration: configuration, interval: 0.005, restartFrames: 64)
            checkpointer.start()
            // When 2,000 commits of 16 KiB each (32 MiB) follow each other
            let blob = Data(repeating: 7, count: 16 * 1024)
            var largestLog = 0
            for _ in 0..<2_000 {
                try await pool.write { db in try db.execute(sql: "INSERT INTO t (b) VALUES (?)", arguments: [blob]) }
                let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
                largestLog = max(largestLog, size)
            }
            checkpointer.stop()
            // Then the log started over again and again: it never held more than a fraction of it
            // (without the checkpointer, with automatic checkpoints off, it would hold all 32 MiB)
            #expect(largestLog < 16 * 1024 * 1024, "largest log \(largestLog) bytes")
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 2_000)
            try pool.close()
        }
    }

    @Test("checkpointLog writes the whole log back and empties it; the data stays")
    func checkpointLogEmptiesTheLog() async throws {
        try await withDatabasePath { path in
            let store = try SQLiteStore(path: path)
            try await store.createTeam(Team(teamID: "TEAM000001", name: "Example", createdAt: Fixture.time()))
            let logSize = { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 }
            #expect(logSize() > 0)
            try await store.checkpointLog()
            #expect(logSize() == 0)
            #expect(try await store.teams().map(\.teamID) == ["TEAM000001"])
            try await store.close()
        }
    }
}
