import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import HeraldTriggers
import Logging
import ServiceLifecycle
import Synchronization

/// Apps' local notifications at work (`UNUserNotificationCenter.add`): a request without a trigger
/// is decided and put into the device's list at once; one with a trigger waits in the store until
/// this service — the trigger scheduler — fires it at its time, decided then like a push arriving
/// then (levels, Focus, Scheduled Summary, previews, announce: the same `DeliveryPolicyEngine`).
///
/// Durable and exactly once: the pending requests are the store's (`LocalNotificationStore`), and a
/// firing commits the notification together with the request's next fire date (or its removal) in
/// one transaction. A request that came due while Herald was down fires once at start-up; a
/// repeating one then continues from its next date after now (missed periods are not made up).
///
/// It follows the injected clock like the Focus and summary services (`ClockFollowing`), so a move
/// of the manual clock fires each request at its own time.
public final class LocalNotificationService: Service, ClockFollowing, ScheduledService {
    /// Apple keeps at most 64 pending requests per app ("the system keeps the soonest-firing 64";
    /// Herald keeps the most recently added 64, as the issue and most accounts describe it).
    public static let pendingLimit = 64
    /// How many due requests one store read takes.
    static let batchSize = 256

    /// Why an app may not add a request.
    public enum Refusal: Error, Hashable, Sendable {
        /// The person denied the app's notifications, or was never asked (`UNError.notificationsNotAllowed`).
        case notificationsNotAllowed(AuthorizationStatus)
    }

    /// What adding a request did.
    public enum Added: Sendable {
        /// Delivered at once (no trigger): the changes it made to the device's list, the new
        /// notification last.
        case delivered([StoredNotification])
        /// Scheduled: the pending request as stored, and the app's requests dropped for the limit.
        case scheduled(LocalRequestRecord, dropped: [String])
    }

    private let engine: DeliveryPolicyEngine
    private let logger: Logger
    private let wake = WakeSignal()
    let progress = ServiceProgress()
    /// Tells the other nodes sharing the database (nil: none) — the leader's scheduler among them.
    private let broadcast: (@Sendable (SharedInvalidation) async -> Void)?

    init(engine: DeliveryPolicyEngine, logger: Logger, broadcast: (@Sendable (SharedInvalidation) async -> Void)?) {
        self.engine = engine
        self.logger = logger
        self.broadcast = broadcast
    }

    private var store: any HeraldStore { engine.store }

    /// The calendar a device's calendar triggers match in (Gregorian, the device's time zone).
    public func calendar(deviceID: String) async throws -> Calendar {
        let context = try await engine.context(deviceID: deviceID)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = context.calendarTimeZone
        return calendar
    }

