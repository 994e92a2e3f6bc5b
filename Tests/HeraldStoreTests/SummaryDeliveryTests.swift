import Foundation
import GRDB
import HeraldCore
import HeraldPolicy
@testable import HeraldStore
import Testing

@Suite("Scheduled Summary deliveries")
struct SummaryDeliveryTests {
    let now = Fixture.time(100)
    let slot = Fixture.time(3600)
    let digest = #"{"apps":[],"deliveredAt":0}"#

    /// The release of a held notification to a listed-silently decision (a summary does not interrupt).
    private func release(_ id: String, device: String = Fixture.deviceID) -> DecisionUpdate {
        DecisionUpdate(deviceID: device, id: id, disposition: "listedSilently", decision: Fixture.decisionJSON(.listedSilently))
    }

    /// Held notifications on both devices of the user, and some that the summary must not touch.
    private func seedHeld(_ store: any HeraldStore) async throws {
        _ = try await store.insert([
            Fixture.decided("a", .heldForSummary, receivedAt: Fixture.time(1)),
            Fixture.decided("b", .heldForSummary, device: Fixture.otherDeviceID, receivedAt: Fixture.time(2)),
            Fixture.decided("focus", .heldForFocus, receivedAt: Fixture.time(3), focusID: "work"),
            Fixture.decided("alerted", .alerted, receivedAt: Fixture.time(4)),
            Fixture.decided("gone", .heldForSummary, receivedAt: Fixture.time(5)),
        ])
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "gone", at: Fixture.time(6))
    }

    @Test func aSummarySlotIsRecordedOnce() async throws {
        let store = try await Fixture.makePolicyStore()
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == nil)
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: slot, digest: digest, at: now))
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: slot, digest: "{}", at: Fixture.time(200)) == false)
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == slot)

        // Another user's same slot, and an earlier slot of this user, are their own deliveries
        #expect(try await store.recordSummaryDelivery(userID: Fixture.otherUserID, slot: slot, digest: digest, at: now))
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: Fixture.time(60), digest: digest, at: now))
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == slot)

        // The first delivery's record is the one kept
        let sqlite = try #require(store as? SQLiteStore)
        let kept = try sqlite.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT delivered_at, digest FROM summary_deliveries WHERE user_id = ? AND slot_ms = ?",
                             arguments: [Fixture.userID, slot.storedMilliseconds])
        }
        #expect(kept?["delivered_at"] == now.storedMilliseconds)
        #expect(kept?["digest"] == digest)
    }

    @Test func releasingASummaryUpdatesItsHeldNotificationsInOneChange() async throws {
        let store = try await Fixture.makePolicyStore()
        try await seedHeld(store)
        let cursor = try await store.latestCursor()

        // When the summary releases what was held (and names some that are no longer held for it)
        let released = try #require(try await store.releaseSummary(
            userID: Fixture.userID, slot: slot, digest: digest,
            releases: [release("a"), release("b", device: Fixture.otherDeviceID), release("focus"), release("alerted"), release("gone"), release("missing")],
            at: now
        ))

        // Then the notifications held for the summary changed, with new seqs, released at its time
        #expect(released.map(\.id) == ["a", "b"])
        #expect(released.map(\.seq) == [cursor + 1, cursor + 2])
        #expect(released.allSatisfy { $0.disposition == "listedSilently" && $0.releasedAt == now })
        #expect(released.allSatisfy { $0.decision == Fixture.decisionJSON(.listedSilently) })
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: cursor, limit: 10, now: now) == [released[0]])
        #expect(try await store.changes(deviceID: Fixture.otherDeviceID, after: cursor, limit: 10, now: now) == [released[1]])
        // The rest is untouched
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "focus")?.disposition == "heldForFocus")
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "alerted")?.releasedAt == nil)
        #expect(try await store.heldNotifications(deviceIDs: [Fixture.deviceID, Fixture.otherDeviceID], dispositions: ["heldForSummary"]).isEmpty)
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == slot)
    }

    @Test func aSecondReleaseOfTheSameSlotChangesNothing() async throws {
        let store = try await Fixture.makePolicyStore()
        try await seedHeld(store)
        let first = try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: digest, releases: [release("a")], at: now)
        #expect(first?.count == 1)
        let cursor = try await store.latestCursor()
        let before = try await store.changes(deviceID: Fixture.otherDeviceID, after: 0, limit: 10, now: now)

        // When the same slot is released again (a retry, or a second summary service), even with other notifications
        let second = try await store.releaseSummary(
            userID: Fixture.userID, slot: slot, digest: digest,
            releases: [release("b", device: Fixture.otherDeviceID)], at: Fixture.time(200)
        )

        // Then nothing is released
        #expect(second == nil)
        #expect(try await store.latestCursor() == cursor)
        #expect(try await store.changes(deviceID: Fixture.otherDeviceID, after: 0, limit: 10, now: now) == before)
        #expect(try await store.notification(deviceID: Fixture.otherDeviceID, id: "b")?.disposition == "heldForSummary")
    }

    @Test func aDeliveredSlotStaysDeliveredAcrossRestarts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("herald.sqlite").path

        // Given a summary released, then Herald stopped
        let store = try SQLiteStore(path: path)
        try await Fixture.seed(store)
        try await Fixture.seedOtherUser(store)
        try await seedHeld(store)
        let released = try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: digest, releases: [release("a")], at: now)
        #expect(released?.map(\.id) == ["a"])
        let cursor = try await store.latestCursor()
        try await store.close()

        // When it starts again and catches up on the same summary time
        let reopened: any HeraldStore = try SQLiteStore(path: path)
        #expect(try await reopened.lastSummaryDelivery(userID: Fixture.userID) == slot)
        let again = try await reopened.releaseSummary(
            userID: Fixture.userID, slot: slot, digest: digest, releases: [release("b", device: Fixture.otherDeviceID)], at: Fixture.time(7200)
        )

        // Then the slot is not delivered twice, and what it released is still released
        #expect(again == nil)
        #expect(try await reopened.latestCursor() == cursor)
        #expect(try await reopened.notification(deviceID: Fixture.deviceID, id: "a") == released?.first)
        #expect(try await reopened.notification(deviceID: Fixture.otherDeviceID, id: "b")?.disposition == "heldForSummary")
        #expect(try await reopened.recordSummaryDelivery(userID: Fixture.userID, slot: Fixture.time(7200), digest: digest, at: Fixture.time(7200)))
        try await reopened.close()
    }

    @Test func aFailedReleaseRecordsNoDelivery() async throws {
        let store = try await Fixture.makePolicyStore()
        try await seedHeld(store)
        _ = try await store.insert([Fixture.decided("theirs", .heldForSummary, device: Fixture.strangerDeviceID)])
        let cursor = try await store.latestCursor()

        let errors: [StoreError?] = [
            await #expect(throws: StoreError.self) {
                try await store.releaseSummary(userID: "nobody", slot: slot, digest: digest, releases: [], at: now)
            },
            // A release of another user's notification
            await #expect(throws: StoreError.self) {
                try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: digest,
                                               releases: [release("a"), release("theirs", device: Fixture.strangerDeviceID)], at: now)
            },
            await #expect(throws: StoreError.self) {
                try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: "{not json", releases: [release("a")], at: now)
            },
            // A decision that is not JSON, after one that is: the whole summary rolls back
            await #expect(throws: StoreError.self) {
                try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: digest, releases: [
                    release("a"), DecisionUpdate(deviceID: Fixture.otherDeviceID, id: "b", disposition: "alerted", decision: "{"),
                ], at: now)
            },
            await #expect(throws: StoreError.self) {
                try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: digest, releases: [
                    DecisionUpdate(deviceID: Fixture.deviceID, id: "a", disposition: "released", decision: "{}"),
                ], at: now)
            },
        ]
        #expect(errors.map(\.?.kind) == [.notFound, .invalid, .invalid, .invalid, .invalid])

        // Then nothing was recorded or released: the slot can still be delivered
        #expect(try await store.latestCursor() == cursor)
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == nil)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "a")?.disposition == "heldForSummary")
        #expect(try await store.releaseSummary(userID: Fixture.userID, slot: slot, digest: digest, releases: [release("a")], at: now)?.count == 1)
    }

    @Test func manySummariesAreReleasedInOneTransaction() async throws {
        let store = try await Fixture.makePolicyStore()
        try await seedHeld(store)
        _ = try await store.insert([Fixture.decided("theirs", .heldForSummary, device: Fixture.strangerDeviceID)])
        let cursor = try await store.latestCursor()

        let results = try await store.releaseSummaries([
            SummaryRelease(userID: Fixture.userID, slot: slot, digest: digest, releases: [release("a")]),
            SummaryRelease(userID: Fixture.otherUserID, slot: slot, digest: digest, releases: [release("theirs", device: Fixture.strangerDeviceID)]),
            // The same slot again within the batch is already delivered
            SummaryRelease(userID: Fixture.userID, slot: slot, digest: digest, releases: [release("b", device: Fixture.otherDeviceID)]),
        ], at: now)

        #expect(results.count == 3)
        #expect(results[0]?.map(\.id) == ["a"])
        #expect(results[1]?.map(\.id) == ["theirs"])
        #expect(results[2] == nil)
        #expect(results[0]?.first?.seq == cursor + 1 && results[1]?.first?.seq == cursor + 2)
        #expect(try await store.releaseSummaries([], at: now).isEmpty)
    }

    @Test func usersWithSummaryListsTheSummariesThatAreOn() async throws {
        let store = try await Fixture.makePolicyStore()
        #expect(try await store.usersWithSummary().isEmpty)
        try await store.createUser(User(userID: "user-3", name: "Edsger", createdAt: Fixture.time()), tokenDigest: String(repeating: "ef", count: 32))

        // Given one user with a summary and a time zone, one with a summary and no preferences, one with it off
        try await store.setSummarySchedule(Fixture.summary, userID: Fixture.userID)
        try await store.setPreferences(Fixture.preferences, userID: Fixture.userID)
        let evening = try SummarySchedule(times: [TimeOfDay(hour: 20)])
        try await store.setSummarySchedule(evening, userID: Fixture.otherUserID)
        try await store.setSummarySchedule(.off, userID: "user-3")
        try await store.setPreferences(Fixture.preferences, userID: "user-3")
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: slot, digest: digest, at: now))
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: Fixture.time(60), digest: digest, at: now))

        let users = try await store.usersWithSummary()
        #expect(users == [
            SummaryUserRecord(userID: Fixture.userID, schedule: Fixture.summary, timeZone: TimeZone(identifier: "Europe/Paris")!, lastDeliveredSlot: slot),
            SummaryUserRecord(userID: Fixture.otherUserID, schedule: evening, timeZone: TimeZone(identifier: "UTC")!, lastDeliveredSlot: nil),
        ])
    }
}
