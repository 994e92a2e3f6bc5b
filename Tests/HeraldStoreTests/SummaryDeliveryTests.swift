import Foundation
import GRDB
import HeraldCore
import HeraldPolicy
import Testing

@testable import HeraldStore

@Suite("Scheduled Summary deliveries")
struct SummaryDeliveryTests {
    let now = Fixture.time(100)
    let slot = Fixture.time(3600)
    let digest = #"{"apps":[],"deliveredAt":0}"#

    /// Held notifications on both devices of the user, and some that the summary must not touch.
    private func seedHeld(_ store: any HeraldStore) async throws {
        _ = try await store.insert([
            Fixture.decided("a", .heldForSummary, receivedAt: Fixture.time(1)),
            Fixture.decided("b", .heldForSummary, device: Fixture.otherDeviceID, receivedAt: Fixture.time(2)),
            Fixture.decided("focus", .heldForFocus, receivedAt: Fixture.time(3), focusID: "work"),
            Fixture.decided("alerted", .alerted, receivedAt: Fixture.time(4)),
            Fixture.decided("gone", .heldForSummary, receivedAt: Fixture.time(5)),
            Fixture.decided("late", .heldForSummary, receivedAt: Fixture.time(7200)),
        ])
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "gone", at: Fixture.time(6))
    }

    /// The user's summary for `slot` as the summary service makes it: every candidate, `a` featured.
    private func summary(_ store: any HeraldStore, slot: Date? = nil) async throws -> SummaryRelease {
        let slot = slot ?? self.slot
        let candidates = try await store.summaryCandidates([(Fixture.userID, slot)])
        let devices = Dictionary(grouping: candidates.held, by: \.deviceID).keys.sorted().map { device in
            let ids = candidates.held.filter { $0.deviceID == device }.map(\.id)
            return DeviceSummary(
                deviceID: device, apps: [SummaryAppGroup(bundleID: Fixture.appID, ids: ids)],
                featured: ids.filter { $0 == "a" })
        }
        return SummaryRelease(
            userID: Fixture.userID, slot: slot, digest: digest, devices: devices, horizon: candidates.horizon)
    }

    /// The decision JSON of a row as an object.
    private func decision(_ row: StoredNotification?) throws -> [String: Any] {
        let text = try #require(row?.decisionJSON)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aSummarySlotIsRecordedOnce() async throws {
        let store = try await Fixture.makePolicyStore()
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == nil)
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: slot, digest: digest, at: now))
        #expect(
            try await store.recordSummaryDelivery(
                userID: Fixture.userID, slot: slot, digest: "{}", at: Fixture.time(200)) == false)
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == slot)

        // Another user's same slot, and an earlier slot of this user, are their own deliveries
        #expect(try await store.recordSummaryDelivery(userID: Fixture.otherUserID, slot: slot, digest: digest, at: now))
        #expect(
            try await store.recordSummaryDelivery(
                userID: Fixture.userID, slot: Fixture.time(60), digest: digest, at: now))
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == slot)

        // The first delivery's record is the one kept
        let sqlite = try #require(store as? SQLiteStore)
        let kept = try sqlite.writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT delivered_at, digest FROM summary_deliveries WHERE user_id = ? AND slot_ms = ?",
                arguments: [Fixture.userID, slot.storedMilliseconds])
        }
        #expect(kept?["delivered_at"] == now.storedMilliseconds)
        #expect(kept?["digest"] == digest)
    }

    @Test(arguments: StoreEngine.all)
    func theCandidatesAreWhatIsHeldForTheSummaryByItsTime(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        let candidates = try await store.summaryCandidates([(Fixture.userID, slot)])
        #expect(Set(candidates.held.map(\.id)) == ["a", "b"] && candidates.held.count == 2)
        #expect(candidates.users == [0..<2])
        #expect(candidates.held.first { $0.id == "a" }?.deviceID == Fixture.deviceID)
        #expect(candidates.held.first { $0.id == "b" }?.deviceID == Fixture.otherDeviceID)
        #expect(candidates.held.allSatisfy { $0.userID == Fixture.userID && $0.relevanceScore == 0 })
        // Several users in one read, each by its own slot
        let both = try await store.summaryCandidates([(Fixture.otherUserID, slot), (Fixture.userID, Fixture.time(1))])
        #expect(both.held.map(\.id) == ["a"])
        // Each summary's candidates are its range, in the order of the summaries
        #expect(both.users.map { both.held[$0].map(\.id) } == [[], ["a"]])
        let twice = try await store.summaryCandidates([
            (Fixture.userID, Fixture.time(1)), (Fixture.otherUserID, slot), (Fixture.userID, slot),
        ])
        #expect(twice.users.map { Set(twice.held[$0].map(\.id)) } == [["a"], [], ["a", "b"]])
        #expect(twice.held[twice.users[2]].allSatisfy { $0.userID == Fixture.userID })
        #expect(candidates.horizon.seq == (try await store.latestCursor()))
        #expect(try await store.summaryCandidates([(Fixture.otherUserID, slot)]).held.isEmpty)
        // A notification with an attachment says so (the digest ranks media first).
        #expect(candidates.held.allSatisfy { !$0.hasMediaAttachment })
        var media = Fixture.decided("media", .heldForSummary, receivedAt: Fixture.time(8))
        media.attachments = [NotificationAttachment(id: "f1", identifier: "photo", type: "public.png", size: 10)]
        _ = try await store.insert([media])
        let withMedia = try await store.summaryCandidates([(Fixture.userID, slot)]).held
        #expect(withMedia.filter(\.hasMediaAttachment).map(\.id) == ["media"])
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "media")?.attachments == media.attachments)
        // A communication avatar is not media; with a photo beside it, the notification has media.
        let avatar = NotificationAttachment(id: "f2", identifier: "avatar", type: "public.png", size: 5, isAvatar: true)
        var message = Fixture.decided("message", .heldForSummary, receivedAt: Fixture.time(9))
        message.attachments = [avatar]
        var photoMessage = Fixture.decided("both", .heldForSummary, receivedAt: Fixture.time(10))
        photoMessage.attachments = [
            avatar, NotificationAttachment(id: "f3", identifier: "p", type: "public.jpeg", size: 3),
        ]
        _ = try await store.insert([message, photoMessage])
        let ranked = try await store.summaryCandidates([(Fixture.userID, slot)]).held
        #expect(Set(ranked.filter(\.hasMediaAttachment).map(\.id)) == ["media", "both"])
        #expect(ranked.contains { $0.id == "message" })
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "message")?.attachments == [avatar])
    }

    @Test func theCandidatesAreReadFromTheirCoveringIndex() async throws {
        let store = try await Fixture.makeStore()
        let plan = try await store.writer.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.candidatesSQL, arguments: [#"[["user-1", 3600000]]"#]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("SEARCH n USING INDEX notifications_summary_candidates") }, "plan: \(plan)")
    }

    @Test(arguments: StoreEngine.all)
    func aReleaseWritesOneEventPerDeviceAndReadsShowTheReleasedState(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        let cursor = try await store.latestCursor()
        let before = try #require(try await store.notification(deviceID: Fixture.deviceID, id: "a"))

        // When the summary releases what was held for it
        let events = try #require(try await store.releaseSummaries([try await summary(store)], at: now)[0])

        // Then each device got one summary event with a new seq, and nothing else changed seq
        #expect(
            events == [
                ReleasedSummary(deviceID: Fixture.deviceID, seq: cursor + 1),
                ReleasedSummary(deviceID: Fixture.otherDeviceID, seq: cursor + 2),
            ])
        #expect(try await store.latestCursor() == cursor + 2)
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: cursor, limit: 10, now: now).isEmpty)

        // And every read shows the released state: listed silently, released at the release, the summary in the decision
        let a = try #require(try await store.notification(deviceID: Fixture.deviceID, id: "a"))
        #expect(a.seq == before.seq)
        #expect(a.disposition == .listedSilently && a.releasedAt == now)
        let decisionA = try decision(a)
        #expect(decisionA["disposition"] as? String == "listedSilently")
        #expect(decisionA["notification_center"] as? Bool == true && decisionA["banner"] as? String == "none")
        #expect((decisionA["sound"] as? [String: Any])?["plays"] as? Bool == false)
        #expect((decisionA["reason_codes"] as? [String])?.contains("summary-delivered") == true)
        let summaryA = try #require((decisionA["context"] as? [String: Any])?["summary"] as? [String: Any])
        #expect(summaryA["slot_ms"] as? Int64 == slot.storedMilliseconds && summaryA["featured"] as? Bool == true)
        let b = try await store.notifications(deviceID: Fixture.otherDeviceID, after: 0, limit: 10, now: now).first {
            $0.id == "b"
        }
        #expect(b?.disposition == .listedSilently)
        #expect(
            ((try decision(b))["context"] as? [String: Any]).flatMap { $0["summary"] as? [String: Any] }?["featured"]
                as? Bool == false)
        #expect(
            try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now).first { $0.id == "a" }
                == a)

        // The rest is untouched: a Focus hold, an alerted one, one removed before, one that came after the time
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "focus")?.disposition == .heldForFocus)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "alerted")?.releasedAt == nil)
        #expect(
            try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now).first {
                $0.id == "gone"
            }?.disposition == .heldForSummary)
        #expect(
            try await store.heldNotifications(
                deviceIDs: [Fixture.deviceID, Fixture.otherDeviceID], dispositions: [.heldForSummary]
            ).map(\.id) == ["late"])
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == slot)

        // And the change feed has the event: the device's digest and its notifications as released
        let feed = try await store.summaryEvents(deviceID: Fixture.deviceID, after: cursor, through: nil, limit: 10)
        #expect(feed.map(\.seq) == [cursor + 1])
        #expect(feed.first?.apps == [SummaryAppGroup(bundleID: Fixture.appID, ids: ["a"])])
        #expect(feed.first?.featured == ["a"] && feed.first?.notifications["a"] == a)
        #expect(feed.first?.slot == slot && feed.first?.releasedAt == now)
        #expect(
            try await store.summaryEvents(deviceID: Fixture.deviceID, after: cursor + 1, through: nil, limit: 10)
                .isEmpty)
        #expect(
            try await store.summaryEvents(deviceID: Fixture.otherDeviceID, after: 0, through: cursor + 1, limit: 10)
                .isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func aReleasedNotificationStaysReleasedWhenMarkedAndIsHeldAgainAfterANewDecision(_ engine: StoreEngine) async throws
    {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        _ = try await store.releaseSummaries([try await summary(store)], at: now)

        // Read and dismissed: still released, with the mark
        let read = try await store.markRead(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(200))
        #expect(read?.disposition == .listedSilently && read?.readAt == Fixture.time(200) && read?.releasedAt == now)
        #expect(
            try await store.dismiss(deviceID: Fixture.otherDeviceID, id: "b", at: Fixture.time(200))?.disposition
                == .listedSilently)

        // A new decision holding it for the summary again: held, for the next summary
        let heldAgain = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "a", decision: Fixture.decision(.heldForSummary), releasedAt: nil,
            at: Fixture.time(300)
        )
        #expect(heldAgain?.disposition == .heldForSummary)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "a")?.disposition == .heldForSummary)
        #expect(try await store.summaryCandidates([(Fixture.userID, slot)]).held.map(\.id) == ["a"])
    }

    @Test(arguments: StoreEngine.all)
    func aNotificationCommittedAfterTheReadWaitsForTheNextSummary(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        let release = try await summary(store)

        // A notification held for the summary, arrived before its time, committed after its read
        _ = try await store.insert([Fixture.decided("racing", .heldForSummary, receivedAt: Fixture.time(3000))])
        _ = try await store.releaseSummaries([release], at: now)

        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "racing")?.disposition == .heldForSummary)
        let next = try await summary(store, slot: Fixture.time(7200))
        #expect(next.devices.flatMap { $0.apps.flatMap(\.ids) } == ["racing", "late"])
        _ = try await store.releaseSummaries([next], at: Fixture.time(7200))
        let racing = try await store.notification(deviceID: Fixture.deviceID, id: "racing")
        #expect(racing?.disposition == .listedSilently && racing?.releasedAt == Fixture.time(7200))
        // Each release keeps what it released
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "a")?.releasedAt == now)
    }

    @Test(arguments: StoreEngine.all)
    func aSecondReleaseOfTheSameSlotChangesNothing(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        let release = try await summary(store)
        #expect(try await store.releaseSummaries([release], at: now)[0]?.count == 2)
        let cursor = try await store.latestCursor()

        // When the same slot is released again (a retry, or a second summary service)
        let second = try await store.releaseSummaries([release], at: Fixture.time(200))

        // Then nothing is released again
        #expect(second == [nil])
        #expect(try await store.latestCursor() == cursor)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "a")?.releasedAt == now)
    }

    @Test func aDeliveredSlotStaysDeliveredAcrossRestarts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("herald.sqlite").path

        // Given a summary released, then Herald stopped
        let store = try SQLiteStore(path: path)
        try await Fixture.seed(store)
        try await Fixture.seedOtherUser(store)
        try await seedHeld(store)
        let release = try await summary(store)
        #expect(try await store.releaseSummaries([release], at: now)[0] != nil)
        let released = try await store.notification(deviceID: Fixture.deviceID, id: "a")
        let cursor = try await store.latestCursor()
        try await store.close()

        // When it starts again and catches up on the same summary time
        let reopened: any HeraldStore = try SQLiteStore(path: path)
        #expect(try await reopened.lastSummaryDelivery(userID: Fixture.userID) == slot)
        let again = try await reopened.releaseSummaries([release], at: Fixture.time(7200))

        // Then the slot is not delivered twice, and what it released is still released
        #expect(again == [nil])
        #expect(try await reopened.latestCursor() == cursor)
        #expect(try await reopened.notification(deviceID: Fixture.deviceID, id: "a") == released)
        #expect(released?.disposition == .listedSilently)
        #expect(
            try await reopened.recordSummaryDelivery(
                userID: Fixture.userID, slot: Fixture.time(7200), digest: digest, at: Fixture.time(7200)))
        try await reopened.close()
    }

    @Test(arguments: StoreEngine.all)
    func aFailedReleaseRecordsNoDelivery(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        let cursor = try await store.latestCursor()
        let release = try await summary(store)

        var theirs = release
        theirs.devices.append(DeviceSummary(deviceID: Fixture.strangerDeviceID, apps: [], featured: []))
        var notJSON = release
        notJSON.digest = "{not json"
        var nobody = release
        nobody.userID = "nobody"
        nobody.devices = []
        var errors: [StoreError?] = []
        for bad in [nobody, theirs, notJSON] {
            errors.append(
                await #expect(throws: StoreError.self) { try await store.releaseSummaries([release, bad], at: now) })
        }
        #expect(errors.map(\.?.kind) == [.notFound, .invalid, .invalid])

        // Then nothing was recorded or released (the good summary in the batch rolled back too)
        #expect(try await store.latestCursor() == cursor)
        #expect(try await store.lastSummaryDelivery(userID: Fixture.userID) == nil)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "a")?.disposition == .heldForSummary)
        #expect(try await store.releaseSummaries([release], at: now)[0]?.count == 2)
    }

    @Test(arguments: StoreEngine.all)
    func manySummariesAreReleasedInOneTransaction(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await seedHeld(store)
        _ = try await store.insert([Fixture.decided("theirs", .heldForSummary, device: Fixture.strangerDeviceID)])
        let cursor = try await store.latestCursor()
        let mine = try await summary(store)
        let candidates = try await store.summaryCandidates([(Fixture.otherUserID, slot)])
        let theirs = SummaryRelease(
            userID: Fixture.otherUserID, slot: slot, digest: digest,
            devices: [
                DeviceSummary(
                    deviceID: Fixture.strangerDeviceID,
                    apps: [SummaryAppGroup(bundleID: Fixture.appID, ids: ["theirs"])], featured: [])
            ],
            horizon: candidates.horizon
        )

        // The same slot again within the batch is already delivered
        let results = try await store.releaseSummaries([mine, theirs, mine], at: now)

        #expect(results.count == 3)
        #expect(results[0]?.map(\.seq) == [cursor + 1, cursor + 2])
        #expect(results[1] == [ReleasedSummary(deviceID: Fixture.strangerDeviceID, seq: cursor + 3)])
        #expect(results[2] == nil)
        #expect(
            try await store.notification(deviceID: Fixture.strangerDeviceID, id: "theirs")?.disposition
                == .listedSilently)
        #expect(try await store.releaseSummaries([], at: now).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func usersWithSummaryListsTheSummariesThatAreOn(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.usersWithSummary().isEmpty)
        try await store.createUser(
            User(userID: "user-3", name: "Edsger", createdAt: Fixture.time()),
            tokenDigest: String(repeating: "ef", count: 32))

        // Given one user with a summary and a time zone, one with a summary and no preferences, one with it off
        try await store.setSummarySchedule(Fixture.summary, userID: Fixture.userID)
        try await store.setPreferences(Fixture.preferences, userID: Fixture.userID)
        let evening = try SummarySchedule(times: [TimeOfDay(hour: 20)])
        try await store.setSummarySchedule(evening, userID: Fixture.otherUserID)
        try await store.setSummarySchedule(.off, userID: "user-3")
        try await store.setPreferences(Fixture.preferences, userID: "user-3")
        #expect(try await store.recordSummaryDelivery(userID: Fixture.userID, slot: slot, digest: digest, at: now))
        #expect(
            try await store.recordSummaryDelivery(
                userID: Fixture.userID, slot: Fixture.time(60), digest: digest, at: now))

        let users = try await store.usersWithSummary()
        #expect(
            users == [
                SummaryUserRecord(
                    userID: Fixture.userID, schedule: Fixture.summary, timeZone: TimeZone(identifier: "Europe/Paris")!,
                    lastDeliveredSlot: slot),
                SummaryUserRecord(
                    userID: Fixture.otherUserID, schedule: evening, timeZone: TimeZone(identifier: "UTC")!,
                    lastDeliveredSlot: nil),
            ])
    }
}
