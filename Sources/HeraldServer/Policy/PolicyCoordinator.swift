import Foundation
import HeraldAPI
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging

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

    init(store: any HeraldStore, registry: RegistryCache, hub: LiveHub, clock: any HeraldClock, logger: Logger) {
        let engine = DeliveryPolicyEngine(store: store, registry: registry, hub: hub, clock: clock, logger: logger)
        let events = PolicyActivityFanOut()
        self.engine = engine
        self.events = events
        self.explainer = DecisionExplainer(engine: engine)
        self.focusService = FocusService(engine: engine, events: events, logger: logger)
        self.summaryService = SummaryService(engine: engine, events: events, logger: logger)
    }

    /// Call after a user's per-app settings, preferences, Focus modes (or manual Focus switch) or
    /// summary schedule were committed: the next decision reads them, and held notifications are
    /// decided again (a Focus turned off releases what it held; an app taken out of the summary too).
    public func userStateChanged(userID: String) async {
        engine.invalidateUser(userID)
        focusService.userStateChanged(userID)
        summaryService.userStateChanged(userID)
    }

    /// Call after a device's state was committed: the next decision for the device reads it.
    public func deviceStateChanged(deviceID: String) async {
        engine.invalidateDevice(deviceID)
    }

    /// Call after an app's categories or localization files changed.
    public func appResourcesChanged(bundleID: String) async {
        engine.invalidateApp(bundleID)
    }

    /// What the user's next Scheduled Summary would hold now, and when it comes (`at` nil: off).
    public func nextSummaryPreview(userID: String) async throws -> SummaryPreview {
        try await summaryService.nextSummaryPreview(userID: userID, now: engine.clock.now)
    }

    /// The explanation JSON of a stored notification's decision (see `DecisionExplainer`).
    public func explain(_ notification: StoredNotification) -> JSONValue {
        explainer.explain(notification)
    }
}
