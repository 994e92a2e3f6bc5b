import AsyncHTTPClient
import Foundation
import HeraldAPI
import HeraldAPNs
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs apps' notification service extensions on their pushes (as iOS: alert pushes with
/// `mutable-content: 1` and an alert, of an app that registered one).
///
/// Accept durably first, then modify: the push is stored as an `extension_jobs` row (its own
/// transaction) and only then answered 200, so the 200 still means durable; the extension runs after
/// that, and the notification — as the extension changed it, or as sent when it timed out or failed —
/// is decided, written to the device's list, and only then is the job removed. A job left by a stop
/// or a crash runs again at the next start (a notification written just before a crash is written
/// again with the same id: the device's list keeps one). The extension's time therefore never holds
/// up the provider; the device sees the push when the extension is done, as on iOS.
///
/// Nodes sharing a database: a job is claimed by the node that accepted it (`claimedUntil`, renewed
/// while it runs); the others take only jobs whose claims ended — a node that died with them
/// (`keepClaims`) — so each runs once at a time.
public final class ServiceExtensionService: Service, Sendable {
    let store: any HeraldStore
    private let registry: RegistryService
    private let writer: NotificationWriter
    private let hub: LiveHub
    private let policy: DeliveryPolicyEngine
    private let now: @Sendable () -> Date
    let logger: Logger
    /// The registered extensions by bundle id (read on the push path: a lock and a lookup).
    private let records = Mutex<[String: ServiceExtensionRecord]>([:])
    private let pools = Mutex<[String: ExtensionPool]>([:])
    /// The jobs being run now (claimed by this node: their claims are renewed).
    private let inFlight = Mutex<Set<String>>([])
    /// How long a job is this node's once claimed (`ExtensionJobRecord.claimedUntil`); renewed every
    /// `claimRenewal` while it runs. A node that dies leaves its jobs to the others after that.
    static let claimSeconds: TimeInterval = 30
    static let claimRenewal: Duration = .seconds(10)
    /// Credentials of the apps' extensions on devices, made on first need.
    private let credentials = Mutex<[String: String]>([:])
    private let apiURL = Mutex<String?>(nil)
    /// Jobs to keep and to forget, committed together (`JobBatch`).
    let jobs = Mutex(JobBatch())

    /// Job writes waiting for the next transaction. One transaction per push cost the single SQLite
    /// writer so much that, with a tenth of the pushes going through an extension, the whole push
    /// rate fell to 0.29× (scripts/bench-extensions: 2,945/s against 10,349/s); batched, every job
    /// written or removed since the last transaction goes in the next one.
    struct JobBatch {
        var adding: [(job: ExtensionJobRecord, done: CheckedContinuation<Void, any Error>)] = []
        var removing: [String] = []
        var isDraining = false
    }
    private let loaded = Mutex(false)
    /// For webhook extensions; made in `run` (a client must be shut down).
    private let client = Mutex<HTTPClient?>(nil)

    /// Where a webhook's attached files are kept.
    private let attachmentKeeper: AttachmentKeeper

