import AsyncHTTPClient
import Crypto
import Foundation
import HeraldDelivery
import HeraldStore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Delivers the person's responses to the apps' webhooks (`PUT /v1/admin/apps/{bundle_id}/webhook`):
/// each delivery the store holds (written with its response) is POSTed, signed as Standard Webhooks
/// sign (standardwebhooks.com: `webhook-id` = the response's id, `webhook-timestamp`,
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`), until the webhook answers
/// 2xx. A failure (another status, a refused connection, 10 s without an answer) is tried again
/// after a backoff that doubles from `retryBase` up to 15 minutes, for as long as it takes —
/// across restarts, as the deliveries are in the store. Redirects are not followed.
///
/// It follows the wall clock: a webhook is a network peer, whatever time the policy reads.
public final class WebhookService: Service, Sendable {
    /// The longest wait between two attempts.
    public static let retryCap: Duration = .seconds(15 * 60)
    /// The most deliveries attempted at once.
    static let batchSize = 32
    /// How long a claimed delivery is this node's (`claimDueWebhookDeliveries`): well past an
    /// attempt's 10 s, after which a delivery whose node died is attempted by another.
    static let claimSeconds: TimeInterval = 60

    let store: any HeraldStore
    let logger: Logger
    let retryBase: Duration
    let now: @Sendable () -> Date
    private let wake = WakeSignal()
    /// Deliveries claimed whose outcome is not recorded yet: given up when the service stops.
    private let unrecorded = Mutex<Set<String>>([])

    public init(
        store: any HeraldStore, retryBase: Duration = .seconds(1), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        self.store = store
        self.retryBase = retryBase
        self.now = now
        self.logger = logger
    }

    /// A response or a webhook was stored: look for work now.
    public func changed() {
        wake.signal()
    }

    /// Made here, not in `init`: an HTTP client must be shut down, and a service that never runs
    /// (an application made but not run) would leave one behind.
    public func run() async throws {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10))))
        do {
            try await runUntilGracefulShutdown { try await self.loop(client) }
        } catch {
            await releaseClaims()
            try? await client.shutdown()
            throw error
        }
        await releaseClaims()
        try await client.shutdown()
    }

    /// Gives up the claims of the attempts the stop cut short: due at once for the next node (or
    /// this one's next start), not at the end of their claims.
    private func releaseClaims() async {
        let ids = unrecorded.withLock { Array($0) }
        guard !ids.isEmpty else { return }
        do {
            try await store.releaseWebhookClaims(ids: ids, at: now())
        } catch {
            logger.warning("Could not give up the webhook deliveries being attempted", metadata: ["error": "\(error)"])
        }
    }

    private func loop(_ client: HTTPClient) async throws {
        let clock = SystemClock(now: now)
        while !Task.isCancelled {
            var next: Date?
            do {
                let start = now()
                let due = try await store.claimDueWebhookDeliveries(
                    through: start, leaseEnd: start.addingTimeInterval(Self.claimSeconds), limit: Self.batchSize)
                unrecorded.withLock { $0.formUnion(due.map(\.id)) }
                await withTaskGroup(of: Void.self) { group in
                    for delivery in due { group.addTask { await self.attempt(delivery, client: client) } }
                }
                if due.count == Self.batchSize { continue }
                next = try await store.nextWebhookAttempt()
            } catch is CancellationError {
                return
            } catch {
                logger.log(
                    level: error is StorageFaultError ? .debug : .error, "Could not read the webhook deliveries",
                    metadata: ["error": "\(error)"])
                next = now().addingTimeInterval(1)
            }
            await wake.wait(until: next, on: clock)
        }
    }

    /// One attempt: delivered on a 2xx, else tried again after the backoff.
    func attempt(_ delivery: WebhookDelivery, client: HTTPClient) async {
        let sentAt = now()
        let timestamp = Int(sentAt.timeIntervalSince1970)
        var request = HTTPClientRequest(url: delivery.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "Herald")
        request.headers.add(name: "webhook-id", value: delivery.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: Self.signature(secret: delivery.secret, id: delivery.id, timestamp: timestamp, body: delivery.body))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        var failure: String?
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            // What the webhook says is not read (at most 64 KiB are drained to reuse the connection).
            _ = try? await response.body.collect(upTo: 64 << 10)
            if !(200..<300).contains(response.status.code) { failure = "HTTP \(response.status.code)" }
        } catch {
            failure = "\(error)"
        }
        // Cut short by the stop: not the webhook's failure (`releaseClaims` gives it up).
        if Task.isCancelled { return }
        do {
            if let failure {
                let delay = Self.backoff(afterAttempts: delivery.attempts + 1, base: retryBase)
                let nextAttempt = now().addingTimeInterval(Double(delay.components.seconds))
                    .addingTimeInterval(Double(delay.components.attoseconds) / 1e18)
                logger.info(
                    "A webhook delivery failed; it is tried again",
                    metadata: [
                        "app.bundle_id": "\(delivery.bundleID)", "webhook.id": "\(delivery.id)",
                        "attempt": "\(delivery.attempts + 1)", "error": "\(failure)",
                    ])
                try await store.webhookFailed(id: delivery.id, error: failure, at: sentAt, nextAttemptAt: nextAttempt)
            } else {
                try await store.webhookDelivered(id: delivery.id, at: now())
            }
            _ = unrecorded.withLock { $0.remove(delivery.id) }
        } catch {
            logger.error(
                "Could not record a webhook attempt", metadata: ["webhook.id": "\(delivery.id)", "error": "\(error)"])
        }
    }

    /// The wait after `attempts` failed attempts: `base` doubled each time, at most `retryCap`.
    static func backoff(afterAttempts attempts: Int, base: Duration) -> Duration {
        var delay = base
        for _ in 1..<max(1, attempts) {
            delay = delay * 2
            if delay >= retryCap { return retryCap }
        }
        return min(delay, retryCap)
    }

    /// Standard Webhooks' signature: `v1,` + base64 of HMAC-SHA256, keyed with the secret's bytes
    /// (base64 after `whsec_`), over `"<id>.<timestamp>.<body>"`.
    static func signature(secret: String, id: String, timestamp: Int, body: String) -> String {
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        let key = SymmetricKey(data: Data(base64Encoded: encoded) ?? Data(encoded.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).\(body)".utf8), using: key)
        return "v1," + Data(mac).base64EncodedString()
    }
}
