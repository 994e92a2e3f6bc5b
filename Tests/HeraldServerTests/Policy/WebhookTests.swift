import Crypto
import Foundation
import HeraldClient
import HeraldCore
import HeraldServer
import HeraldStore
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing

/// Apps' webhooks through a real Herald: the person's responses are POSTed to the provider's URL,
/// signed as Standard Webhooks sign, retried with backoff until the webhook answers 2xx — also
/// across a restart — and the admin API shows how they stand.
@Suite("Webhooks for the person's responses", .serialized)
struct WebhookTests {
    /// A webhook receiver on a free port (or `port`): fails the first `failures` requests with 500,
    /// then answers 200; keeps what it received.
    final class Receiver: Sendable {
        struct Received: Sendable {
            var headers: [String: String]
            var body: String
        }

        /// What the route shares with the test.
        final class Log: Sendable {
            let received = Mutex<[Received]>([])
            let failuresLeft: Mutex<Int>

            init(failures: Int) { failuresLeft = Mutex(failures) }

            func take(_ request: Received) -> Response {
                received.withLock { $0.append(request) }
                let fails = failuresLeft.withLock { left -> Bool in
                    guard left > 0 else { return false }
                    left -= 1
                    return true
                }
                return Response(status: fails ? .internalServerError : .ok)
            }
        }

        private let log: Log
        private let task: Task<Void, any Error>
        let port: Int

        init(failures: Int, port requested: Int = 0) async throws {
            let log = Log(failures: failures)
            let router = Router()
            router.post("/hook") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                var headers: [String: String] = [:]
                for field in request.headers { headers[field.name.canonicalName] = field.value }
                return log.take(Received(headers: headers, body: String(buffer: body)))
            }
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            var logger = Logger(label: "webhook-receiver")
            logger.logLevel = .critical
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: requested)),
                onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
                logger: logger)
            self.log = log
            task = Task { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            port = await iterator.next() ?? 0
        }

        var url: String { "http://127.0.0.1:\(port)/hook" }
        var requests: [Received] { log.received.withLock { $0 } }

        func stop() async {
            task.cancel()
            _ = try? await task.value
        }

        /// Waits (at most 20 s) until `count` requests arrived.
        func waitFor(_ count: Int) async throws -> [Received] {
            for _ in 0..<2000 {
                let now = requests
                if now.count >= count { return now }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw PolicyTestError("the webhook got \(requests.count) requests, not \(count)")
        }
    }

    /// Standard Webhooks' check, written out from its specification (the interop suite checks with
    /// the `standardwebhooks` library itself).
    static func verify(_ request: Receiver.Received, secret: String) -> Bool {
        guard let id = request.headers["webhook-id"], let timestamp = request.headers["webhook-timestamp"],
            let signature = request.headers["webhook-signature"], secret.hasPrefix("whsec_"),
            let key = Data(base64Encoded: String(secret.dropFirst(6)))
        else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(id).\(timestamp).\(request.body)".utf8), using: SymmetricKey(data: key))
        return signature.split(separator: " ").contains { $0 == "v1,\(Data(mac).base64EncodedString())" }
    }

    static func admin(_ herald: PolicyHerald) throws -> HeraldAPIClient {
        try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.application.adminToken)
    }

    static func person(_ herald: PolicyHerald) throws -> HeraldAPIClient {
        try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
    }

    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("each response reaches the webhook, signed, retried until 2xx, with the same id and body")
    func retriedUntilAcknowledged() async throws {
        let receiver = try await Receiver(failures: 2)
        let herald = try await PolicyHerald.start(webhookRetryBase: 0.05)
        let admin = try Self.admin(herald)
        let person = try Self.person(herald)
        let set = try Self.object(try await admin.setWebhook(bundleID: herald.demo.topic, url: receiver.url))
        let secret = try #require(set["secret"] as? String)
        #expect(secret.hasPrefix("whsec_"))

        let apns = try herald.apnsClient()
        let pushed = try await herald.push(#"{"alert":{"title":"Hi","body":"b"}}"#, client: apns)
        try await apns.shutdown()
        _ = try await person.respond(deviceID: herald.demo.deviceID, id: pushed.id, action: "default")
        let requests = try await receiver.waitFor(3)
        #expect(requests.allSatisfy { Self.verify($0, secret: secret) })
        #expect(Set(requests.map { $0.headers["webhook-id"] ?? "" }).count == 1)
        #expect(Set(requests.map(\.body)).count == 1)
        let body = try Self.object(Data(requests[0].body.utf8))
        #expect(body["type"] as? String == "notification.response")
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["bundle_id"] as? String == herald.demo.topic)
        let response = try #require(data["response"] as? [String: Any])
        #expect(response["action_identifier"] as? String == "com.apple.UNNotificationDefaultActionIdentifier")
        #expect((response["notification"] as? [String: Any])?["identifier"] as? String == pushed.id)
        #expect(requests[0].headers["webhook-id"] == response["id"] as? String)
        // A signature made with another secret does not verify (the check can fail).
        #expect(!Self.verify(requests[0], secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()))

        // Acknowledged: the admin API tells (once the worker has recorded the 2xx — polled, since a
        // loaded machine can take longer than any fixed pause), and no more attempts follow.
        var status = try Self.object(try await admin.webhook(bundleID: herald.demo.topic))
        for _ in 0..<200 where status["pending"] as? Int != 0 {
            try await Task.sleep(for: .milliseconds(50))
            status = try Self.object(try await admin.webhook(bundleID: herald.demo.topic))
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(receiver.requests.count == 3)
        #expect(status["pending"] as? Int == 0)
        #expect(status["delivered"] as? Int == 1)
        #expect(status["last_error"] as? String == "HTTP 500")
        #expect(status["secret"] == nil)

        try await admin.removeWebhook(bundleID: herald.demo.topic)
        await #expect(throws: HeraldAPIError.self) { try await admin.webhook(bundleID: herald.demo.topic) }
        try await admin.shutdown()
        try await person.shutdown()
        try await herald.stop()
        await receiver.stop()
    }

    @Test("a response made while the webhook was down arrives after a restart")
    func survivesARestart() async throws {
        let herald = try await PolicyHerald.start(webhookRetryBase: 0.05)
        // A port nobody listens on yet: take a free one, then close it.
        let probe = try await Receiver(failures: 0)
        let port = probe.port
        await probe.stop()
        let admin = try Self.admin(herald)
        let person = try Self.person(herald)
        let set = try Self.object(
            try await admin.setWebhook(bundleID: herald.demo.topic, url: "http://127.0.0.1:\(port)/hook"))
        let secret = try #require(set["secret"] as? String)
        let apns = try herald.apnsClient()
        let pushed = try await herald.push(#"{"alert":{"title":"Hi","body":"b"}}"#, client: apns)
        try await apns.shutdown()
        _ = try await person.respond(deviceID: herald.demo.deviceID, id: pushed.id, action: "default")
        // It fails (connection refused) and waits for its retry.
        for _ in 0..<500 {
            let status = try Self.object(try await admin.webhook(bundleID: herald.demo.topic))
            // (`is String` is false for the NSString Foundation decodes on Linux: cast.)
            if (status["last_error"] as? String) != nil { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        try await admin.shutdown()
        try await person.shutdown()
        try await herald.stop(removingData: false)

        let receiver = try await Receiver(failures: 0, port: port)
        let again = try await PolicyHerald.start(directory: herald.directory, webhookRetryBase: 0.05)
        let requests = try await receiver.waitFor(1)
        #expect(Self.verify(requests[0], secret: secret))
        try await again.stop()
        await receiver.stop()
    }
}
