import Foundation
import GRDB
import HeraldCore
import HeraldPolicy
import Testing

@testable import HeraldStore

@Suite("Decisions")
struct DecisionTests {
    let now = Fixture.time(100)

    @Test func aDecidedNotificationReadsBackWithItsDecision() async throws {
        let store = try await Fixture.makePolicyStore()
        var held = Fixture.decided("held", .heldForSummary)
        held.releasedAt = Fixture.time(2, milliseconds: 1)
        let changes = try await store.insert([
            held, Fixture.decided("alerted", .alerted), Fixture.notification("undecided"),
        ])

        #expect(changes[0].disposition == .heldForSummary)
        #expect(changes[0].decision == Fixture.decision(.heldForSummary))
        #expect(changes[0].releasedAt == Fixture.time(2, milliseconds: 1))
        #expect(changes[2].disposition == nil && changes[2].decision == nil && changes[2].releasedAt == nil)
        #expect(try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now) == changes)
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now) == changes)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "held") == changes[0])
        // The decision reads back as the policy made it, from the JSON text kept (the public shape).
        #expect(changes[0].decisionJSON == Fixture.decisionJSON(.heldForSummary))
        let stored = try await (try #require(store as? SQLiteStore)).writer.read { db in
            try String.fetchOne(db, sql: "SELECT decision FROM notifications WHERE id = 'held'")
        }
        #expect(stored == Fixture.decisionJSON(.heldForSummary))
        let decision = try #require(changes[0].decision).decision
        #expect(decision.disposition == .heldForSummary)
        #expect(decision.reasons.contains(.summaryHeld))
        // A read keeps the decision.
        let read = try await store.markRead(deviceID: Fixture.deviceID, id: "held", at: Fixture.time(3))
        #expect(read?.decision == changes[0].decision && read?.disposition == .heldForSummary)
    }

    @Test(arguments: StoreEngine.all)
    func aRetriedNotificationTakesTheNewDecision(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Fixture.decided("n", .heldForFocus, focusID: "work")])
        let retried = try await store.insert([Fixture.decided("n", .alerted)])
        #expect(retried.first?.disposition == .alerted)
        #expect(
            try await store.notification(deviceID: Fixture.deviceID, id: "n")?.decision == Fixture.decision(.alerted))
        let undecided = try await store.insert([Fixture.notification("n")])
        #expect(undecided.first?.disposition == nil && undecided.first?.decision == nil)
    }

    @Test("the disposition column is the decision's, for the held and summary indexes")
    func theDispositionColumnFollowsTheDecision() async throws {
        let store = try await Fixture.makePolicyStore()
        _ = try await store.insert([Fixture.decided("a", .heldForFocus, focusID: "work"), Fixture.notification("b")])
        _ = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "a", decision: Fixture.decision(.alerted), releasedAt: nil, at: now)
        let columns = try await (try #require(store as? SQLiteStore)).writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, disposition FROM notifications ORDER BY id").map {
                [$0["id"] as String, $0["disposition"] as String?]
            }
        }
        #expect(columns == [["a", "alerted"], ["b", nil]])
    }

    @Test(arguments: StoreEngine.all)
    func updatingTheDecisionTakesANewSeqTheStreamShows(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([
            Fixture.decided("held", .heldForFocus, focusID: "work"), Fixture.decided("other", .alerted),
        ])
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "held", at: Fixture.time(1))

        // When the Focus ends and the notification is decided again
        let released = try #require(
            try await store.updateDecision(
                deviceID: Fixture.deviceID, id: "held", decision: Fixture.decision(.alerted),
                releasedAt: Fixture.time(10, milliseconds: 3), at: Fixture.time(10)
            ))

        // Then the row changed with a new seq, keeping the rest of its state
        #expect(released.seq == 4)
        #expect(released.disposition == .alerted)
        #expect(released.decision == Fixture.decision(.alerted))
        #expect(released.releasedAt == Fixture.time(10, milliseconds: 3))
        #expect(released.readAt == Fixture.time(1))
        #expect(try await store.latestCursor() == 4)
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: 3, limit: 10, now: now) == [released])
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "held") == released)

        // The same decision again changes nothing
        let again = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "held", decision: Fixture.decision(.alerted),
            releasedAt: Fixture.time(10, milliseconds: 3), at: Fixture.time(20)
        )
        #expect(again == released)
        #expect(try await store.latestCursor() == 4)

        // A decision without a release time clears it
        let held = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "held", decision: Fixture.decision(.heldForSummary), releasedAt: nil,
            at: Fixture.time(30)
        )
        #expect(held?.seq == 5 && held?.releasedAt == nil && held?.disposition == .heldForSummary)
    }

    @Test(arguments: StoreEngine.all)
    func updatingTheDecisionOfAMissingOrRemovedNotificationFindsNothing(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Fixture.decided("n", .alerted)])
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(1))
        let decision = Fixture.decision(.listedSilently)
        #expect(
            try await store.updateDecision(
                deviceID: Fixture.deviceID, id: "n", decision: decision, releasedAt: nil, at: now) == nil)
        #expect(
            try await store.updateDecision(
                deviceID: Fixture.deviceID, id: "nope", decision: decision, releasedAt: nil, at: now) == nil)
        #expect(
            try await store.updateDecision(
                deviceID: Fixture.otherDeviceID, id: "n", decision: decision, releasedAt: nil, at: now) == nil)
        #expect(try await store.latestCursor() == 2)
    }

    @Test(arguments: StoreEngine.all)
    func heldNotificationsListsTheLiveHeldOnesOfTheDevicesOldestFirst(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        // Given held, delivered and removed notifications on three devices, arriving out of order
        _ = try await store.insert([
            Fixture.decided("summary-late", .heldForSummary, receivedAt: Fixture.time(30)),
            Fixture.decided("focus", .heldForFocus, receivedAt: Fixture.time(20), focusID: "work"),
            Fixture.decided(
                "summary-early", .heldForSummary, device: Fixture.otherDeviceID, receivedAt: Fixture.time(10)),
            Fixture.decided("alerted", .alerted, receivedAt: Fixture.time(5)),
            Fixture.decided("removed", .heldForSummary, receivedAt: Fixture.time(1)),
            Fixture.notification("undecided", receivedAt: Fixture.time(2)),
            Fixture.decided("stranger", .heldForSummary, device: Fixture.strangerDeviceID, receivedAt: Fixture.time(3)),
        ])
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "removed", at: Fixture.time(40))
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "summary-late", at: Fixture.time(41))
        let devices = [Fixture.deviceID, Fixture.otherDeviceID]

        let summary = try await store.heldNotifications(deviceIDs: devices, dispositions: [.heldForSummary])
        #expect(summary.map(\.id) == ["summary-early", "summary-late"])
        #expect(summary.last?.readAt == Fixture.time(41))
        let both = try await store.heldNotifications(
            deviceIDs: devices, dispositions: [.heldForSummary, .heldForFocus])
        #expect(both.map(\.id) == ["summary-early", "focus", "summary-late"])
        #expect(
            try await store.heldNotifications(deviceIDs: [Fixture.otherDeviceID], dispositions: [.heldForFocus]).isEmpty
        )
        #expect(try await store.heldNotifications(deviceIDs: [], dispositions: [.heldForFocus]).isEmpty)
        #expect(try await store.heldNotifications(deviceIDs: devices, dispositions: []).isEmpty)
        // Counted over every device (the metrics): the stranger's too, not the removed one.
        #expect(try await store.heldNotificationCounts() == [.heldForSummary: 3, .heldForFocus: 1])

        let error = await #expect(throws: StoreError.self) {
            try await store.heldNotifications(deviceIDs: devices, dispositions: [.heldForSummary, .alerted])
        }
        #expect(error?.kind == .invalid)
    }

    @Test(arguments: StoreEngine.all)
    func theUsersAFocusChangeCanConcernAreThoseWithAModeOrAHeldNotification(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await Fixture.seedOtherUser(store)
        try await store.createUser(
            User(userID: "user-3", name: "Nobody", createdAt: Fixture.time()),
            tokenDigest: String(repeating: "ef", count: 32))
        // Nobody has a Focus mode or a held notification yet (an alerted one does not count).
        try await store.insert([Fixture.decided("alerted", .alerted)])
        #expect(try await store.usersWithFocusOrHeld() == [])
        // The first user by a notification held on one of their devices, the other by a Focus mode.
        try await store.insert([Fixture.decided("held", .heldForSummary)])
        try await store.upsertFocusMode(Fixture.workFocus, userID: Fixture.otherUserID)
        #expect(try await store.usersWithFocusOrHeld() == [Fixture.userID, Fixture.otherUserID])
        // Once it is no longer held (removed), the first user drops out.
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "held", at: Fixture.time(9))
        #expect(try await store.usersWithFocusOrHeld() == [Fixture.otherUserID])
    }

    @Test func theHeldListIsReadThroughItsPartialIndex() async throws {
        // The index and the query name the held dispositions literally: they must be the policy's.
        #expect(SQLiteStore.heldSQL.contains("disposition IN ('heldForFocus', 'heldForSummary')"))
        #expect(Set(Disposition.allCases.filter(\.isHeld)) == [.heldForFocus, .heldForSummary])
        let store = try await Fixture.makeStore()
        let plan = try await store.writer.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.heldSQL,
                arguments: [#"["device-1"]"#, #"["heldForSummary"]"#]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("notifications_held") }, "plan: \(plan)")
    }
}
