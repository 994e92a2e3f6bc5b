import Foundation
import HeraldCore
import HeraldStore
import Testing

@Suite("Notification lists")
struct NotificationListTests {
    let now = Fixture.time(100)

    @Test(arguments: StoreEngine.all)
    func insertStoresABatchWithIncreasingSeqs(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let changes = try await store.insert([
            Fixture.notification("a"), Fixture.notification("b"),
            Fixture.notification("c", device: Fixture.otherDeviceID),
        ])
        #expect(changes.map(\.seq) == [1, 2, 3])
        #expect(changes.map(\.id) == ["a", "b", "c"])
        #expect(try await store.latestCursor() == 3)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "a") == changes[0])
        #expect(
            try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now)
                == Array(changes[0..<2]))
        #expect(try await store.insert([]).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func aCollapseIDReplacesTheLiveNotificationOfTheSameApp(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        // Given a live notification with collapse id "score", and one of another app and of another device
        try await store.insert([
            Fixture.notification("old", collapseID: "score", receivedAt: Fixture.time(1)),
            Fixture.notification("other-app", app: Fixture.otherAppID, collapseID: "score"),
            Fixture.notification("other-device", device: Fixture.otherDeviceID, collapseID: "score"),
        ])

        // When a new one with the same collapse id arrives
        let changes = try await store.insert([
            Fixture.notification("new", collapseID: "score", receivedAt: Fixture.time(5))
        ])

        // Then the old one becomes a tombstone removed at the new one's arrival, then the new one follows
        #expect(changes.map(\.id) == ["old", "new"])
        #expect(changes.map(\.seq) == [4, 5])
        #expect(changes[0].removedAt == Fixture.time(5))
        #expect(changes[0].receivedAt == Fixture.time(1))
        #expect(changes[1].removedAt == nil)
        #expect(
            try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now).map(\.id) == [
                "other-app", "new",
            ])
        #expect(
            try await store.notifications(deviceID: Fixture.otherDeviceID, after: 0, limit: 10, now: now).map(\.id) == [
                "other-device"
            ])
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "old") == nil)
        let feed = try await store.changes(deviceID: Fixture.deviceID, after: 3, limit: 10, now: now)
        #expect(feed == changes)
    }

    @Test(arguments: StoreEngine.all)
    func aCollapseIDReplacesWithinOneBatch(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let changes = try await store.insert([
            Fixture.notification("first", collapseID: "c", receivedAt: Fixture.time(1)),
            Fixture.notification("second", collapseID: "c", receivedAt: Fixture.time(2)),
        ])
        #expect(changes.map(\.id) == ["first", "first", "second"])
        #expect(changes.map(\.seq) == [1, 2, 3])
        #expect(changes.map(\.isRemoved) == [false, true, false])
        #expect(
            try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now) == Array(changes[1...]))
    }

    @Test(arguments: StoreEngine.all)
    func aBatchReportsEachTombstoneRightBeforeTheNotificationThatMadeIt(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.insert([
            Fixture.notification("old-x", collapseID: "x", receivedAt: Fixture.time(1)),
            Fixture.notification("old-y", collapseID: "y", receivedAt: Fixture.time(1)),
        ])
        let changes = try await store.insert([
            Fixture.notification("new-x", collapseID: "x", receivedAt: Fixture.time(2)),
            Fixture.notification("plain", receivedAt: Fixture.time(2)),
            Fixture.notification("new-y", collapseID: "y", receivedAt: Fixture.time(3)),
        ])
        #expect(changes.map(\.id) == ["old-x", "new-x", "plain", "old-y", "new-y"])
        #expect(changes.map(\.seq) == [3, 4, 5, 6, 7])
        #expect(changes.map(\.isRemoved) == [true, false, false, true, false])
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: 2, limit: 10, now: now) == changes)
    }

    @Test(arguments: StoreEngine.all)
    func aBatchLongerThanOneStatementKeepsTheOrderOfSingleInserts(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        // 70 rows: more than one multi-row statement; an id twice; a collapse id that replaces within the batch
        var batch = (0..<70).map { Fixture.notification("n\($0)", receivedAt: Fixture.time(1)) }
        batch[5] = Fixture.notification("n5", collapseID: "c", receivedAt: Fixture.time(1))
        batch[20] = Fixture.notification("n10", receivedAt: Fixture.time(1))
        batch[40] = Fixture.notification("n40", collapseID: "c", receivedAt: Fixture.time(2))
        let changes = try await store.insert(batch)

        #expect(changes.map(\.seq) == Array(1...71))
        #expect(changes.filter(\.isRemoved).map(\.id) == ["n5"])
        #expect(changes[40].id == "n5" && changes[40].isRemoved && changes[41].id == "n40")
        let feed = try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 500, now: now)
        #expect(feed.count == 69)
        #expect(feed.map(\.seq) == feed.map(\.seq).sorted())
        #expect(feed.first { $0.id == "n10" }?.seq == 21)
        #expect(feed.first { $0.id == "n5" }?.seq == 41)
        #expect(feed.allSatisfy { row in changes.last { $0.id == row.id } == row })
    }

    @Test(arguments: StoreEngine.all)
    func textsOfEveryShapeAreStoredByteForByte(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        // Texts the group commit copies into one buffer per statement: multi-byte UTF-8 (with an
        // escaped quote and a NUL escape), empty, small enough to sit inline in a `String`, and a
        // 4 KB payload — 40 rows, more than one statement, each read back exactly as written.
        let long = String(repeating: "x", count: 4_000)
        let payloads = [
            #"{"aps":{"alert":"Grüße 👋🏽 \"quoted\" \u0000","thread-id":"th"}}"#,
            #"{"aps":{"alert":{"title":"","body":"é"}},"k":""}"#,
            #"{"aps":{}}"#,
            #"{"aps":{"alert":"\#(long)"}}"#,
        ]
        let batch = (0..<40).map { index in
            Fixture.notification(
                "ñ-\(index)-" + String(repeating: "é", count: index % 7), collapseID: index == 17 ? "ç" : nil,
                payload: payloads[index % payloads.count])
        }
        let changes = try await store.insert(batch)
        #expect(changes.count == 40)
        for notification in batch {
            let stored = try #require(try await store.notification(deviceID: Fixture.deviceID, id: notification.id))
            #expect(stored.payload == notification.payload)
            #expect(stored.collapseID == notification.collapseID)
            #expect(stored.id == notification.id && stored.bundleID == notification.bundleID)
        }
    }

    @Test(arguments: StoreEngine.all)
    func aNotificationWithAKnownIDReplacesTheEntry(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.insert([Fixture.notification("n", collapseID: "c", payload: #"{"aps":{"alert":"v1"}}"#)])
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(1))
        _ = try await store.dismiss(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(2))

        // When the provider retries with the same id (and collapse id), it neither duplicates nor tombstones itself
        let changes = try await store.insert([
            Fixture.notification("n", collapseID: "c", receivedAt: Fixture.time(3), payload: #"{"aps":{"alert":"v2"}}"#)
        ])
        #expect(changes.count == 1)
        #expect(changes[0].seq == 4)
        #expect(changes[0].payload == #"{"aps":{"alert":"v2"}}"#)
        #expect(changes[0].readAt == nil && changes[0].dismissedAt == nil && changes[0].removedAt == nil)
        #expect(try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now) == changes)

        // A tombstone with that id comes back to life as well
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(4))
        let revived = try await store.insert([Fixture.notification("n", receivedAt: Fixture.time(6))])
        #expect(revived.map(\.seq) == [6])
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "n") == revived[0])
    }

    @Test(arguments: StoreEngine.all)
    func readDismissAndRemoveEachTakeANewSeqOnce(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.insert([Fixture.notification("n"), Fixture.notification("m")])

        let read = try #require(try await store.markRead(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(1)))
        #expect(read.seq == 3 && read.readAt == Fixture.time(1))
        #expect(try await store.markRead(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(9)) == read)

        let dismissed = try #require(try await store.dismiss(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(2)))
        #expect(dismissed.seq == 4 && dismissed.dismissedAt == Fixture.time(2) && dismissed.readAt == Fixture.time(1))
        #expect(try await store.dismiss(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(9)) == dismissed)

        let removed = try #require(try await store.remove(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(3)))
        #expect(removed.seq == 5 && removed.removedAt == Fixture.time(3))
        #expect(try await store.latestCursor() == 5)

        #expect(try await store.markRead(deviceID: Fixture.deviceID, id: "nope", at: Fixture.time()) == nil)
        #expect(try await store.markRead(deviceID: Fixture.otherDeviceID, id: "m", at: Fixture.time()) == nil)
    }

    @Test(arguments: StoreEngine.all)
    func aTombstoneKeepsItsRemovalTime(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.insert([Fixture.notification("n")])
        let removed = try await store.remove(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(10))

        #expect(try await store.remove(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(20)) == nil)
        #expect(try await store.markRead(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(20)) == nil)
        #expect(try await store.dismiss(deviceID: Fixture.deviceID, id: "n", at: Fixture.time(20)) == nil)
        let feed = try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now)
        #expect(feed == [removed].compactMap { $0 })
        #expect(feed.first?.removedAt == Fixture.time(10))
        #expect(try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func theChangeFeedResumesWithEachChangedRowOnceInItsLatestState(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.insert([Fixture.notification("a"), Fixture.notification("b"), Fixture.notification("c")])
        let cursor = try await store.latestCursor()

        // When rows change after the cursor, some more than once
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(1))
        try await store.insert([Fixture.notification("d")])
        _ = try await store.dismiss(deviceID: Fixture.deviceID, id: "b", at: Fixture.time(2))
        _ = try await store.dismiss(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(3))
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "d", at: Fixture.time(4))

        // Then resuming from the cursor gives each changed row once, latest state, in seq order
        let feed = try await store.changes(deviceID: Fixture.deviceID, after: cursor, limit: 100, now: now)
        #expect(feed.map(\.id) == ["b", "a", "d"])
        #expect(feed.map(\.seq) == [6, 7, 8])
        #expect(feed[1].readAt == Fixture.time(1) && feed[1].dismissedAt == Fixture.time(3))
        #expect(feed[2].isRemoved)
        let all = try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 100, now: now)
        #expect(all.map(\.id) == ["c", "b", "a", "d"])
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: 8, limit: 100, now: now).isEmpty)
        #expect(
            try await store.notifications(deviceID: Fixture.deviceID, after: cursor, limit: 100, now: now).map(\.id)
                == ["b", "a"])
    }

    @Test(arguments: StoreEngine.all)
    func expiredUndeliveredNotificationsAreLeftOut(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let nowSeconds = Int64(now.timeIntervalSince1970)  // the whole second before `now`
        try await store.insert([
            Fixture.notification("no-expiration"),
            Fixture.notification("future", expiration: nowSeconds + 60),
            Fixture.notification("this-second", expiration: nowSeconds + 1),
            Fixture.notification("expired", expiration: nowSeconds),
            Fixture.notification("expired-delivered", expiration: nowSeconds - 60, deliveredAt: Fixture.time(1)),
            Fixture.notification("immediate", expiration: 0),
            Fixture.notification("immediate-delivered", expiration: 0, deliveredAt: Fixture.time(1)),
        ])
        let expected = ["no-expiration", "future", "this-second", "expired-delivered", "immediate-delivered"]
        #expect(
            try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 100, now: now).map(\.id)
                == expected)
        #expect(
            try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 100, now: now).map(\.id) == expected)
        // Earlier, "expired" was still deliverable; the store agrees with `isDeliverable(now:)`.
        let earlier = Date(timeIntervalSince1970: Double(nowSeconds))
        let listed = try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 100, now: earlier)
        #expect(listed.map(\.id).contains("expired"))
        #expect(listed.allSatisfy { $0.isDeliverable(now: earlier) })
    }

    @Test(arguments: StoreEngine.all)
    func theLimitAppliesAfterFiltering(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let past = Int64(now.timeIntervalSince1970) - 60
        try await store.insert([
            Fixture.notification("1"), Fixture.notification("2", expiration: past),
            Fixture.notification("3"), Fixture.notification("4", expiration: past),
            Fixture.notification("5"), Fixture.notification("6", device: Fixture.otherDeviceID),
            Fixture.notification("7"),
        ])
        let page = try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 2, now: now)
        #expect(page.map(\.id) == ["1", "3"])

        // Paging from each page's last seq walks the whole list once
        var cursor: Int64 = 0
        var walked: [String] = []
        while true {
            let page = try await store.changes(deviceID: Fixture.deviceID, after: cursor, limit: 1, now: now)
            guard let last = page.last else { break }
            walked += page.map(\.id)
            cursor = last.seq
        }
        #expect(walked == ["1", "3", "5", "7"])
        #expect(try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 0, now: now).isEmpty)
        let error = await #expect(throws: StoreError.self) {
            try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: -1, now: now)
        }
        #expect(error?.kind == .invalid)
    }

    @Test(arguments: StoreEngine.all)
    func markDeliveredKeepsDeliveredNotificationsPastTheirExpiration(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let expiration = Int64(Fixture.time(30).timeIntervalSince1970)
        try await store.insert([
            Fixture.notification("seen", expiration: expiration),
            Fixture.notification("gone", device: Fixture.otherDeviceID),
            Fixture.notification("immediate", expiration: 0),
        ])
        let cursor = try await store.latestCursor()
        try await store.insert([Fixture.notification("later", expiration: expiration)])

        // When a session receives the device's list up to the cursor
        try await store.markDelivered(deviceID: Fixture.deviceID, upTo: cursor, at: Fixture.time(10))

        // Then what it got stays listed after expiring, what came after the cursor does not; no seq moves
        let afterExpiry = try await store.notifications(
            deviceID: Fixture.deviceID, after: 0, limit: 10, now: Fixture.time(60))
        #expect(afterExpiry.map(\.id) == ["seen"])
        #expect(afterExpiry.first?.deliveredAt == Fixture.time(10))
        #expect(afterExpiry.first?.seq == 1)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "immediate")?.deliveredAt == nil)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "later")?.deliveredAt == nil)
        #expect(try await store.latestCursor() == 4)
    }

    @Test(arguments: StoreEngine.all)
    func aBatchWithAnUnknownDeviceStoresNothing(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let error = await #expect(throws: StoreError.self) {
            try await store.insert([
                Fixture.notification("fine"), Fixture.notification("orphan", device: "no-such-device"),
            ])
        }
        #expect(error?.kind == .notFound)
        #expect(error?.message.contains("hello") == false)
        #expect(try await store.latestCursor() == 0)
        #expect(try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 10, now: now).isEmpty)
    }
}
