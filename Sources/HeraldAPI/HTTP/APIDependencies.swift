import Foundation
import HeraldCore
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

    // MARK: Hooks for the delivery policy (the server fills them; the defaults do nothing extra)

    /// Called after a user-side state change was committed (per-app settings, preferences, Focus
    /// modes, manual Focus on/off, the summary schedule), with the user's id. The server
    /// re-evaluates held notifications and reschedules Focus/Summary timers here.
    public var onUserStateChanged: @Sendable (_ userID: String) async -> Void = { _ in }
    /// Called after a device's state was committed (`PUT /v1/devices/{id}/state`).
    public var onDeviceStateChanged: @Sendable (_ deviceID: String) async -> Void = { _ in }
    /// Called after an app's categories or localization files changed (caches of them go stale).
    public var onAppResourcesChanged: @Sendable (_ bundleID: String) async -> Void = { _ in }
    /// Explains a notification's decision for `GET /v1/notifications/{id}/decision`. nil (the
    /// default) explains the decision stored with the notification: its reason codes with the
    /// sentences of `ReasonCode.explanation`, naming the app and the Focus it names.
    public var explainNotification: (@Sendable (StoredNotification, Device) async throws -> DecisionExplanation?)?
    /// The next Scheduled Summary of a user at `now`, for `GET /v1/me/summary/next`. nil (the
    /// default) previews the schedule's next time with a `SummaryDigest` of the notifications of
    /// the user's devices held for the summary (facts read from their payloads).
    public var nextSummaryPreview: (@Sendable (_ userID: String, _ now: Date) async throws -> SummaryPreview)?
    /// The settings of an app a user never set: what `GET /v1/me/apps/{bundle_id}/settings` shows
    /// and what a partial `PUT` starts from. Keep it equal to the policy's default.
    public var defaultAppSettings: AppNotificationSettings = .authorized

    /// The dependencies; `now`, `logger` and the heartbeat interval have production defaults.
    public init(
        store: any HeraldStore,
        registry: RegistryService,
        hub: LiveHub,
        adminToken: String,
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "herald.api"),
        heartbeatInterval: Duration = .seconds(15)
    ) {
        self.store = store
        self.registry = registry
        self.hub = hub
        self.adminToken = adminToken
        self.now = now
        self.logger = logger
        self.heartbeatInterval = heartbeatInterval
    }
}
