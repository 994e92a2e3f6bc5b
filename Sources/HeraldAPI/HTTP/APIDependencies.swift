import Foundation
import HeraldCore
import HeraldDelivery
import HeraldMetrics
import HeraldPolicy
import HeraldStore
import Logging

/// Everything the JSON API needs, handed in by the server.
public struct APIDependencies: Sendable {
    /// The store of the registry and the notification lists.
    public var store: any HeraldStore
    /// The validated admin operations (they also update the APNs endpoint's registry cache).
    public var registry: RegistryService
    /// The fan-out of committed changes to live sessions.
    public var hub: LiveHub
    /// The delivery policy: told after every user-side, device-state and app-resource write (it
    /// drops cached contexts and re-plans Focus and summaries); explains decisions; previews summaries.
    public var policy: PolicyCoordinator
    /// The admin bearer token.
    public var adminToken: String
    /// The clock: the time every route reads (the server's policy clock, manual or the wall clock).
    public var now: @Sendable () -> Date
    /// The manual clock the admin clock routes move; nil (the default) when the server runs on the
    /// wall clock: `GET /v1/admin/clock` then reports `system` and moving it answers 409
    /// `clock_not_manual`.
    public var clockControl: (any ClockControl)?
    /// The logger requests log to (never tokens or payloads).
    public var logger: Logger
    /// How often an idle SSE stream sends a comment to keep proxies and clients from timing out.
    public var heartbeatInterval: Duration
    /// How long an API connection may go without a byte while it sends a request (a body or headers
    /// that never end) or between requests; then it is closed. A response being sent (an SSE or
    /// WebSocket stream) is not idle.
    public var idleTimeout: Duration = .seconds(30)
    /// How often a WebSocket stream pings its client; one unanswered for this long closes it (1001).
    public var webSocketPingInterval: Duration = .seconds(30)
    /// Open connections of the JSON API (requests and SSE/WebSocket streams); past it a new connection
    /// is closed at once. By default 40% of the process's open-files limit (the APNs listeners take
    /// half, the rest is left to the database and files).
    public var maximumConnections: Int = APIDependencies.defaultMaximumConnections()
    /// Called after a response or an app's webhook was stored: the webhook deliverer (HeraldServer's
    /// `WebhookService`) looks for work at once.
    public var webhooksChanged: @Sendable () -> Void = {}
    /// Called after an app's service extension was set or removed: the extensions service reloads
    /// them before the route answers (the next push sees the change).
    public var serviceExtensionsChanged: @Sendable () async -> Void = {}
    /// The push console's way to the APNs endpoint (`POST /v1/console/push`): the server's
    /// `PushHandler`, as a new provider connection; nil answers 503 `console_unavailable`.
    public var consolePush: (@Sendable (APNsRequest) async -> ConsolePushAnswer)?
    /// Where attachment files are kept (`<data>/attachments`); nil keeps none (uploads answer 503).
    public var attachmentsDirectory: URL?
    /// The bytes each app's attachments may take together (1 GiB by default).
    public var attachmentQuota: Int = 1 << 30
    /// The connections serving live sessions, which a graceful shutdown waits for (`StreamsDrain`).
    public let openStreams = OpenStreams()
    /// What this node counts, shown at `GET /metrics` (nil: not kept, 404).
    public var metrics: HeraldMetrics?
    /// The apps' live connections (`GET /v1/app/stream`), the hub's.
    public var apps: AppConnections { hub.apps }

    /// 40% of the soft open-files limit, at least 64.
    public static func defaultMaximumConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return 8_000
        }
        let files = Int(clamping: limit.rlim_cur)
        return max(min(64, files), files * 2 / 5)
    }

    /// The dependencies; `now`, `logger` and the heartbeat interval have production defaults.
    public init(
        store: any HeraldStore,
        registry: RegistryService,
        hub: LiveHub,
        policy: PolicyCoordinator,
        adminToken: String,
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "herald.api"),
        heartbeatInterval: Duration = .seconds(15)
    ) {
        self.store = store
        self.registry = registry
        self.hub = hub
        self.policy = policy
        self.adminToken = adminToken
        self.now = now
        self.logger = logger
        self.heartbeatInterval = heartbeatInterval
    }
}
