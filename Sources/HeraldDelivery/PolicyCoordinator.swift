import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// The delivery policy of a running Herald, and the hooks the JSON API calls after it writes
/// user-side state: cached contexts are dropped and the services re-plan.
///
/// ```swift
/// await app.policy.userStateChanged(userID: id)      // settings, preferences, Focus, summary
/// await app.policy.deviceStateChanged(deviceID: id)  // locked, ringer, route, locale, …
/// await app.policy.appResourcesChanged(bundleID: id) // categories, localization files
/// let json = app.policy.explainer.explain(row)      // GET /v1/notifications/{id}/decision
/// let next = try await app.policy.nextSummaryPreview(userID: id)
/// ```
public final class PolicyCoordinator: Sendable {
    /// Decides pushes and keeps the caches.
    public let engine: DeliveryPolicyEngine
    /// What the services did (summary digests, re-evaluated held notifications).
    public let events: PolicyActivityFanOut
    /// Explains stored decisions.
    public let explainer: DecisionExplainer
    let focusService: FocusService
    let summaryService: SummaryService
    /// Apps' local notifications: adding requests, and the trigger scheduler (a service).
    public let localNotifications: LocalNotificationService
    /// On a database nodes share: tells the other nodes what this one changed.
    private let broadcast: (@Sendable (SharedInvalidation) async -> Void)?
    /// The Focus, summary and trigger services, on the node that leads them.
    private let scheduled: ScheduledServices

    /// The policy of `store`: decisions read the registry from `registry`, publish what they change to
    /// `hub`, and take time from `clock`. Run `focusService` and `summaryService` (the application's
    /// ServiceGroup does) for Focus schedules and summaries to act on their own.
    public init(
        store: any HeraldStore, registry: RegistryCache, hub: any LiveSessions, clock: any HeraldClock, logger: Logger
    ) {
        let shared = store as? any SharedDatabaseStore
        var broadcast: (@Sendable (SharedInvalidation) async -> Void)?
        var leadership: (@Sendable (@escaping @Sendable () async throws -> Void) async throws -> Void)?
        if let shared {
            broadcast = { change in
                do {
                    try await shared.broadcast(change)
                } catch {
                    // The others' caches keep the old state until their next reconnection.
                    logger.warning(
                        "Could not tell the other nodes of a change",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            leadership = { term in try await shared.whileLeading(term) }
        }
        self.broadcast = broadcast
        let engine = DeliveryPolicyEngine(store: store, registry: registry, hub: hub, clock: clock, logger: logger)
        let events = PolicyActivityFanOut()
        self.engine = engine
        self.events = events
        self.explainer = DecisionExplainer(engine: engine)
        self.focusService = FocusService(engine: engine, events: events, logger: logger)
        self.summaryService = SummaryService(engine: engine, events: events, logger: logger)
        self.localNotifications = LocalNotificationService(engine: engine, logger: logger, broadcast: broadcast)
        self.scheduled = ScheduledServices(
            services: [focusService, summaryService, localNotifications],
            leadership: leadership)
    }

    /// Call after a user's per-app settings, preferences, Focus modes (or manual Focus switch) or
    /// summary schedule were committed: the next decision reads them, and held notifications are
    /// decided again (a Focus turned off releases what it held; an app taken out of the summary too).
    public func userStateChanged(userID: String) async {
        engine.invalidateUser(userID)
        focusService.userStateChanged(userID)
        summaryService.userStateChanged(userID)
        await broadcast?(.user(userID))
    }

    /// Call after a device's state was committed: the next decision for the device reads it.
    public func deviceStateChanged(deviceID: String) async {
        changed(.device(deviceID))
        await broadcast?(.device(deviceID))
    }

    /// Call after an app's categories or localization files changed.
    public func appResourcesChanged(bundleID: String) async {
        changed(.app(bundleID))
        await broadcast?(.app(bundleID))
    }

    /// Another node changed this (`SharedChange.changed`): the next decision here reads it, nobody
    /// is told again, and the services act on it if this node leads them (they run on one node).
    public func changed(_ change: SharedInvalidation) {
        switch change {
        case .user(let userID):
            engine.invalidateUser(userID)
            focusService.userStateChanged(userID)
            summaryService.userStateChanged(userID)
        case .pendingRequests:
            localNotifications.requestsChanged()
        case .appResponses:
            break  // the app connections' (`CommittedFeedRelay`)
        case .device(let deviceID):
            engine.invalidateDevice(deviceID)
        case .app(let bundleID):
            engine.invalidateApp(bundleID)
        }
    }

    /// Tells the other nodes sharing the database (if any) of `change`.
    public func tellOtherNodes(_ change: SharedInvalidation) async {
        await broadcast?(change)
    }

    /// Another node's changes may have been missed (the listening connection was lost): nothing
    /// kept in memory is trusted.
    public func forgetCached() {
        engine.invalidateAll()
    }

    /// What the user's next Scheduled Summary would hold at `now` (the clock's time by default), and
    /// when it comes (`at` nil: off). `GET /v1/me/summary/next`.
    public func nextSummaryPreview(userID: String, now: Date? = nil) async throws -> SummaryPreview {
        try await summaryService.nextSummaryPreview(userID: userID, now: now ?? engine.clock.now)
    }

    /// The services that act when time passes (Focus schedules, Scheduled Summary, the trigger
    /// scheduler of local notifications), on one node of those sharing a database
    /// (`ScheduledServices`): run them in the application's ServiceGroup.
    public var services: [any Service] { [scheduled] }

    /// Whether this node runs the Focus, summary and trigger services now: always alone on its
    /// store once they started; of nodes sharing a database, the one holding the lease.
    public var leadsScheduledServices: Bool { scheduled.isLeading.withLock { $0 } }

    /// The controller that moves `clock` and waits until the services have acted up to its new time
    /// (`herald serve --clock manual`, the admin clock routes).
    public func clockController(for clock: ManualClock) -> ClockController {
        ClockController(clock: clock, services: [focusService, summaryService, localNotifications])
    }

    /// The settings of an app a user never set: what the policy applies and the API shows.
    public static var defaultAppSettings: AppNotificationSettings { DevicePolicyContext.defaultAppSettings }

    /// The explanation JSON of a stored notification's decision (see `DecisionExplainer`).
    public func explain(_ notification: StoredNotification) -> JSONValue {
        explainer.explain(notification)
    }
}