    /// Adds the app's request: `payload` is the APNs-shaped payload made from `content` (the app
    /// API's content JSON). Refused (`Refusal`) when the app's notifications are not allowed.
    public func add(
        deviceID: String, bundleID: String, identifier: String, content: String, payload: String,
        trigger: LocalTrigger?
    ) async throws -> Added {
        let context = try await engine.context(deviceID: deviceID)
        let status = context.settings(for: bundleID).authorizationStatus
        guard status != .denied, status != .notDetermined else { throw Refusal.notificationsNotAllowed(status) }
        let now = engine.clock.now
        guard let trigger else {
            var row = try await decided(
                deviceID: deviceID, bundleID: bundleID, identifier: identifier, payload: payload, trigger: nil, at: now)
            row.attachments = NotificationAttachment.inContent(content)
            let changes = try await store.deliverLocal([
                LocalDelivery(
                    identifier: identifier, notification: row, firedRevision: nil, nextFireAt: nil, trigger: nil)
            ])
            engine.hub.publish(changes)
            return .delivered(changes)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = context.calendarTimeZone
        let request = LocalRequestRecord(
            deviceID: deviceID, bundleID: bundleID, identifier: identifier, content: content, payload: payload,
            trigger: trigger.jsonText, addedAt: now, nextFireAt: trigger.firstFireDate(addedAt: now, calendar: calendar)
        )
        let (stored, dropped) = try await store.addLocalRequest(request, limit: Self.pendingLimit)
        // This node's scheduler, or the leader's on another node, reads its next time again.
        wake.signal()
        await broadcast?(.pendingRequests(deviceID))
        return .scheduled(stored, dropped: dropped)
    }

    /// The device reported a new location (`from`: where it was, nil when unknown — taken as
    /// outside every region): every pending location request of the device whose region it entered
    /// or left, as the region asks, fires now — once, or again at each crossing when it repeats.
    /// Returns the notifications delivered.
    @discardableResult
    public func deviceMoved(deviceID: String, from old: DeviceLocation?, to new: DeviceLocation) async throws
        -> [StoredNotification]
    {
        let requests = try await store.locationRequests(deviceID: deviceID)
        guard !requests.isEmpty else { return [] }
        let before = old.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        let after = Coordinate(latitude: new.latitude, longitude: new.longitude)
        let now = engine.clock.now
        var deliveries: [LocalDelivery] = []
        for request in requests {
            guard case .location(let region, let repeats)? = try? LocalTrigger(jsonText: request.trigger),
                region.crossing(from: before, to: after) != nil
            else { continue }
            var row = try await decided(
                deviceID: deviceID, bundleID: request.bundleID, identifier: request.identifier,
                payload: request.payload, trigger: request.trigger, at: now)
            row.attachments = NotificationAttachment.inContent(request.content)
            deliveries.append(
                LocalDelivery(
                    identifier: request.identifier, notification: row, firedRevision: request.revision,
                    nextFireAt: nil, trigger: request.trigger, keepsRequest: repeats))
        }
        let changes = try await store.deliverLocal(deliveries)
        engine.hub.publish(changes)
        return changes
    }

    /// Pending requests were removed (or, on another node, added): the scheduler reads its next time
    /// again.
    public func requestsChanged() {
        wake.signal()
    }

    /// The list entry of a local notification at `date`, decided.
    private func decided(
        deviceID: String, bundleID: String, identifier: String, payload: String, trigger: String?, at date: Date
    ) async throws -> StoredNotification {
        let id = LocalNotificationID.make(bundleID: bundleID, identifier: identifier)
        let parsed = try? NotificationPayload(json: Data(payload.utf8))
        let question = WillPresentQuestion(
            deviceID: deviceID, bundleID: bundleID, identifier: identifier, isLocal: true, trigger: trigger,
            payload: payload, date: date)
        let decision = try await engine.decide(
            localNotification: parsed, id: id, deviceID: deviceID, bundleID: bundleID, at: date, question: question)
        var row = StoredNotification(
            seq: 0, id: id, deviceID: deviceID, bundleID: bundleID, topic: bundleID, pushType: .alert, priority: 10,
            collapseID: nil, expiration: nil, payload: payload, receivedAt: date,
            deliveredAt: engine.hub.hasSession(deviceID: deviceID) ? date : nil)
        row.setDecision(decision.stored, json: decision.json)
        return row
    }

    // MARK: The scheduler

    func followed(through date: Date) async -> Date? {
        await progress.wait(through: date) { wake.signal() }
    }

    /// Runs the scheduler alone (not under `ScheduledServices`) until graceful shutdown.
    public func run() async throws {
        try await runAlone()
    }

    func loop() async throws {
        let clock = engine.clock
        var retryDelay: Duration = .seconds(1)
        while !Task.isCancelled {
            let now = clock.now
            var failed = false
            do {
                try await fire(through: now)
                retryDelay = .seconds(1)
            } catch is CancellationError {
                break
            } catch {
                failed = true
                logger.log(
                    level: error is StorageFaultError ? .debug : .error, "Could not fire local notifications",
                    metadata: ["error": "\(error)"])
            }
            let next = try? await store.nextLocalRequestFireDate()
            progress.passed(through: now, next: next)
            // A pass that failed (a full disk) is tried again on the wall clock: a manual clock may never move.
            let retry =
                failed
                ? Task { [wake, retryDelay] in
                    try? await Task.sleep(for: retryDelay)
                    if !Task.isCancelled { wake.signal() }
                } : nil
            if failed { retryDelay = min(retryDelay * 2, .seconds(10)) }
            await wake.wait(until: next, on: clock)
            retry?.cancel()
        }
    }

    /// Fires every pending request due at or before `now`, a batch at a time.
    func fire(through now: Date) async throws {
        var calendars: [String: Calendar] = [:]
        while true {
            let due = try await store.dueLocalRequests(through: now, limit: Self.batchSize)
            if due.isEmpty { return }
            var deliveries: [LocalDelivery] = []
            for request in due {
                let calendar: Calendar
                if let known = calendars[request.deviceID] {
                    calendar = known
                } else {
                    calendar = try await self.calendar(deviceID: request.deviceID)
                    calendars[request.deviceID] = calendar
                }
                let scheduled = request.nextFireAt ?? now
                // A trigger this version cannot read fires this once and is removed.
                let next = (try? LocalTrigger(jsonText: request.trigger))?.nextFireDate(
                    afterFiringAt: scheduled, now: now, calendar: calendar)
                var row = try await decided(
                    deviceID: request.deviceID, bundleID: request.bundleID, identifier: request.identifier,
                    payload: request.payload, trigger: request.trigger, at: now)
                row.attachments = NotificationAttachment.inContent(request.content)
                deliveries.append(
                    LocalDelivery(
                        identifier: request.identifier, notification: row, firedRevision: request.revision,
                        nextFireAt: next, trigger: request.trigger, firedFireDate: request.nextFireAt))
            }
            let changes = try await store.deliverLocal(deliveries)
            engine.hub.publish(changes)
            if due.count < Self.batchSize { return }
        }
    }
}

extension DeliveryPolicyEngine {
    /// Decides a local notification of `bundleID` on the device at `date`, as a push arriving then
    /// (`payload` nil: one whose payload could not be read, decided without content).
    func decide(
        localNotification payload: NotificationPayload?, id: String, deviceID: String, bundleID: String,
        at date: Date, question: WillPresentQuestion
    )
        async throws -> DecisionToStore
    {
        let context = try await context(deviceID: deviceID)
        let resources = try await resources(bundleID: bundleID)
        let content = ShownContent(payload)
        let facts = facts(
            id: id, bundleID: bundleID, payload: payload, communication: content.communication, collapseID: nil,
            expiry: nil, receivedAt: date, resources: resources)
        return try await decide(
            facts, content: content, resources: resources, isStored: false, context: context, now: date,
            question: question)
    }
}
