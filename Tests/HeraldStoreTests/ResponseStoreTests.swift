import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The store contract of the person's responses and their deliveries to apps' webhooks: a response
/// of an app with a webhook gets a delivery in its own transaction; deliveries come due earliest
/// first, are retried until delivered, follow the webhook's current url, and go with it.
@Suite struct ResponseStoreTests {
    static func response(_ id: String, app: String = Fixture.appID, at seconds: Int64 = 10)
        -> NotificationResponseRecord
    {
        NotificationResponseRecord(
            id: id, deviceID: Fixture.deviceID, bundleID: app, notificationID: "n-\(id)",
            actionIdentifier: "com.apple.UNNotificationDefaultActionIdentifier", userText: nil,
            notificationJSON: #"{"identifier":"n-\#(id)"}"#, respondedAt: Fixture.time(seconds))
    }

    @Test(arguments: StoreEngine.all)
    func responsesAreClaimedOnceOldestFirst(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        for id in ["r1", "r2", "r3"] { try await store.recordResponse(Self.response(id), webhookBody: "{}") }
        let first = try await store.claimResponses(
            deviceID: Fixture.deviceID, bundleID: Fixture.appID, limit: 2, at: Fixture.time(20))
        #expect(first.map(\.id) == ["r1", "r2"])
        #expect(first.allSatisfy { $0.deliveredAt == Fixture.time(20) })
        let rest = try await store.claimResponses(
            deviceID: Fixture.deviceID, bundleID: Fixture.appID, limit: 2, at: Fixture.time(21))
        #expect(rest.map(\.id) == ["r3"])
        #expect(
            try await store.claimResponses(
                deviceID: Fixture.deviceID, bundleID: Fixture.appID, limit: 2, at: Fixture.time(22)
            ).isEmpty)
        // Another app's responses are not this app's.
        #expect(
            try await store.claimResponses(
                deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID, limit: 9, at: Fixture.time(22)
            ).isEmpty)
        await #expect(throws: StoreError.self) {
            try await store.recordResponse(Self.response("r4", app: "com.example.none"), webhookBody: "{}")
        }
    }

    @Test(arguments: StoreEngine.all)
    func aWebhookGetsEveryResponseUntilDelivered(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        // Before the app has a webhook: no delivery.
        try await store.recordResponse(Self.response("before"), webhookBody: #"{"n":0}"#)
        #expect(try await store.nextWebhookAttempt() == nil)
        #expect(try await store.appWebhook(bundleID: Fixture.appID) == nil)
        await #expect(throws: StoreError.self) {
            try await store.setAppWebhook(
                AppWebhookRecord(bundleID: "com.example.none", url: "http://x", secret: "s", createdAt: Fixture.time()))
        }

        try await store.setAppWebhook(
            AppWebhookRecord(
                bundleID: Fixture.appID, url: "http://old.example/hook", secret: "whsec_old", createdAt: Fixture.time())
        )
        try await store.recordResponse(Self.response("a", at: 30), webhookBody: #"{"n":1}"#)
        try await store.recordResponse(Self.response("b", at: 20), webhookBody: #"{"n":2}"#)
        try await store.recordResponse(Self.response("other", app: Fixture.otherAppID), webhookBody: "{}")
        #expect(try await store.nextWebhookAttempt() == Fixture.time(20))
        #expect(
            try await store.claimDueWebhookDeliveries(through: Fixture.time(19), leaseEnd: Fixture.time(1000), limit: 9)
                .isEmpty)

        // A new url and secret: the pending deliveries go there.
        try await store.setAppWebhook(
            AppWebhookRecord(
                bundleID: Fixture.appID, url: "https://new.example/hook", secret: "whsec_new",
                createdAt: Fixture.time(1)))
        let due = try await store.claimDueWebhookDeliveries(
            through: Fixture.time(30), leaseEnd: Fixture.time(1000), limit: 9)
        #expect(due.map(\.id) == ["b", "a"])
        #expect(due.map(\.body) == [#"{"n":2}"#, #"{"n":1}"#])
        #expect(due.allSatisfy { $0.url == "https://new.example/hook" && $0.secret == "whsec_new" })
        #expect(due.allSatisfy { $0.attempts == 0 })

        try await store.webhookFailed(id: "b", error: "HTTP 500", at: Fixture.time(31), nextAttemptAt: Fixture.time(40))
        try await store.webhookDelivered(id: "a", at: Fixture.time(31))
        #expect(
            try await store.claimDueWebhookDeliveries(through: Fixture.time(39), leaseEnd: Fixture.time(1000), limit: 9)
                .isEmpty)
        let retried = try await store.claimDueWebhookDeliveries(
            through: Fixture.time(40), leaseEnd: Fixture.time(1000), limit: 9)
        #expect(retried.map(\.id) == ["b"])
        #expect(retried.first?.attempts == 1)
        let (_, status) = try #require(try await store.appWebhook(bundleID: Fixture.appID))
        #expect(
            status == WebhookStatus(pending: 1, delivered: 1, lastError: "HTTP 500", lastFailedAt: Fixture.time(31)))

        // Delivered once: a late second report changes nothing.
        try await store.webhookDelivered(id: "b", at: Fixture.time(41))
        try await store.webhookFailed(id: "b", error: "late", at: Fixture.time(42), nextAttemptAt: Fixture.time(50))
        #expect(try await store.nextWebhookAttempt() == nil)
        #expect(try await store.appWebhook(bundleID: Fixture.appID)?.status.delivered == 2)

        // Removed: its pending deliveries go with it; a second removal finds nothing.
        try await store.recordResponse(Self.response("c", at: 60), webhookBody: "{}")
        #expect(try await store.nextWebhookAttempt() == Fixture.time(60))
        #expect(try await store.removeAppWebhook(bundleID: Fixture.appID))
        #expect(try await store.nextWebhookAttempt() == nil)
        #expect(try await store.removeAppWebhook(bundleID: Fixture.appID) == false)
        #expect(try await store.appWebhook(bundleID: Fixture.appID) == nil)
    }

    @Test(arguments: StoreEngine.all)
    func aClaimedDeliveryIsNotDueAgainUntilItsLeaseEnds(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.setAppWebhook(
            AppWebhookRecord(
                bundleID: Fixture.appID, url: "http://x/hook", secret: "whsec_s", createdAt: Fixture.time()))
        try await store.recordResponse(Self.response("a", at: 10), webhookBody: "{}")
        try await store.recordResponse(Self.response("b", at: 20), webhookBody: "{}")
        let claimed = try await store.claimDueWebhookDeliveries(
            through: Fixture.time(30), leaseEnd: Fixture.time(90), limit: 1)
        #expect(claimed.map(\.id) == ["a"])
        #expect(claimed.first?.nextAttemptAt == Fixture.time(10))  // when it was due
        // Claimed: not due again before the lease ends, whoever asks; the other one still is.
        let rest = try await store.claimDueWebhookDeliveries(
            through: Fixture.time(89), leaseEnd: Fixture.time(95), limit: 9)
        #expect(rest.map(\.id) == ["b"])
        #expect(try await store.nextWebhookAttempt() == Fixture.time(90))
        // Its attempt recorded nothing (the node died): due again at the lease's end, attempts unchanged.
        let again = try await store.claimDueWebhookDeliveries(
            through: Fixture.time(90), leaseEnd: Fixture.time(150), limit: 9)
        #expect(again.map(\.id) == ["a"])
        #expect(again.first?.attempts == 0)
        // A node that stops gives its claim up: due at once.
        try await store.releaseWebhookClaims(ids: ["a"], at: Fixture.time(91))
        #expect(try await store.nextWebhookAttempt() == Fixture.time(91))
        // Delivered: never claimed again, nor released.
        try await store.webhookDelivered(id: "a", at: Fixture.time(91))
        try await store.releaseWebhookClaims(ids: ["a"], at: Fixture.time(92))
        let later = try await store.claimDueWebhookDeliveries(
            through: Fixture.time(1000), leaseEnd: Fixture.time(2000), limit: 9)
        #expect(later.map(\.id) == ["b"])
    }
}
