import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging
import Synchronization

/// The delivery policy wired to the store: builds `NotificationFacts`, loads (and caches) each
/// device's policy context and each app's categories and localizations, calls the pure `decide`,
/// and encodes the decision the store keeps.
///
/// Caches: a device's context and an app's resources are read from the store once and kept until
/// an invalidation (`userStateChanged`, `deviceStateChanged`, `appResourcesChanged`), so a push to a
/// cached device reads nothing from the store. A load that overlaps an invalidation is not cached.
public final class DeliveryPolicyEngine: Sendable {
    let store: any HeraldStore
    let registry: RegistryCache
    let hub: any LiveSessions
    let clock: any HeraldClock
    let logger: Logger
    private let cache = HeraldMutex(CacheState())

    private struct CacheState {
        var devices: [String: DevicePolicyContext] = [:]
        var apps: [String: AppResources] = [:]
        /// Bumped by every invalidation: a load that started before one is not cached.
        var generation: UInt64 = 0
    }

    /// A decision ready to store.
    public struct DecisionToStore: Sendable {
        public var stored: DecisionRecord
        public var json: String
        public var disposition: Disposition { stored.decision.disposition }
    }

    init(store: any HeraldStore, registry: RegistryCache, hub: any LiveSessions, clock: any HeraldClock, logger: Logger)
    {
        self.store = store
        self.registry = registry
        self.hub = hub
        self.clock = clock
        self.logger = logger
    }

    // MARK: Invalidation

    /// Forgets the cached context of every device of the user (after their settings, preferences,
    /// Focus modes or summary changed).
    public func invalidateUser(_ userID: String) {
        cache.withLock { state in
            state.generation += 1
            state.devices = state.devices.filter { $0.value.userID != userID }
        }
    }

    /// Forgets the cached context of the device (after its state changed).
    public func invalidateDevice(_ deviceID: String) {
        cache.withLock { state in
            state.generation += 1
            state.devices[deviceID] = nil
        }
    }

    /// Forgets every cached context and app (another node's changes may have been missed).
    public func invalidateAll() {
        cache.withLock { state in
            state.generation += 1
            state.devices = [:]
            state.apps = [:]
        }
    }

    /// Forgets an app's cached categories and localizations.
    public func invalidateApp(_ bundleID: String) {
        cache.withLock { state in
            state.generation += 1
            state.apps[bundleID] = nil
        }
    }

    // MARK: Cached reads

    /// The device's policy context (from the cache when it has it).
    public func context(deviceID: String) async throws -> DevicePolicyContext {
        let (cached, generation) = cache.withLock { ($0.devices[deviceID], $0.generation) }
        if let cached { return cached }
        let record = try await store.policyContext(deviceID: deviceID)
        let context = record.map(DevicePolicyContext.init) ?? DevicePolicyContext(deviceID: deviceID, userID: nil)
        cache.withLock { state in
            if state.generation == generation { state.devices[deviceID] = context }
        }
        return context
    }

    func resources(bundleID: String) async throws -> AppResources {
        let (cached, generation) = cache.withLock { ($0.apps[bundleID], $0.generation) }
        if let cached { return cached }
        let resources = AppResources(
            categories: try await store.categories(bundleID: bundleID),
            files: try await store.localizationFiles(bundleID: bundleID)
        )
        cache.withLock { state in
            if state.generation == generation { state.apps[bundleID] = resources }
        }
        return resources
    }

    /// The app with `bundleID` (a stand-in without entitlements if the registry lost it).
    func app(_ bundleID: String) -> App {
        registry.snapshot.apps[bundleID]
            ?? App(
                bundleID: bundleID, teamID: "", name: bundleID, entitlements: Entitlements(), createdAt: .distantPast)
    }

    // MARK: Facts

    /// What the device shows a notification from: its `alert` and its `communication` key.
    struct ShownContent: Sendable {
        var alert: Alert?
        var communication: CommunicationContent.Parsed

        init(_ payload: NotificationPayload?) {
            alert = payload?.aps.alert
            communication = payload.map(CommunicationContent.parse) ?? .none
        }
    }

    /// The facts of a notification, with its category's hidden-preview options and, for a valid
    /// `communication` key, the sender (`isCommunication`).
    func facts(
        id: String, bundleID: String, payload: NotificationPayload?, communication: CommunicationContent.Parsed,
        collapseID: String?, expiry: NotificationExpiry?, receivedAt: Date, resources: AppResources
    ) -> NotificationFacts {
        var facts =
            payload.map {
                NotificationFacts(
                    id: id, bundleID: bundleID, payload: $0, collapseID: collapseID, expiry: expiry,
                    receivedAt: receivedAt)
            }
            ?? NotificationFacts(
                id: id, bundleID: bundleID, collapseID: collapseID, expiry: expiry, receivedAt: receivedAt)
        if let categoryID = facts.categoryID, let category = resources.categories[categoryID] {
            facts.hiddenPreviewsPlaceholder = category.hiddenPreviewsPlaceholder
            facts.categoryOptions = category.options
        }
        if let content = communication.content {
            facts.isCommunication = true
            facts.sender = content.sender.handle
        }
        return facts
    }

