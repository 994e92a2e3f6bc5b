import Foundation
import HeraldAPI
import HeraldAPNs
import HeraldCore
import HeraldDelivery
import HeraldMetrics
import HeraldPolicy
import HeraldStore
import Logging
import Synchronization

/// The push pipeline behind the APNs listeners: validate (APNs rules) → rate limit → expiry →
/// delivery decision → group commit → live fan-out (from the writer's commit callback) → answer.
///
/// The decision (disposition + Decision JSON) is stored with the notification in the same group
/// commit, so the list and the live stream carry it. A notification the policy does not deliver
/// (authorization denied or not determined) is stored too, with disposition `notDelivered`, so it
/// can be explained; an expired one is dropped before the decision, as before.
/// A 200 is returned only after the notification's batch is committed, so it is durable.
public final class PushService: PushHandler {
    private let registry: RegistryCache
    private let writer: NotificationWriter
    private let hub: LiveHub
    private let policy: DeliveryPolicyEngine
    private let limiter: HeraldMutex<RateLimiter>
    private let now: @Sendable () -> Date
    private let wallClock: @Sendable () -> Date
    private let logger: Logger
    private let extensions: ServiceExtensionService?
    /// Counts each answer by status and reason (nil: not counted).
    private let metrics: HeraldMetrics?
    /// Reads a token this node does not know from the shared database (several nodes only).
    private let readThrough: RegistryReadThrough?

    /// - Parameters:
    ///   - deviceRateLimit: pushes per second per device; 0 turns the limit off.
    ///   - now: the policy's time: `received_at`, `apns-expiration`, the decision.
    ///   - wallClock: the time provider tokens (signed with the provider's clock) and the rate limit
    ///     are checked against; the same as `now` unless the server runs on a manual clock.
    public init(
        registry: RegistryCache, writer: NotificationWriter, hub: LiveHub, policy: DeliveryPolicyEngine,
        deviceRateLimit: Double, now: @escaping @Sendable () -> Date,
        wallClock: @escaping @Sendable () -> Date = { Date() }, extensions: ServiceExtensionService? = nil,
        metrics: HeraldMetrics? = nil, readThrough store: (any SharedDatabaseStore)? = nil, logger: Logger
    ) {
        self.readThrough = store.map { RegistryReadThrough(store: $0, registry: registry) }
        self.extensions = extensions
        self.metrics = metrics
        self.registry = registry
        self.writer = writer
        self.hub = hub
        self.policy = policy
        self.limiter = HeraldMutex(RateLimiter(perSecond: deviceRateLimit))
        self.now = now
        self.wallClock = wallClock
        self.logger = logger
    }

    public func handle(_ request: APNsRequest, connection: APNsConnection) async -> APNsResponse {
        await withUnsafeContinuation { continuation in
            handle(request, connection: connection) { continuation.resume(returning: $0) }
        }
    }

    /// Validates and decides on the caller's thread (the event loop that read the request) and
    /// queues the row for the next group commit; `respond` runs when it is durable. Only a push whose
    /// decision must read the store first (see `DeliveryPolicyEngine.decideIfCached`) costs a task.
    public func handle(
        _ request: APNsRequest, connection: APNsConnection, respond answer: @escaping @Sendable (APNsResponse) -> Void
    ) {
        let respond: @Sendable (APNsResponse) -> Void
        if let metrics {
            respond = { response in
                metrics.answeredPush(status: response.status, reason: response.reason)
                answer(response)
            }
        } else {
            respond = answer
        }
        var generator = PooledRandomGenerator()
        let now = self.now()
        let wallNow = wallClock()
        let apnsID = request.header("apns-id") ?? APNsID.makeTimeOrdered(at: now, using: &generator)
        let snapshot = registry.snapshot
        let validated = connection.auth.withLock { auth in
            PushValidator.validate(request, auth: &auth, registry: snapshot, apnsID: apnsID, now: wallNow)
        }
        switch consume validated {
        case .success(let push):
            accept(push, apnsID: apnsID, now: now, wallNow: wallNow, generator: &generator, respond: respond)
        case .failure(let failure):
            guard failure.reason == .badDeviceToken, let readThrough,
                let token = PushValidator.wellFormedToken(in: request)
            else { return respond(APNsResponse(failure: failure, apnsID: apnsID)) }
            // Perhaps registered through another node a moment ago: read it, then validate again.
            Task {
                let outcome = await readThrough.lookUp(token)
                metrics?.registryReadThrough(outcome.rawValue)
                guard outcome == .found else { return respond(APNsResponse(failure: failure, apnsID: apnsID)) }
                let snapshot = registry.snapshot
                let again = connection.auth.withLock { auth in
                    PushValidator.validate(request, auth: &auth, registry: snapshot, apnsID: apnsID, now: wallNow)
                }
                switch again {
                case .success(let push):
                    var generator = PooledRandomGenerator()
                    accept(push, apnsID: apnsID, now: now, wallNow: wallNow, generator: &generator, respond: respond)
                case .failure(let failure):
                    respond(APNsResponse(failure: failure, apnsID: apnsID))
                }
            }
        }
    }

