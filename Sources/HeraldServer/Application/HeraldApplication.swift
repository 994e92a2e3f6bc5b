import Crypto
import Foundation
import HeraldAPI
import HeraldAPNs
import HeraldCore
import HeraldDelivery
import HeraldMetrics
import HeraldPostgres
import HeraldStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Herald assembled: store, registry, live hub, push pipeline, APNs listeners and the JSON API.
///
/// One type used by `herald serve` and by the tests, which run it on port 0.
public final class HeraldApplication: Sendable {
    public let configuration: HeraldConfiguration
    public let dataDirectory: DataDirectory
    /// The data directory's SQLite database, or the PostgreSQL database of `--database`.
    public let store: any HeraldStore
    public let registry: RegistryService
    public let hub: LiveHub
    public let adminToken: String
    public let authority: LocalCertificateAuthority
    /// The demo setup, when the data directory has one.
    public let demo: DemoSetup?
    /// The delivery policy: decisions, explanations, the Focus and Scheduled Summary services, and
    /// the hooks the API calls after it writes user-side state.
    public let policy: PolicyCoordinator
    /// The clock the pipeline and the services read (a `ManualClock` with `--clock manual` and in
    /// tests).
    public let clock: any HeraldClock
    /// Moves the manual clock so that the services follow it (the admin clock routes); nil on the
    /// wall clock.
    public let timeControl: ClockController?
    /// Delivers the person's responses to the apps' webhooks.
    public let webhooks: WebhookService
    /// Runs apps' notification service extensions on their pushes.
    public let extensions: ServiceExtensionService
    /// Frees attachments nothing shows.
    public let attachments: AttachmentSweeper
    let writer: NotificationWriter
    let pushService: PushService
    /// What this node counts (`GET /metrics`).
    public let metrics: HeraldMetrics
    let logger: Logger
    let now: @Sendable () -> Date
    /// The wall clock: provider tokens, the rate limit, certificates (see `make`).
    let wallClock: @Sendable () -> Date
    private let runningGroup = HeraldMutex<ServiceGroup?>(nil)