    /// The facts of a stored notification (without expiry: it has reached the device).
    func facts(of row: StoredNotification) async throws -> NotificationFacts {
        try await parsed(row).facts
    }

    /// The facts of a stored notification, what it shows and its app's resources.
    func parsed(_ row: StoredNotification) async throws -> (
        facts: NotificationFacts, content: ShownContent, resources: AppResources
    ) {
        let resources = try await resources(bundleID: row.bundleID)
        let payload = try? NotificationPayload(json: Data(row.payload.utf8))
        let content = ShownContent(payload)
        let facts = facts(
            id: row.id, bundleID: row.bundleID, payload: payload, communication: content.communication,
            collapseID: row.collapseID, expiry: nil, receivedAt: row.receivedAt, resources: resources
        )
        return (facts, content, resources)
    }

    // MARK: Deciding

    /// Decides `facts` for the device of `context` at `now`; `released` adds the reason of a release
    /// and, when it is delivered, makes it quiet (`Decision.releasedQuietly`).
    ///
    /// A hidden preview's `%u` is the thread's count in the store (`threadCount`, read only when the
    /// preview is hidden), plus one when `isStored` is false (a push decided before its commit).
    /// `display` is computed from `content` (see `NotificationDisplay`).
    ///
    /// `question` is what the app's `willPresent` sees of a notification about to be delivered: when
    /// the app is in front of the unlocked device with no answer fixed by the device state and a live
    /// connection of it answers (`asksForegroundApp`), the app is asked and the decision made with its
    /// answer (none in time: not presented, as for an app without a delegate).
    func decide(
        _ facts: NotificationFacts, content: ShownContent, resources: AppResources, isStored: Bool,
        context: DevicePolicyContext, now: Date, released: ReasonCode? = nil,
        releasedFrom: DecisionRecord.FocusRef? = nil, question: WillPresentQuestion? = nil
    ) async throws -> DecisionToStore {
        var draft = draft(facts, context: context, now: now)
        if let question, asksForegroundApp(draft, context: context) {
            var asked = context
            asked.deviceState.foregroundApp?.willPresent = await hub.willPresent(question)
            draft = self.draft(facts, context: asked, now: now)
        }
        if case .hidden(var hidden) = draft.decision.preview {
            // A count the store cannot give is not worth refusing the push: the notification alone.
            var counted = 0
            do {
                counted = try await store.threadCount(
                    deviceID: context.deviceID, bundleID: facts.bundleID, threadID: facts.threadID)
            } catch {
                logger.warning(
                    "Could not count the thread of a hidden preview; it counts the notification alone",
                    metadata: ["notification.id": "\(facts.id)", "error": "\(error)"])
            }
            hidden.threadCount = max(1, counted + (isStored ? 0 : 1))
            draft.decision.preview = .hidden(hidden)
        }
        return try finish(
            draft, content: content, resources: resources, context: context, released: released,
            releasedFrom: releasedFrom)
    }

    /// The actions a notification's category shows (nil without a registered category or actions).
    private func actions(of facts: NotificationFacts, in resources: AppResources) -> JSONValue? {
        facts.categoryID.flatMap { resources.categories[$0]?.actions }
    }

    /// Whether the foreground app is asked how to present the draft's notification: it is delivered
    /// (not held, not refused), its app is in front of the unlocked device, the device state does
    /// not fix the app's answer, and a live connection of the app answers `willPresent`.
    private func asksForegroundApp(_ draft: Draft, context: DevicePolicyContext) -> Bool {
        let state = context.deviceState
        guard !state.isLocked, let app = state.foregroundApp, app.bundleID == draft.facts.bundleID,
            app.willPresent == nil
        else { return false }
        switch draft.decision.disposition {
        case .alerted, .listedSilently:
            return hub.answersWillPresent(deviceID: context.deviceID, bundleID: app.bundleID)
        case .notDelivered, .heldForFocus, .heldForSummary:
            return false
        }
    }

    /// The pure decision, before the thread count of a hidden preview and the server's reasons.
    private struct Draft {
        var facts: NotificationFacts
        var decision: Decision
        var device: DeviceState
        var focus: ActiveFocus?
    }