    /// Rate limit, expiry, the service extension, the decision and the commit of a valid push.
    private func accept(
        _ push: AcceptedPush, apnsID: String, now: Date, wallNow: Date, generator: inout PooledRandomGenerator,
        respond: @escaping @Sendable (APNsResponse) -> Void
    ) {
        let deviceID = push.token.deviceID
        guard limiter.withLock({ $0.allow(deviceID, now: wallNow) }) else {
            return respond(APNsResponse(failure: APNsFailure(.tooManyRequests), apnsID: apnsID))
        }
        let uniqueID = APNsID.make(using: &generator)
        let accepted = APNsResponse(status: 200, apnsID: apnsID, uniqueID: uniqueID)

        let isConnected = hub.hasSession(deviceID: deviceID)
        // Expired already (or "now or never" with nobody connected): APNs accepts it and never delivers it.
        guard
            ExpiryRule.isDeliverable(
                expiration: push.expiration.seconds, alreadyDelivered: false, toConnectedSession: isConnected, now: now)
        else {
            return respond(accepted)
        }
        // The app's service extension changes it first: kept durably (the 200), then run, then stored.
        if let extensions, extensions.handles(push) {
            return extensions.accept(push, receivedAt: now, accepted: accepted, respond: respond)
        }
        let row = StoredNotification(accepted: push, receivedAt: now, deliveredAt: isConnected ? now : nil)
        do {
            if let decided = try policy.decideIfCached(push: push, receivedAt: now) {
                return store(consume row, decided: decided, accepted: accepted, respond: respond)
            }
        } catch {
            return respond(failed(id: row.id, error: error, apnsID: apnsID))
        }
        // Something to read from the store first (a device or app not cached yet, a thread to count).
        Task {
            do {
                let decided = try await policy.decide(push: push, receivedAt: now)
                store(row, decided: decided, accepted: accepted, respond: respond)
            } catch {
                respond(failed(id: row.id, error: error, apnsID: apnsID))
            }
        }
    }

    /// Queues the decided row for the next group commit; answers `accepted` once it is durable.
    private func store(
        _ row: consuming StoredNotification, decided: DeliveryPolicyEngine.DecisionToStore, accepted: APNsResponse,
        respond: @escaping @Sendable (APNsResponse) -> Void
    ) {
        row.setDecision(decided.stored, json: decided.json)
        let id = row.id
        writer.enqueue(consume row) { [self] result in
            switch result {
            case .success: respond(accepted)
            case .failure(let error): respond(failed(id: id, error: error, apnsID: accepted.apnsID))
            }
        }
    }

    /// A push the store could not take: `500 InternalServerError`, as APNs answers when it fails. A
    /// storage fault (a full disk, a damaged database) was logged once by the store: a push failing
    /// with it is logged only at `debug`, so a full disk does not write a line per refused push.
    private func failed(id: String, error: any Error, apnsID: String) -> APNsResponse {
        let metadata: Logger.Metadata = ["notification.id": "\(id)", "error": "\(error)"]
        if error is StorageFaultError {
            logger.debug("Could not store a notification: storage fault", metadata: metadata)
        } else {
            logger.error("Could not store a notification", metadata: metadata)
        }
        return APNsResponse(failure: APNsFailure(.internalServerError), apnsID: apnsID)
    }
}

extension APNsResponse {
    /// The APNs reason of an error answer (read from its `{"reason":…}` body), nil for a 200.
    var reason: String? {
        guard status != 200, let body else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return nil
        }
        return object["reason"] as? String
    }
}
