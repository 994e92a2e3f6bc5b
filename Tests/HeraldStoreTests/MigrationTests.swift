import Foundation
import GRDB
import HeraldCore
import HeraldPolicy
import Testing

@testable import HeraldStore

@Suite("Schema migrations")
struct MigrationTests {
    /// A fresh directory for one test's database (the caller removes it).
    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The registry rows an old database needs before its notifications: a team, an app, a user
    /// and a device (`Fixture`'s ids), as SQL of the version-1 schema.
    private static let registryRows = """
        INSERT INTO teams VALUES ('TEAM000001', 'Example', 1750000000123);
        INSERT INTO apps VALUES ('com.example.app', 'TEAM000001', 'App', 0, 0, 0, 1750000000123);
        INSERT INTO users VALUES ('user-1', 'Ada', 'abab', 1750000000123);
        INSERT INTO devices VALUES ('device-1', 'user-1', 'Phone', 1750000000123);
        """

    @Test func theMigrationsAreAppendedInOrder() {
        #expect(
            Schema.migrator.migrations == [
                "v1-registry", "v1-notifications", "v2-policy", "v3-thread-id", "v4-app-badges", "v5-summary-releases",
                "v6-app-badge-prefilter", "v7-summary-candidates", "v8-insert-badges-in-store", "v9-thread-key",
                "v10-public-decision-shape", "v11-decision-badges-in-store", "v12-one-thread-key",
                "v13-local-notifications", "v14-app-webhooks", "v15-interactions", "v16-service-extensions",
                "v17-attachments", "v18-service-extension-secrets", "v19-app-icons", "v20-content-extensions",
                "v21-extension-job-claims",
            ])
    }

    @Test func everyTableIsStrict() async throws {
        let store = try SQLiteStore.inMemory()
        let tables = try store.writer.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'"
            )
        }
        let names = Set(tables.map { $0["name"] as String })
        #expect(
            names.isSuperset(of: [
                "notifications", "user_preferences", "app_settings", "focus_modes", "summary_schedules",
                "device_states",
                "summary_deliveries", "app_categories", "localization_files",
            ]))
        for table in tables {
            #expect(table["strict"] as Int == 1, "\(table["name"] as String) is not STRICT")
        }
    }

    @Test("v9 copies every row's thread into the stored thread key, which thread counts then use")
    func theThreadKeyIsFilledFromThePayload() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("herald.sqlite").path

        // Given a version-8 database with notifications in two threads, without one, and an empty one
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v8-insert-badges-in-store")
        try await old.write { db in
            try db.execute(
                sql: """
                    \(Self.registryRows)
                    INSERT INTO notifications (seq, id, device_id, bundle_id, topic, push_type, priority, payload, received_at)
                    VALUES
                        (1, 'n1', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{"aps":{"thread-id":"a"}}', 1750000000123),
                        (2, 'n2', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{"aps":{"thread-id":"a"}}', 1750000000123),
                        (3, 'n3', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{"aps":{"thread-id":"b"}}', 1750000000123),
                        (4, 'n4', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{"aps":{}}', 1750000000123),
                        (5, 'n5', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{"aps":{"thread-id":""}}', 1750000000123);
                    """)
        }
        try old.close()

        // When this version opens it, the counts are those of the payloads' threads
        let store = try SQLiteStore(path: path)
        #expect(try await store.threadCount(deviceID: "device-1", bundleID: "com.example.app", threadID: "a") == 2)
        #expect(try await store.threadCount(deviceID: "device-1", bundleID: "com.example.app", threadID: "b") == 1)
        #expect(try await store.threadCount(deviceID: "device-1", bundleID: "com.example.app", threadID: nil) == 2)
        let keys = try await store.writer.read { db in
            try String?.fetchAll(db, sql: "SELECT thread_key FROM notifications ORDER BY seq")
        }
        #expect(keys == ["a", "a", "b", nil, nil])
        // and the thread has one form: the generated column of v3 is gone (v12)
        let columns = try await store.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo('notifications')")
        }
        #expect(columns.contains("thread_key") && !columns.contains("thread_id"))
        try await store.close()
    }

    @Test("v10 rewrites stored decisions from Swift's synthesized encoding into the public snake_case shape")
    func storedDecisionsTakeThePublicShape() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("herald.sqlite").path

        // Given a version-9 database with decisions as the store kept them (JSONEncoder, sorted keys)
        let alerted =
            #"{"announce":false,"badge":true,"banner":1,"context":{"audio_route":"car","focus":{"id":"work","kind":"work","name":"Work"},"sender":{"handle":{"kind":2,"value":"+15550100200"},"name":"Ana"}},"disposition":"alerted","effectiveLevel":"active","lockScreen":true,"notificationCenter":true,"preview":{"full":{}},"reasons":["focus-allowed-person"],"sound":{"bypassesRinger":false,"plays":true}}"#
        let hidden =
            #"{"actions":[{"identifier":"reply","title":"Reply"}],"announce":false,"badge":false,"banner":0,"context":{"audio_route":"none"},"display":{"body":"2 messages","subtitle":null,"title":null},"disposition":"heldForFocus","effectiveLevel":"critical","focusID":"sleep","lockScreen":false,"notificationCenter":false,"preview":{"hidden":{"_0":{"locale":"ar","placeholder":"%u messages","showsSubtitle":false,"showsTitle":true,"threadCount":2}}},"reasons":["focus-held"],"sound":{"bypassesRinger":true,"plays":false,"volume":0.5}}"#
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v9-thread-key")
        try await old.write { db in
            try db.execute(sql: Self.registryRows)
            for (seq, disposition, decision) in [(1, "alerted", alerted), (2, "heldForFocus", hidden)] {
                try db.execute(
                    sql: """
                        INSERT INTO notifications (seq, id, device_id, bundle_id, topic, push_type, priority, payload, received_at, disposition, decision)
                        VALUES (?, ?, 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{"aps":{"badge":3}}', 1750000000123, ?, ?)
                        """, arguments: [seq, "n\(seq)", disposition, decision])
            }
            try db.execute(
                sql: """
                    INSERT INTO notifications (seq, id, device_id, bundle_id, topic, push_type, priority, payload, received_at)
                    VALUES (3, 'n3', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, '{}', 1750000000123)
                    """)
        }
        try old.close()

        // When this version opens it, each decision reads in the public shape, with every key
        let store = try SQLiteStore(path: path)
        let texts = try await store.writer.read { db in
            try String?.fetchAll(db, sql: "SELECT decision FROM notifications ORDER BY seq")
        }
        #expect(texts.count == 3 && texts[2] == nil)
        let first = try JSONParser.parse(Array(try #require(texts[0]).utf8))
        let second = try JSONParser.parse(Array(try #require(texts[1]).utf8))
        #expect(
            first.objectValue?.keys.sorted() == [
                "actions", "announce", "badge", "banner", "context", "display", "disposition", "effective_level",
                "focus_id",
                "lock_screen", "notification_center", "preview", "reason_codes", "sound",
            ])
        #expect(
            first.objectValue?["context"]
                == .object([
                    "focus": .object(["id": .string("work"), "kind": .string("work"), "name": .string("Work")]),
                    "audio_route": .string("car"), "summary": .null, "released_from": .null,
                    "communication_error": .null,
                    "sender": .object([
                        "name": .string("Ana"), "handle": .string("+15550100200"), "handle_type": .string("phone"),
                    ]),
                ]))
        #expect(
            second.objectValue?["actions"]
                == .array([.object(["identifier": .string("reply"), "title": .string("Reply")])]))
        #expect(second.objectValue?["display"]?.objectValue?["body"] == .string("2 messages"))
        #expect(
            try JSONDecoder().decode(Decision.self, from: Data(try #require(texts[0]).utf8))
                == Decision(
                    disposition: .alerted, banner: .banner, sound: SoundDecision(plays: true), badge: true,
                    lockScreen: true,
                    notificationCenter: true, effectiveLevel: .active,
                    reasons: [ReasonCode(rawValue: "focus-allowed-person")]
                ))
        #expect(
            try JSONDecoder().decode(Decision.self, from: Data(try #require(texts[1]).utf8))
                == Decision(
                    disposition: .heldForFocus, banner: .none,
                    sound: SoundDecision(plays: false, bypassesRinger: true, volume: 0.5),
                    preview: .hidden(
                        HiddenPreview(
                            placeholder: "%u messages", threadCount: 2, locale: "ar", showsTitle: true,
                            showsSubtitle: false)),
                    effectiveLevel: .critical, focusID: "sleep", reasons: [ReasonCode(rawValue: "focus-held")]
                ))
        // The rewrite set no badge (the decision trigger fires only when a decision starts applying one)
        let badges = try await store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM device_app_badges")
        }
        #expect(badges == 0)
        try await store.close()
    }

    @Test func aVersion1DatabaseKeepsItsDataAndGainsThePolicy() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("herald.sqlite").path

        // Given a database that a version-1 Herald wrote: its schema and rows, nothing of version 2
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v1-notifications")
        try await old.write { db in
            try db.execute(
                sql: """
                    \(Self.registryRows)
                    INSERT INTO notifications (seq, id, device_id, bundle_id, topic, push_type, priority, collapse_id,
                        expiration, payload, received_at, delivered_at, read_at, dismissed_at, removed_at)
                    VALUES
                        (1, 'n1', 'device-1', 'com.example.app', 'com.example.app', 'alert', 10, NULL, NULL, '{"aps":{}}', 1750000000123, NULL, 1750000001123, NULL, NULL),
                        (2, 'n2', 'device-1', 'com.example.app', 'com.example.app', 'alert', 5, 'c', 1750000999, '{"aps":{}}', 1750000002123, 1750000003123, NULL, NULL, NULL);
                    """)
        }
        #expect(
            try await old.read { db in try db.columns(in: "notifications").map(\.name) }.contains("disposition")
                == false)
        try old.close()

        // When this version opens it
        let store: any HeraldStore = try SQLiteStore(path: path)

        // Then the rows are intact, undecided, and the sequence continues
        let rows = try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: Fixture.time())
        #expect(rows.map(\.id) == ["n1", "n2"])
        #expect(rows[0].readAt == Fixture.time(1) && rows[0].payload == #"{"aps":{}}"#)
        #expect(
            rows[1].collapseID == "c" && rows[1].expiration == 1_750_000_999 && rows[1].deliveredAt == Fixture.time(3))
        #expect(rows.allSatisfy { $0.disposition == nil && $0.decision == nil && $0.releasedAt == nil })
        #expect(try await store.user(tokenDigest: "abab")?.userID == Fixture.userID)
        #expect(try await store.latestCursor() == 2)

        // And the policy works on them
        let decided = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "n1", decision: Fixture.decision(.heldForSummary), releasedAt: nil,
            at: Fixture.time(5)
        )
        #expect(decided?.seq == 3)
        #expect(
            try await store.heldNotifications(deviceIDs: [Fixture.deviceID], dispositions: [.heldForSummary]).map(\.id)
                == ["n1"])
        try await store.setDeviceState(DeviceState(isLocked: false), deviceID: Fixture.deviceID)
        #expect(try await store.policyContext(deviceID: Fixture.deviceID)?.deviceState?.isLocked == false)
        try await store.close()

        // Opening it again applies nothing twice
        let reopened = try SQLiteStore(path: path)
        let applied = try await reopened.writer.read { db in try Schema.migrator.appliedIdentifiers(db) }
        #expect(applied == Set(Schema.migrator.migrations))
        #expect(try await reopened.notification(deviceID: Fixture.deviceID, id: "n1") == decided)
        try await reopened.close()
    }
}