    /// Opens (or creates) the data directory, the database, the certificates, the admin token and,
    /// on a fresh directory, the demo setup.
    public static func make(
        configuration: HeraldConfiguration,
        logger: Logger = Logger(label: "herald"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> HeraldApplication {
        try await make(configuration: configuration, logger: logger, clock: SystemClock(now: now), wallClock: now)
    }

    /// Opens (or creates) the data directory, the database, the certificates, the admin token and,
    /// on a fresh directory, the demo setup; the delivery policy reads time from `clock`.
    ///
    /// `clock` is the time of everything the policy and the device see: decisions, Focus schedules,
    /// Scheduled Summary times, `apns-expiration`, `received_at` and the other timestamps. A
    /// `ManualClock` (`herald serve --clock manual`, tests) gets a `ClockController`
    /// (`timeControl`), which the admin clock routes move. `wallClock` stays the time of what
    /// the world outside checks: provider tokens (`iat`, signed with the provider's own clock), the
    /// per-device rate limit, the certificates, the demo token.
    public static func make(
        configuration: HeraldConfiguration,
        logger: Logger = Logger(label: "herald"),
        clock: any HeraldClock,
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> HeraldApplication {
        let now: @Sendable () -> Date = { clock.now }
        let directory = DataDirectory(path: configuration.dataDirectory)
        try directory.create()
        // Nodes that share a data directory (several on one PostgreSQL database) make its files
        // one at a time: the first makes the admin token, the certificates and the demo, the
        // others read them.
        let lock = try directory.lockForSetUp()
        defer { lock.unlock() }
        let adminToken = try directory.loadOrCreateAdminToken()
        let authority = try LocalCertificateAuthority.loadOrCreate(directory: directory.tlsDirectory, now: wallClock())
        let store: any HeraldStore =
            if let databaseURL = configuration.databaseURL {
                try await PostgresStore.connect(databaseURL, logger: logger)
            } else {
                try SQLiteStore(path: directory.databaseURL.path, logger: logger)
            }
        let demo: DemoSetup?
        let registry: RegistryService
        do {
            let cache = RegistryCache(try await store.registrySnapshot())
            registry = RegistryService(store: store, cache: cache, dataDirectory: directory.root, now: now)
            demo =
                configuration.createsDemo
                ? try await DemoBootstrap.loadOrCreate(in: directory, registry: registry)
                : try directory.readDemo()
        } catch {
            try? await store.close()
            throw error
        }
        return HeraldApplication(
            configuration: configuration, dataDirectory: directory, store: store, registry: registry,
            adminToken: adminToken, authority: authority, demo: demo, logger: logger, clock: clock, wallClock: wallClock
        )
    }

    private init(
        configuration: HeraldConfiguration, dataDirectory: DataDirectory, store: any HeraldStore,
        registry: RegistryService, adminToken: String, authority: LocalCertificateAuthority,
        demo: DemoSetup?, logger: Logger, clock: any HeraldClock, wallClock: @escaping @Sendable () -> Date
    ) {
        let now: @Sendable () -> Date = { clock.now }
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        self.store = store
        self.registry = registry
        self.adminToken = adminToken
        self.authority = authority
        self.demo = demo
        self.logger = logger
        self.now = now
        self.wallClock = wallClock
        self.clock = clock
        let presence = (store as? any SharedDatabaseStore).map { shared in
            ClusterPresence(nodeID: shared.nodeID) { message in try await shared.send(message) }
        }
        let hub = LiveHub(
            willPresentTimeout: .milliseconds(Int64(configuration.willPresentTimeout * 1000)),
            followsCommittedFeed: store is any SharedDatabaseStore, presence: presence)
        self.hub = hub
        let policy = PolicyCoordinator(store: store, registry: registry.cache, hub: hub, clock: clock, logger: logger)
        self.policy = policy
        self.timeControl = (clock as? ManualClock).map { policy.clockController(for: $0) }
        let metrics = HeraldMetrics()
        self.metrics = metrics
        self.writer = NotificationWriter(
            store: store, maxBatch: configuration.maximumBatch, observe: { metrics.committed(count: $0, in: $1) }
        ) { changes in
            hub.publish(changes)
        }
        self.webhooks = WebhookService(
            store: store, retryBase: .milliseconds(Int64(configuration.webhookRetryBase * 1000)), now: wallClock,
            logger: logger)
        let extensions = ServiceExtensionService(
            store: store, registry: registry, writer: writer, hub: hub, policy: policy.engine,
            attachments: AttachmentKeeper(
                directory: dataDirectory.attachmentsDirectory, quota: configuration.attachmentQuota, store: store,
                now: now),
            now: now, logger: logger)
        self.attachments = AttachmentSweeper(
            store: store, directory: dataDirectory.attachmentsDirectory, now: wallClock, logger: logger)
        self.extensions = extensions
        self.pushService = PushService(
            registry: registry.cache, writer: writer, hub: hub, policy: policy.engine,
            deviceRateLimit: configuration.deviceRateLimit, now: now, wallClock: wallClock, extensions: extensions,
            metrics: metrics, readThrough: store as? any SharedDatabaseStore, logger: logger
        )
    }

    /// A provider token for the demo key, for the printed curl command and tests.
    public func demoProviderToken() throws -> String? {
        guard let demo else { return nil }
        let pem = try String(contentsOfFile: demo.keyPath, encoding: .utf8)
        return try ProviderToken.make(
            teamID: demo.teamID, keyID: demo.keyID, issuedAt: wallClock(),
            key: P256.Signing.PrivateKey(pemRepresentation: pem)
        )
    }

    /// Binds every listener, writes `runtime.json`, calls `onReady`, and serves until SIGTERM/SIGINT
    /// (or until `shutdown` is triggered); then drains the APNs listeners, ends the streams and
    /// closes the database.
    public func run(
        signals: [UnixSignal] = [.sigterm, .sigint],
        onReady: @escaping @Sendable (RuntimeInfo) async -> Void = { _ in }
    ) async throws {
        // On a database several nodes share, sessions follow its committed feed from here on.
        let feedRelay: [ServiceGroupConfiguration.ServiceConfiguration] =
            if let shared = store as? any SharedDatabaseStore {
                [
                    .init(
                        service: CommittedFeedRelay(
                            store: shared, cursor: try await store.latestCursor(), hub: hub,
                            registry: registry.cache, extensions: extensions, policy: policy, logger: logger))
                ]
                    + (hub.presence.map {
                        [.init(service: PresenceRelay(presence: $0, store: shared, hub: hub, logger: logger))]
                    } ?? [])
            } else { [] }
        let apns = APNsListener(
            configuration: APNsListenerConfiguration(
                host: configuration.host, cleartextPort: configuration.apnsPort, tlsPort: configuration.apnsTLSPort,
                certificatePath: authority.serverCertificateURL.path, privateKeyPath: authority.serverKeyURL.path
            ),
            handler: pushService, group: MultiThreadedEventLoopGroup.singleton, logger: logger
        )
        let bound = try await apns.bind()
        let host = configuration.host
        let apnsURL = "http://\(host):\(bound.cleartext.port ?? configuration.apnsPort)"
        let apnsTLSURL = bound.tls.map { "https://\(host):\($0.port ?? 0)" } ?? ""
        let directory = dataDirectory
        var dependencies = APIDependencies(
            store: store, registry: registry, hub: hub, policy: policy, adminToken: adminToken, now: now, logger: logger
        )
        dependencies.clockControl = timeControl
        dependencies.webhooksChanged = { [webhooks] in webhooks.changed() }
        dependencies.serviceExtensionsChanged = { [extensions] in await extensions.changed() }
        dependencies.attachmentsDirectory = dataDirectory.attachmentsDirectory
        dependencies.consolePush = { [pushService] request in
            let answer = await pushService.handle(request, connection: APNsConnection())
            return ConsolePushAnswer(
                status: answer.status, apnsID: answer.apnsID, uniqueID: answer.uniqueID, body: answer.body)
        }
        dependencies.attachmentQuota = configuration.attachmentQuota
        dependencies.metrics = metrics
        dependencies.idleTimeout = .milliseconds(Int64(configuration.apiIdleTimeout * 1000))
        dependencies.webSocketPingInterval = .milliseconds(Int64(configuration.webSocketPingInterval * 1000))
        if let maximum = configuration.apiMaximumConnections { dependencies.maximumConnections = maximum }
        let api = APIServer.make(
            dependencies: dependencies,
            host: host, port: configuration.apiPort, logger: logger
        ) { [extensions] apiPort in
            extensions.setAPIURL("http://\(host):\(apiPort)")
            let runtime = RuntimeInfo(
                apiURL: "http://\(host):\(apiPort)", apnsURL: apnsURL, apnsTLSURL: apnsTLSURL,
                pid: ProcessInfo.processInfo.processIdentifier
            )
            try? directory.writeRuntime(runtime)
            await onReady(runtime)
        }
        let streamsCloser = ShutdownHook { [hub, policy] in
            hub.close()
            policy.events.finish()
        }
        // Graceful shutdown goes from the last service to the first, each ending before the next is
        // told: the streams end, the listeners drain (their pushes are still committed), the live
        // sessions' connections say goodbye (`StreamsDrain`), then the writer commits what is
        // queued, then the feed relay and the checkpoints stop.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = store.backgroundServices.map {
            .init(service: $0)
        }
        services += feedRelay
        let group = ServiceGroup(
            configuration: .init(
                services: services + [
                    .init(service: writer),
                    .init(service: extensions),
                    .init(service: attachments),
                    .init(service: webhooks),
                    .init(service: FocusAnnouncer(dependencies: dependencies)),
                    .init(service: SummaryMetrics(events: policy.events, metrics: metrics)),
                    .init(service: StreamsDrain(streams: dependencies.openStreams)),
                    .init(service: api),
                    .init(service: apns),
                ] + policy.services.map { .init(service: $0) } + [
                    .init(service: streamsCloser)
                ],
                gracefulShutdownSignals: signals,
                logger: logger
            ))
        runningGroup.withLock { $0 = group }
        do {
            try await group.run()
        } catch {
            logger.error("Herald stopped with an error", metadata: ["error": "\(error)"])
            try? directory.removeRuntime()
            try? await store.close()
            throw error
        }
        try? directory.removeRuntime()
        try await store.close()
        logger.info("Herald stopped")
    }
}

extension HeraldApplication {
    /// Starts the graceful shutdown of a running application, as SIGTERM would.
    public func shutdown() async {
        let group = runningGroup.withLock { $0 }
        await group?.triggerGracefulShutdown()
    }
}

/// A service that runs `action` when graceful shutdown begins. Listed last in the service group so
/// it is the first to hear of shutdown.
struct ShutdownHook: Service {
    let action: @Sendable () -> Void

    func run() async throws {
        try? await gracefulShutdown()
        action()
    }
}
