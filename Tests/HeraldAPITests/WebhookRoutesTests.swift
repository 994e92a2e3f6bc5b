import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// The admin routes of apps' webhooks: what they accept and refuse, and that a response of an app
/// with a webhook is queued for it. Delivery itself is in HeraldServerTests (`WebhookTests`).
@Suite("Webhook routes")
struct WebhookRoutesTests {
    static let admin = bearer(TestHarness.adminToken)
    static let path = "/v1/admin/apps/\(TestHarness.bundleID)/webhook"

    @Test("set, show, replace and remove; refusals with their codes")
    func routes() async throws {
        let harness = try TestHarness()
        let (userToken, _) = try await harness.makeDevice()
        let woken = Counter()
        var dependencies = harness.dependencies
        dependencies.webhooksChanged = { woken.add() }
        try await makeAPIApplication(dependencies, host: "127.0.0.1", port: 0).test(.router) { client in
            let none = try await client.execute(uri: Self.path, method: .get, headers: Self.admin)
            #expect(none.status == .notFound)
            #expect(none.json["error"]?["code"] == .string("webhook_not_found"))

            for (body, code) in [
                (#"{"url":"ftp://example.com/x"}"#, "invalid_field"), (#"{"url":"/relative"}"#, "invalid_field"),
                (#"{"url":"http://"}"#, "invalid_field"), (#"{"url":"http://a b/"}"#, "invalid_field"),
                (#"{"url":"http://example.com/\#(String(repeating: "a", count: 2100))"}"#, "invalid_field"),
                (#"{}"#, "missing_field"), (#"{"url":"http://example.com","x":1}"#, "invalid_field"),
            ] {
                let refused = try await client.execute(
                    uri: Self.path, method: .put, headers: Self.admin, body: jsonBody(body))
                #expect(refused.status == .badRequest, "\(body.prefix(60))")
                #expect(refused.json["error"]?["code"] == .string(code), "\(body.prefix(60))")
            }
            let unknownApp = try await client.execute(
                uri: "/v1/admin/apps/com.example.none/webhook", method: .put, headers: Self.admin,
                body: jsonBody(#"{"url":"https://example.com/hook"}"#))
            #expect(unknownApp.status == .notFound)
            #expect(unknownApp.json["error"]?["code"] == .string("app_not_found"))
            for headers in [HTTPFields(), bearer(userToken)] {
                let refused = try await client.execute(
                    uri: Self.path, method: .put, headers: headers, body: jsonBody(#"{"url":"https://example.com"}"#))
                #expect(refused.status == .unauthorized)
            }
            #expect(woken.value == 0)

            let set = try await client.execute(
                uri: Self.path, method: .put, headers: Self.admin,
                body: jsonBody(#"{"url":"https://example.com/hook"}"#))
            #expect(set.status == .ok)
            guard case .string(let secret)? = set.json["secret"] else {
                Issue.record("no secret")
                return
            }
            #expect(secret.hasPrefix("whsec_"))
            #expect(Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
            #expect(woken.value == 1)
            // A new PUT rotates the secret.
            let again = try await client.execute(
                uri: Self.path, method: .put, headers: Self.admin, body: jsonBody(#"{"url":"http://10.0.0.1:8080/h"}"#))
            #expect(again.json["secret"] != set.json["secret"])
            let shown = try await client.execute(uri: Self.path, method: .get, headers: Self.admin)
            #expect(shown.json["url"] == .string("http://10.0.0.1:8080/h"))
            #expect(shown.json["pending"] == .number(0))
            #expect(shown.json["secret"] == nil)

            let removed = try await client.execute(uri: Self.path, method: .delete, headers: Self.admin)
            #expect(removed.status == .noContent)
            let gone = try await client.execute(uri: Self.path, method: .delete, headers: Self.admin)
            #expect(gone.status == .notFound)
        }
    }

    @Test("a response of an app with a webhook is queued for it, with the response as the app gets it")
    func responsesAreQueued() async throws {
        let harness = try TestHarness()
        let (userToken, device) = try await harness.makeDevice()
        try await harness.store.setAppWebhook(
            AppWebhookRecord(
                bundleID: TestHarness.bundleID, url: "https://example.com/hook", secret: "whsec_x",
                createdAt: harness.clock.now()))
        let pushed = try await harness.push(device.deviceID)
        try await harness.makeApplication().test(.router) { client in
            let responded = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/notifications/\(pushed[0].id)/response", method: .post,
                headers: bearer(userToken), body: jsonBody(#"{"action_identifier":"default"}"#))
            #expect(responded.status == .created)
            let due = try await harness.store.claimDueWebhookDeliveries(
                through: harness.clock.now(), leaseEnd: harness.clock.now().addingTimeInterval(60), limit: 9)
            #expect(due.count == 1)
            let body = try JSONParser.parse(Array(try #require(due.first).body.utf8))
            #expect(body["type"] == .string("notification.response"))
            #expect(body["data"]?["response"]?["id"] == responded.json["response"]?["id"])
            #expect(body["data"]?["response"] == responded.json["response"])
            #expect(due.first?.id == responded.json["response"]?["id"]?.stringValue)
        }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
