import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The store contract of apps' local notifications: credentials, pending requests (replace, the
/// 64-request limit, due order), delivery exactly once per revision, and the app's view of its list.
@Suite struct LocalNotificationStoreTests {
    static func request(
        _ identifier: String, app: String = Fixture.appID, device: String = Fixture.deviceID,
        fireAt seconds: Int64? = 60
    ) -> LocalRequestRecord {
        LocalRequestRecord(
            deviceID: device, bundleID: app, identifier: identifier, content: #"{"body":"\#(identifier)"}"#,
            payload: #"{"aps":{"alert":{"body":"\#(identifier)"}}}"#,
            trigger: #"{"repeats":false,"time_interval":60,"type":"time_interval"}"#, addedAt: Fixture.time(),
            nextFireAt: seconds.map { Fixture.time($0) })
    }

    static func delivery(
        _ record: LocalRequestRecord, firedRevision: Int64?, next: Date? = nil, at seconds: Int64 = 60
    ) -> LocalDelivery {
        let id = LocalNotificationID.make(bundleID: record.bundleID, identifier: record.identifier)
        return LocalDelivery(
            identifier: record.identifier,
            notification: Fixture.notification(
                id, device: record.deviceID, app: record.bundleID, receivedAt: Fixture.time(seconds),
                payload: record.payload),
            firedRevision: firedRevision, nextFireAt: next, trigger: record.trigger)
    }