    private func draft(_ facts: NotificationFacts, context: DevicePolicyContext, now: Date) -> Draft {
        var device = context.deviceState
        device.hasConnectedSession = hub.hasSession(deviceID: context.deviceID)
        let focus = context.activeFocus(at: now)
        let decision = HeraldPolicy.decide(
            facts, app: app(facts.bundleID), settings: context.settings(for: facts.bundleID),
            preferences: context.preferences,
            focus: focus, summary: context.summary, device: device, now: now
        )
        return Draft(facts: facts, decision: decision, device: device, focus: focus)
    }

    /// Adds the server's reasons, what the device shows and the context, and encodes the decision.
    private func finish(
        _ draft: Draft, content: ShownContent, resources: AppResources, context: DevicePolicyContext,
        released: ReasonCode?, releasedFrom: DecisionRecord.FocusRef?
    ) throws -> DecisionToStore {
        var decision = draft.decision
        var communicationError: String?
        if case .invalid(let message) = content.communication {
            decision.reasons.insert(ServerReason.communicationInvalid)
            communicationError = message
        }
        if let released, !decision.disposition.isHeld {
            // What a hold released does not alert again: listed without a banner or sound.
            decision = decision.releasedQuietly()
            decision.reasons.insert(released)
        }
        let sender = content.communication.content?.sender
        let communicates = sender != nil && !decision.reasons.contains(.communicationNotEntitled)
        let display = NotificationDisplay.make(
            alert: content.alert, communication: communicates ? content.communication.content : nil,
            preview: decision.preview, localizations: resources.localizations,
            locale: draft.device.locale ?? context.preferences.locale
        )
        let stored = DecisionRecord(
            decision: decision,
            context: DecisionRecord.Context(
                focus: draft.focus.map {
                    DecisionRecord.FocusRef(id: $0.mode.id, name: $0.mode.name, kind: $0.mode.kind)
                },
                audioRoute: draft.device.audioRoute,
                releasedFrom: released != nil && !decision.disposition.isHeld ? releasedFrom : nil,
                sender: sender.map { DecisionRecord.SenderRef(name: $0.name, handle: $0.handle) },
                communicationError: communicationError
            ), display: display,
            actions: decision.disposition == .notDelivered ? nil : actions(of: draft.facts, in: resources))
        return DecisionToStore(stored: stored, json: try stored.jsonText())
    }

    /// Decides an accepted push on its arrival (reading the device's context and the app's
    /// resources from the store when they are not cached, and a hidden preview's thread count).
    public func decide(push: AcceptedPush, receivedAt: Date) async throws -> DecisionToStore {
        let context = try await context(deviceID: push.token.deviceID)
        let resources = try await resources(bundleID: push.app.bundleID)
        let content = ShownContent(push.payload)
        let facts = facts(push: push, content: content, receivedAt: receivedAt, resources: resources)
        let question = WillPresentQuestion(
            deviceID: push.token.deviceID, bundleID: push.app.bundleID, identifier: facts.id, isLocal: false,
            trigger: nil, payload: String(decoding: push.rawPayload, as: UTF8.self), date: receivedAt)
        return try await decide(
            facts, content: content, resources: resources, isStored: false, context: context, now: receivedAt,
            question: question)
    }

    /// The hot path: decides an accepted push without suspending when the device's context and the
    /// app's resources are cached and the preview is not hidden (no thread to count) — the usual
    /// case; nil otherwise (then `decide(push:receivedAt:)`), also when the foreground app must be asked.
    public func decideIfCached(push: AcceptedPush, receivedAt: Date) throws -> DecisionToStore? {
        let (context, resources) = cache.withLock { ($0.devices[push.token.deviceID], $0.apps[push.app.bundleID]) }
        guard let context, let resources else { return nil }
        let content = ShownContent(push.payload)
        let facts = facts(push: push, content: content, receivedAt: receivedAt, resources: resources)
        let draft = draft(facts, context: context, now: receivedAt)
        guard !draft.decision.preview.isHidden, !asksForegroundApp(draft, context: context) else { return nil }
        return try finish(
            draft, content: content, resources: resources, context: context, released: nil, releasedFrom: nil)
    }

    private func facts(push: AcceptedPush, content: ShownContent, receivedAt: Date, resources: AppResources)
        -> NotificationFacts
    {
        facts(
            id: APNsID.canonical(push.apnsID), bundleID: push.app.bundleID, payload: push.payload,
            communication: content.communication, collapseID: push.collapseID,
            expiry: NotificationExpiry(push.expiration), receivedAt: receivedAt, resources: resources
        )
    }
}
