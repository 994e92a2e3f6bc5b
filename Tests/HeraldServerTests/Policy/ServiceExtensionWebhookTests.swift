import Crypto
import Foundation
import HeraldClient
import HeraldCore
import HeraldPolicy
import HeraldServer
import HeraldStore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Webhook service extensions through a real Herald: each request is signed with the registration's
/// secret as Standard Webhooks sign, and the answer may attach files (base64), which Herald checks
/// as an upload, keeps and serves to the device's owner.
@Suite("Webhook service extensions")
struct ServiceExtensionWebhookTests {
    typealias Support = ServiceExtensionTests

    /// Standard Webhooks' check, written out from its specification (the interop suite checks with
    /// the `standardwebhooks` library itself).
    static func verifies(headers: [String: String], body: String, secret: String) -> Bool {
        guard let id = headers["webhook-id"], let timestamp = headers["webhook-timestamp"],
            let signature = headers["webhook-signature"], secret.hasPrefix("whsec_"),
            let key = Data(base64Encoded: String(secret.dropFirst(6)))
        else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(id).\(timestamp).\(body)".utf8), using: SymmetricKey(data: key))
        return signature.split(separator: " ").contains { $0 == "v1,\(Data(mac).base64EncodedString())" }
    }

    /// GET of an attachment's url with the device owner's token: the status and the bytes.
    static func fetch(_ herald: PolicyHerald, _ path: String) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: herald.runtime.apiURL + path)!)
        request.setValue("Bearer \(herald.demo.userToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test("Herald POSTs the push signed with the registration's secret and shows the payload it answers")
    func signed() async throws {
        let peer = try await Support.Peer()
        let herald = try await PolicyHerald.start()
        do {
            let (status, registered) = try await Support.register(
                herald, ["url": "http://127.0.0.1:\(peer.port)/extension", "timeout_seconds": 5])
            #expect(status == 200 && registered["kind"] as? String == "webhook")
            let secret = try #require(registered["secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
            // The secret is shown once: not by GET.
            #expect(try await Support.admin(herald, "GET").1["secret"] == nil)
            let client = try herald.apnsClient()
            let id = try await Support.push(
                herald, #"{"aps":{"alert":{"title":"Original"},"mutable-content":1},"order":7}"#, client: client)
            let row = try await Support.delivered(herald, id)
            #expect(Support.alert(row) == .object(["title": .string("From the webhook"), "body": .string("Changed")]))
            #expect(row.decision?.context.serviceExtension?.outcome == .modified)
            #expect(row.attachments.isEmpty)
            let sent = try #require(peer.hooks.bodies.withLock { $0.first })
            let headers = try #require(peer.hooks.headers.withLock { $0.first })
            let body = try JSONParser.parse(Array(sent.utf8))
            #expect(json(body, "type") == .string("notification.service_extension"))
            #expect(json(body, "payload", "order") == .number(7) && json(body, "id") == .string(id))
            #expect(headers["webhook-id"] == id)
            #expect(Self.verifies(headers: headers, body: sent, secret: secret))
            // The check can fail: another secret, or a changed body, does not verify.
            #expect(!Self.verifies(headers: headers, body: sent + " ", secret: secret))
            #expect(
                !Self.verifies(
                    headers: headers, body: sent,
                    secret: "whsec_" + Data(repeating: 1, count: 32).base64EncodedString()))
            // A new registration makes a new secret.
            let again = try await Support.register(herald, ["url": "http://127.0.0.1:\(peer.port)/extension"]).1
            #expect((again["secret"] as? String).map { $0 != secret } == true)
            try await client.shutdown()
        } catch {
            Issue.record(error)
        }
        try await herald.stop()
        await peer.stop()
    }

    @Test("a webhook's answer attaches files in base64: checked as uploads, kept and served; a bad one is refused")
    func attachments() async throws {
        let peer = try await Support.Peer()
        let herald = try await PolicyHerald.start()
        do {
            _ = try await Support.register(herald, ["url": "http://127.0.0.1:\(peer.port)/extension"])
            let client = try herald.apnsClient()
            let id = try await Support.push(
                herald, #"{"aps":{"alert":{"title":"New video"},"mutable-content":1},"attach":"video"}"#,
                client: client)
            let row = try await Support.delivered(herald, id)
            #expect(row.decision?.context.serviceExtension?.outcome == .modified)
            let attachment = try #require(row.attachments.first)
            #expect(row.attachments.count == 1)
            #expect(attachment.identifier == "clip" && attachment.type == "public.mpeg-4" && attachment.thumbnailHidden)
            #expect(attachment.size == Support.video.count && !attachment.isAvatar)
            let served = try await Self.fetch(
                herald, "/v1/devices/\(herald.demo.deviceID)/notifications/\(id)/attachments/\(attachment.id)")
            #expect(served.0 == 200 && served.1 == Data(Support.video))

            // Bytes of no notification type: the content is shown without them, and the decision says why.
            let text = try await Support.push(
                herald, #"{"aps":{"alert":{"title":"A note"},"mutable-content":1},"attach":"text"}"#, client: client)
            let plain = try await Support.delivered(herald, text)
            #expect(plain.attachments.isEmpty)
            #expect(
                Support.alert(plain) == .object(["title": .string("From the webhook"), "body": .string("Changed")]))
            #expect(plain.decision?.context.serviceExtension?.error?.contains("attachment") == true)
            #expect(try await herald.store.attachmentBytes(bundleID: herald.demo.topic) == Support.video.count)

            // Not base64: the answer is refused, the push shown as sent.
            let broken = try await Support.push(
                herald, #"{"aps":{"alert":{"title":"As sent"},"mutable-content":1},"attach":"not-base64"}"#,
                client: client)
            let sentRow = try await Support.delivered(herald, broken)
            #expect(sentRow.decision?.context.serviceExtension?.outcome == .failed)
            #expect(sentRow.decision?.context.serviceExtension?.error?.contains("base64") == true)
            #expect(Support.alert(sentRow) == .object(["title": .string("As sent")]))
            try await client.shutdown()
        } catch {
            Issue.record(error)
        }
        try await herald.stop()
        await peer.stop()
    }
}