    @Test(arguments: StoreEngine.all)
    func credentialsNameTheirDeviceAppAndUser(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let record = AppCredentialRecord(
            deviceID: Fixture.deviceID, bundleID: Fixture.appID, userID: Fixture.userID, createdAt: Fixture.time())
        try await store.createAppCredential(record, tokenDigest: "digest-1")
        #expect(try await store.appCredential(tokenDigest: "digest-1") == record)
        #expect(try await store.appCredential(tokenDigest: "digest-2") == nil)
        await #expect(throws: StoreError.self) { try await store.createAppCredential(record, tokenDigest: "digest-1") }
        var unknown = record
        unknown.bundleID = "com.example.unknown"
        let error = await #expect(throws: StoreError.self) {
            try await store.createAppCredential(unknown, tokenDigest: "digest-3")
        }
        #expect(error?.kind == .notFound)
    }

    @Test(arguments: StoreEngine.all)
    func theSameIdentifierReplacesAndBecomesTheNewest(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let first = try await store.addLocalRequest(Self.request("a"), limit: 64).stored
        _ = try await store.addLocalRequest(Self.request("b"), limit: 64)
        var replacement = Self.request("a", fireAt: 120)
        replacement.content = #"{"body":"again"}"#
        let replaced = try await store.addLocalRequest(replacement, limit: 64).stored
        #expect(replaced.revision > first.revision)
        let pending = try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
        #expect(pending.map(\.identifier) == ["b", "a"])
        #expect(pending.last?.content == #"{"body":"again"}"#)
        #expect(pending.last?.nextFireAt == Fixture.time(120))
        // Another app and another device have their own requests.
        #expect(try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID).isEmpty)
        #expect(try await store.localRequests(deviceID: Fixture.otherDeviceID, bundleID: Fixture.appID).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func theLimitKeepsTheMostRecentlyAdded(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        for index in 0..<5 {
            let (_, dropped) = try await store.addLocalRequest(Self.request("r\(index)"), limit: 3)
            #expect(dropped == (index >= 3 ? ["r\(index - 3)"] : []))
        }
        _ = try await store.addLocalRequest(Self.request("other", app: Fixture.otherAppID), limit: 3)
        #expect(
            try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID).map(\.identifier) == [
                "r2", "r3", "r4",
            ])
    }

    @Test(arguments: StoreEngine.all)
    func removeByIdentifiersOrAll(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        for name in ["a", "b", "c"] { _ = try await store.addLocalRequest(Self.request(name), limit: 64) }
        _ = try await store.addLocalRequest(Self.request("a", app: Fixture.otherAppID), limit: 64)
        #expect(
            try await store.removeLocalRequests(
                deviceID: Fixture.deviceID, bundleID: Fixture.appID, identifiers: ["c", "a", "zzz"]) == ["a", "c"])
        #expect(
            try await store.removeLocalRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID, identifiers: nil)
                == ["b"])
        #expect(try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID).count == 1)
    }

    @Test(arguments: StoreEngine.all)
    func dueRequestsComeEarliestFirst(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        _ = try await store.addLocalRequest(Self.request("late", fireAt: 300), limit: 64)
        _ = try await store.addLocalRequest(Self.request("never", fireAt: nil), limit: 64)
        _ = try await store.addLocalRequest(Self.request("early", fireAt: 60), limit: 64)
        _ = try await store.addLocalRequest(
            Self.request("other", device: Fixture.otherDeviceID, fireAt: 120), limit: 64)
        #expect(try await store.nextLocalRequestFireDate() == Fixture.time(60))
        #expect(try await store.dueLocalRequests(through: Fixture.time(59), limit: 10).isEmpty)
        #expect(
            try await store.dueLocalRequests(through: Fixture.time(120), limit: 10).map(\.identifier) == [
                "early", "other",
            ])
        #expect(try await store.dueLocalRequests(through: Fixture.time(1000), limit: 2).count == 2)
    }

    @Test(arguments: StoreEngine.all)
    func aFiringCommitsTheNotificationAndAdvancesOrRemovesItsRequestOnce(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let once = try await store.addLocalRequest(Self.request("once"), limit: 64).stored
        let daily = try await store.addLocalRequest(Self.request("daily"), limit: 64).stored
        let changes = try await store.deliverLocal([
            Self.delivery(once, firedRevision: once.revision),
            Self.delivery(daily, firedRevision: daily.revision, next: Fixture.time(86_460)),
        ])
        #expect(changes.count == 2)
        let pending = try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
        #expect(pending.map(\.identifier) == ["daily"])
        #expect(pending.first?.nextFireAt == Fixture.time(86_460))
        // The same firing again (a scheduler that read it before the commit) changes nothing.
        #expect(try await store.deliverLocal([Self.delivery(once, firedRevision: once.revision)]).isEmpty)
        // A request replaced since it was read does not fire with the old revision.
        let replaced = try await store.addLocalRequest(Self.request("daily", fireAt: 500), limit: 64).stored
        #expect(try await store.deliverLocal([Self.delivery(daily, firedRevision: daily.revision)]).isEmpty)
        #expect(
            try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID).first?.revision
                == replaced.revision)
        let listed = try await store.appNotifications(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
        #expect(listed.map(\.identifier).sorted() == ["daily", "once"])
        #expect(listed.allSatisfy { $0.isLocal })
        #expect(listed.first?.trigger == once.trigger)
    }

    @Test(arguments: StoreEngine.all)
    func aRepeatingRequestFiresOncePerFireDate(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let minutely = try await store.addLocalRequest(Self.request("minutely"), limit: 64).stored
        var firing = Self.delivery(minutely, firedRevision: minutely.revision, next: Fixture.time(120))
        firing.firedFireDate = minutely.nextFireAt
        #expect(try await store.deliverLocal([firing]).count == 1)
        // The same firing again (another scheduler read it at that fire date): the request has moved
        // on to its next date, so nothing fires.
        #expect(try await store.deliverLocal([firing]).isEmpty)
        // At its next date it fires again.
        var next = Self.delivery(minutely, firedRevision: minutely.revision, next: Fixture.time(180), at: 120)
        next.firedFireDate = Fixture.time(120)
        #expect(try await store.deliverLocal([next]).count == 1)
        #expect(
            try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID).first?.nextFireAt
                == Fixture.time(180))
    }

    @Test(arguments: StoreEngine.all)
    func deliveringTheSameIdentifierAgainReplacesTheDeliveredOne(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let record = Self.request("news")
        let first = try await store.deliverLocal([Self.delivery(record, firedRevision: nil, at: 10)])
        let second = try await store.deliverLocal([Self.delivery(record, firedRevision: nil, at: 20)])
        #expect(first.last?.id == second.last?.id)
        #expect(second.last!.seq > first.last!.seq)
        let listed = try await store.appNotifications(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
        #expect(listed.count == 1)
        #expect(listed.first?.notification.receivedAt == Fixture.time(20))
        // Two apps may use the same identifier: two notifications.
        _ = try await store.deliverLocal([
            Self.delivery(Self.request("news", app: Fixture.otherAppID), firedRevision: nil)
        ])
        #expect(try await store.appNotifications(deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID).count == 1)
        #expect(try await store.appNotifications(deviceID: Fixture.deviceID, bundleID: Fixture.appID).count == 1)
        // A delivery without a trigger replaces the pending request of its identifier.
        _ = try await store.addLocalRequest(Self.request("pending"), limit: 64)
        _ = try await store.deliverLocal([Self.delivery(Self.request("pending"), firedRevision: nil)])
        #expect(try await store.localRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func theAppSeesItsPushesAndLocalNotificationsAndRemovesThemByIdentifier(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        _ = try await store.insert([
            Fixture.notification("11111111-1111-4111-8111-111111111111", receivedAt: Fixture.time(1)),
            Fixture.notification("22222222-2222-4222-8222-222222222222", app: Fixture.otherAppID),
        ])
        _ = try await store.deliverLocal([Self.delivery(Self.request("local"), firedRevision: nil, at: 2)])
        let listed = try await store.appNotifications(deviceID: Fixture.deviceID, bundleID: Fixture.appID)
        #expect(listed.map(\.identifier) == ["11111111-1111-4111-8111-111111111111", "local"])
        #expect(listed.map(\.isLocal) == [false, true])
        // Dismissed ones are no longer in Notification Center.
        _ = try await store.dismiss(
            deviceID: Fixture.deviceID, id: "11111111-1111-4111-8111-111111111111", at: Fixture.time(3))
        #expect(
            try await store.appNotifications(deviceID: Fixture.deviceID, bundleID: Fixture.appID).map(\.identifier) == [
                "local"
            ])
        let removed = try await store.removeAppNotifications(
            deviceID: Fixture.deviceID, bundleID: Fixture.appID, identifiers: ["local", "missing"], at: Fixture.time(4))
        #expect(removed.map(\.identifier) == ["local"])
        #expect(removed.allSatisfy { $0.notification.isRemoved })
        // All: the app's (the dismissed push too), not the other app's.
        let all = try await store.removeAppNotifications(
            deviceID: Fixture.deviceID, bundleID: Fixture.appID, identifiers: nil, at: Fixture.time(5))
        #expect(all.map(\.identifier) == ["11111111-1111-4111-8111-111111111111"])
        #expect(
            try await store.notification(deviceID: Fixture.deviceID, id: "22222222-2222-4222-8222-222222222222") != nil)
    }

    @Test(arguments: StoreEngine.all)
    func theAppSetsItsBadge(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.setAppBadge(deviceID: Fixture.deviceID, bundleID: Fixture.appID, badge: 7)
        #expect(try await store.appBadges(deviceID: Fixture.deviceID).map(\.badge) == [7])
        try await store.setAppBadge(deviceID: Fixture.deviceID, bundleID: Fixture.appID, badge: 0)
        #expect(try await store.appBadges(deviceID: Fixture.deviceID).map(\.badge) == [0])
        await #expect(throws: StoreError.self) {
            try await store.setAppBadge(deviceID: Fixture.deviceID, bundleID: Fixture.appID, badge: -1)
        }
    }

    @Test(arguments: StoreEngine.all)
    func replacingCategoriesDropsTheOthers(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.upsertCategory(bundleID: Fixture.appID, identifier: "OLD", json: #"{"identifier":"OLD"}"#)
        try await store.replaceCategories(
            bundleID: Fixture.appID, [("A", #"{"identifier":"A"}"#), ("B", #"{"identifier":"B"}"#)])
        #expect(try await store.categories(bundleID: Fixture.appID).map(\.identifier) == ["A", "B"])
        await #expect(throws: StoreError.self) {
            try await store.replaceCategories(bundleID: Fixture.appID, [("C", "not json")])
        }
        #expect(try await store.categories(bundleID: Fixture.appID).map(\.identifier) == ["A", "B"])
    }

    @Test func localIDsAreUUIDsOfTheirAppAndIdentifier() {
        let id = LocalNotificationID.make(bundleID: "com.example.app", identifier: "reminder")
        #expect(id == LocalNotificationID.make(bundleID: "com.example.app", identifier: "reminder"))
        #expect(id != LocalNotificationID.make(bundleID: "com.example.other", identifier: "reminder"))
        #expect(id != LocalNotificationID.make(bundleID: "com.example.app", identifier: "reminder2"))
        #expect(UUID(uuidString: id) != nil)
        #expect(id == id.lowercased())
        #expect(Array(id)[14] == "8")
    }
}