    init(
        store: any HeraldStore, registry: RegistryService, writer: NotificationWriter, hub: LiveHub,
        policy: DeliveryPolicyEngine, attachments: AttachmentKeeper, now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.attachmentKeeper = attachments
        self.store = store
        self.registry = registry
        self.writer = writer
        self.hub = hub
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// Where extensions reach the JSON API (set once it listens).
    func setAPIURL(_ url: String) {
        apiURL.withLock { $0 = url }
    }

    /// Whether this push goes through the app's extension: an alert push with `mutable-content: 1`
    /// and an alert, of an app with an extension.
    func handles(_ push: AcceptedPush) -> Bool {
        guard push.pushType == .alert, push.payload.aps.mutableContent, push.payload.aps.alert != nil else {
            return false
        }
        return records.withLock { $0[push.app.bundleID] != nil }
    }

    /// Stores the push as a job, answers `accepted` once it is durable, then runs the extension.
    func accept(
        _ push: AcceptedPush, receivedAt: Date, accepted: APNsResponse,
        respond: @escaping @Sendable (APNsResponse) -> Void
    ) {
        let job = ExtensionJobRecord(
            id: APNsID.canonical(push.apnsID), deviceID: push.token.deviceID, bundleID: push.app.bundleID,
            token: push.token.token, topic: push.topic, pushType: push.pushType.rawValue,
            priority: push.priority.rawValue, expiration: push.expiration.seconds, collapseID: push.collapseID,
            payload: String(decoding: push.rawPayload, as: UTF8.self), receivedAt: receivedAt,
            claimedUntil: Date().addingTimeInterval(Self.claimSeconds))
        Task {
            do {
                try await keep(job)
            } catch {
                logger.error(
                    "Could not keep a push for its service extension",
                    metadata: ["notification.id": "\(job.id)", "error": "\(error)"])
                return respond(APNsResponse(failure: APNsFailure(.internalServerError), apnsID: accepted.apnsID))
            }
            respond(accepted)
            await process(job)
        }
    }

    /// The registrations changed (the admin API): read them again.
    public func changed() async {
        do {
            try await reload()
        } catch {
            logger.error("Could not read the apps' service extensions", metadata: ["error": "\(error)"])
        }
    }

    public func run() async throws {
        // Writing to a process that ended must fail the write, not end Herald.
        signal(SIGPIPE, SIG_IGN)
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5))))
        client.withLock { $0 = http }
        try await reload()
        let claims = Task { await keepClaims() }
        try? await gracefulShutdown()
        claims.cancel()
        // What runs here now is given up: another node (or this one at its next start) runs it.
        do {
            try await store.renewExtensionJobs(ids: inFlight.withLock { Array($0) }, leaseEnd: .distantPast)
        } catch {
            logger.warning(
                "Could not give up the claims of running service extensions", metadata: ["error": "\(error)"])
        }
        let all = pools.withLock { Array($0.values) }
        for pool in all { await pool.stop() }
        client.withLock { $0 = nil }
        try await http.shutdown()
    }

    /// POSTs a webhook extension's request; nil when no answer came within `timeout`.
    private func post(_ url: String, _ body: Data, _ headers: [(String, String)], _ timeout: Duration) async -> (
        Int, Data
    )? {
        guard let http = client.withLock({ $0 }) else { return (503, Data()) }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "Herald")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(data: body))
        do {
            let response = try await http.execute(
                request,
                timeout: .nanoseconds(
                    Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
            let answer = try await response.body.collect(upTo: ExtensionPool.maximumWebhookAnswer)
            return (Int(response.status.code), Data(answer.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            return nil
        } catch {
            return (0, Data("\(error)".utf8))
        }
    }

    /// How many processes the app's pool runs now and has started (tests, the benchmark).
    public func processes(bundleID: String) async -> (running: Int, started: Int) {
        guard let pool = pools.withLock({ $0[bundleID] }) else { return (0, 0) }
        return (await pool.processCount, await pool.started)
    }

    private func reload() async throws {
        let all = try await store.serviceExtensions()
        let byApp = Dictionary(uniqueKeysWithValues: all.map { ($0.bundleID, $0) })
        records.withLock { $0 = byApp }
        loaded.withLock { $0 = true }
        for (bundleID, pool) in pools.withLock({ $0 }) {
            if let record = byApp[bundleID] { await pool.update(record) } else { await pool.stop() }
        }
        pools.withLock { pools in pools = pools.filter { byApp[$0.key] != nil } }
    }

    /// Runs the jobs no node runs, and keeps the claims of those running here. At start, the ones a
    /// stop or a crash left — on a database of its own, all of them (no other node can be running
    /// them); on a shared one, those whose claims ended —, then every `claimRenewal`, the ones whose
    /// claims ended since (their node died), while the claims of the jobs running here are renewed.
    private func keepClaims() async {
        var startingAlone = !(store is any SharedDatabaseStore)
        var logged = false
        while !Task.isCancelled {
            do {
                let running = inFlight.withLock { Array($0) }
                try await store.renewExtensionJobs(ids: running, leaseEnd: Date().addingTimeInterval(Self.claimSeconds))
                let jobs = try await store.claimExtensionJobs(
                    through: startingAlone ? .distantFuture : Date(),
                    leaseEnd: Date().addingTimeInterval(Self.claimSeconds),
                    limit: 1_000)
                if !jobs.isEmpty && !logged {
                    logger.info("Running service extensions no node is running", metadata: ["jobs": "\(jobs.count)"])
                    logged = true
                }
                for job in jobs where !inFlight.withLock({ $0.contains(job.id) }) {
                    Task { await self.process(job) }
                }
                if jobs.count == 1_000 { continue }
            } catch {
                logger.error(
                    "Could not claim the pushes waiting for service extensions", metadata: ["error": "\(error)"])
            }
            startingAlone = false
            logged = false
            try? await Task.sleep(for: Self.claimRenewal)
        }
    }

    private func pool(for record: ServiceExtensionRecord) -> ExtensionPool {
        pools.withLock { pools in
            if let pool = pools[record.bundleID] { return pool }
            // (Not TMPDIR: each process gets a directory of its own, `ExtensionProcess`.)
            var environment: [String: String] = [:]
            for name in ["PATH", "HOME", "LANG", "LC_ALL"] {
                environment[name] = ProcessInfo.processInfo.environment[name]
            }
            environment["HERALD_BUNDLE_ID"] = record.bundleID
            let pool = ExtensionPool(record: record, environment: environment) {
                [weak self] url, body, headers, timeout in
                await self?.post(url, body, headers, timeout) ?? (503, Data())
            }
            pools[record.bundleID] = pool
            return pool
        }
    }

    private func credential(deviceID: String, bundleID: String) async -> String? {
        let key = "\(deviceID)\u{0}\(bundleID)"
        if let known = credentials.withLock({ $0[key] }) { return known }
        guard let made = try? await registry.createAppCredential(deviceID: deviceID, bundleID: bundleID) else {
            return nil
        }
        return credentials.withLock { credentials in
            if let known = credentials[key] { return known }
            credentials[key] = made.credential
            return made.credential
        }
    }

    /// Runs the extension on the job's push, then decides and stores the notification.
    func process(_ job: ExtensionJobRecord) async {
        guard inFlight.withLock({ $0.insert(job.id).inserted }) else { return }
        defer { _ = inFlight.withLock { $0.remove(job.id) } }
        let original = (try? JSONParser.parse(Array(job.payload.utf8))) ?? .object([:])
        var payload = original
        var ref: DecisionRecord.ServiceExtensionRef
        var attachments: [NotificationAttachment] = []
        if let record = records.withLock({ $0[job.bundleID] }) {
            let request = ExtensionRequest(
                id: job.id, identifier: job.id, deviceID: job.deviceID, payload: original,
                receivedAt: job.receivedAt, apiURL: apiURL.withLock { $0 },
                credential: await credential(deviceID: job.deviceID, bundleID: job.bundleID))
            let answer = await pool(for: record).run(request)
            let made = Self.outcome(answer, original: original, budget: record.timeoutMilliseconds)
            (payload, ref) = (made.payload, made.ref)
            if made.merged?.hasAttachments == true || !made.files.isEmpty {
                do {
                    if let merged = made.merged {
                        attachments = try await merged.resolveAttachments(
                            bundleID: job.bundleID, deviceID: job.deviceID, store: store)
                    }
                    for file in made.files {
                        let record = try await attachmentKeeper.keep(
                            file.data, identifier: file.identifier, typeHint: file.typeHint, bundleID: job.bundleID,
                            deviceID: job.deviceID)
                        attachments.append(
                            NotificationAttachment(
                                id: record.id, identifier: record.identifier, type: record.type, size: record.size,
                                thumbnailHidden: file.thumbnailHidden))
                    }
                } catch {
                    // The content is shown without them; the decision says why. Files kept before
                    // the failure are unlinked: the sweeper frees them.
                    attachments = []
                    ref.error = "its attachments were not kept: \(error)"
                }
            }
        } else {
            ref = DecisionRecord.ServiceExtensionRef(
                outcome: .failed, durationMilliseconds: 0, budgetMilliseconds: 1,
                error: "the app no longer has a service extension")
        }
        if ref.outcome == .failed {
            logger.notice(
                "A service extension failed: the push is shown as sent",
                metadata: ["bundle_id": "\(job.bundleID)", "error": "\(ref.error ?? "")"])
        }
        await deliver(job, payload: payload, ref: ref, attachments: attachments)
    }

    /// Decides and stores the notification, then forgets the job; a store that fails (a full disk)
    /// is tried again, the job kept, until it takes it or Herald stops.
    private func deliver(
        _ job: ExtensionJobRecord, payload: JSONValue, ref: DecisionRecord.ServiceExtensionRef,
        attachments: [NotificationAttachment]
    ) async {
        var wait = Duration.seconds(1)
        while !Task.isCancelled {
            do {
                guard let push = try makePush(job, payload: payload) else {
                    logger.error(
                        "A push waiting for its service extension names an app or device Herald no longer has",
                        metadata: ["notification.id": "\(job.id)"])
                    forget(job.id)
                    return
                }
                let decidedAt = now()
                var row = StoredNotification(
                    accepted: push, receivedAt: job.receivedAt,
                    deliveredAt: hub.hasSession(deviceID: job.deviceID) ? decidedAt : nil)
                let decided = try await policy.decide(push: push, receivedAt: decidedAt).adding(serviceExtension: ref)
                row.setDecision(decided.stored, json: decided.json)
                row.attachments = attachments
                _ = try await writer.write(row)
                // Linked once the notification shows them, not before: the sweeper frees a linked
                // attachment nothing shows, and one linked before the row was stored could be freed
                // in between (seen under load). Unlinked, it is kept while shown, else for an hour.
                if !attachments.isEmpty {
                    do {
                        try await store.linkAttachments(ids: attachments.map(\.id), at: now())
                    } catch {
                        logger.warning(
                            "Could not mark a notification's attachments as shown; they are kept while it shows them",
                            metadata: ["notification.id": "\(job.id)", "error": "\(error)"])
                    }
                }
                forget(job.id)
                return
            } catch {
                logger.error(
                    "Could not store a push its service extension handled; trying again",
                    metadata: ["notification.id": "\(job.id)", "error": "\(error)"])
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(10))
            }
        }
    }

    /// The push as accepted, with the payload to show.
    private func makePush(_ job: ExtensionJobRecord, payload: JSONValue) throws -> AcceptedPush? {
        let snapshot = registry.cache.snapshot
        guard let app = snapshot.apps[job.bundleID], let pushType = PushType(rawValue: job.pushType),
            let priority = APNsPriority(rawValue: job.priority)
        else { return nil }
        let token =
            snapshot.tokens[job.token]
            ?? DeviceTokenRecord(
                token: job.token, deviceID: job.deviceID, bundleID: job.bundleID, createdAt: job.receivedAt)
        var bytes = Array(try JSONEncoder().encode(payload))
        let parsed: NotificationPayload
        if let merged = try? NotificationPayload(json: bytes) {
            parsed = merged
        } else {
            // `outcome` checked it; a payload stored by an older Herald is shown as it was sent.
            bytes = Array(job.payload.utf8)
            parsed = try NotificationPayload(json: bytes)
        }
        return AcceptedPush(
            apnsID: job.id, topic: job.topic, pushType: pushType, priority: priority,
            expiration: job.expiration.map { $0 == 0 ? .immediately : .at($0) } ?? PushExpiration.none,
            collapseID: job.collapseID, token: token, app: app, payload: parsed, rawPayload: bytes)
    }
}
