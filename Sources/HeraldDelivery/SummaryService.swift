import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers each user's Scheduled Summary: at each summary time, the notifications held for the
/// summary (held at or before that time) are released together as ONE digest through
/// `HeraldStore.releaseSummaries`, which records the summary time in the same transaction — so a
/// time is delivered exactly once, across restarts. The release writes one row per device, not per
/// notification (reads derive the released state), so its cost follows the number of users and
/// devices. Each device's summary event goes to the live hub (streams send `event: summary`) and a
/// `summaryDelivered` event carries the digest.
///
/// At start-up, a user whose last summary time passed while Herald was down (the schedule's
/// `lastDelivery(atOrBefore: now)` is later than the store's last delivery) gets it at once.
///
/// Each pass reports to `progress`, so a move of the manual clock (`ClockController`) can wait
/// until the service has delivered what is due at the new time.
///
/// A summary the store could not release (a full disk, say) is not skipped: it is tried again after
/// a wait on the wall clock (1 s, doubling up to `maximumRetryDelay`, also under a manual clock,
/// which does not move by itself), until it is released; the store's record of the slot keeps it
/// exactly once. Schedules that could not be read are read again the same way.
final class SummaryService: Service, ClockFollowing, ScheduledService {
    private struct SummaryUser: Sendable {
        var schedule: SummarySchedule
        var timeZone: TimeZone
        /// The next summary time to deliver.
        var next: Date?
    }

    private let engine: DeliveryPolicyEngine
    private let policyEvents: PolicyActivityFanOut
    private let logger: Logger
    private let users = HeraldMutex<[String: SummaryUser]>([:])
    private let isDirty = HeraldMutex(false)
    private let wake = WakeSignal()
    let progress = ServiceProgress()
    /// The summaries a pass could not release, to try again (`retryFailed`).
    private let failed = HeraldMutex<[(userID: String, slot: Date)]>([])
    /// Whether the start-up reading of the schedules (and its catching up) is still to be done.
    private let isCatchUpPending = HeraldMutex(false)

    /// The longest wait between two tries of a summary that could not be released.
    static let maximumRetryDelay: Duration = .seconds(10)

    init(engine: DeliveryPolicyEngine, events: PolicyActivityFanOut, logger: Logger) {
        self.engine = engine
        self.policyEvents = events
        self.logger = logger
    }

    /// A user's summary schedule or time zone may have changed: read the schedules again.
    func userStateChanged(_ userID: String) {
        isDirty.withLock { $0 = true }
        wake.signal()
    }

    func followed(through date: Date) async -> Date? {
        await progress.wait(through: date) { wake.signal() }
    }

    /// Runs the scheduler alone (not under `ScheduledServices`) until graceful shutdown.
    func run() async throws {
        try await runAlone()
    }

    func loop() async throws {
        let clock = engine.clock
        var lastCheck = clock.now
        if !(await reload(catchingUp: true, nextAfter: lastCheck)) { isCatchUpPending.withLock { $0 = true } }
        policyEvents.publish(.serviceReady(name: "summary"))
        var retryDelay: Duration = .seconds(1)
        while !Task.isCancelled {
            let deadline = users.withLock { $0.values.compactMap(\.next).min() }
            progress.passed(through: lastCheck, next: deadline)
            // Something to try again: a wake-up on the wall clock too (a manual clock may never move).
            let retry =
                hasWorkToRetry
                ? Task { [wake, retryDelay] in
                    try? await Task.sleep(for: retryDelay)
                    if !Task.isCancelled { wake.signal() }
                } : nil
            await wake.wait(until: deadline, on: clock)
            retry?.cancel()
            if Task.isCancelled { break }
            let now = clock.now
            if hasWorkToRetry {
                await retryFailed(now: now, lastCheck: lastCheck)
                retryDelay = hasWorkToRetry ? min(retryDelay * 2, Self.maximumRetryDelay) : .seconds(1)
            }
            if isDirty.withLock({ dirty in
                defer { dirty = false }
                return dirty
            }) {
                // A time between the last pass and now counts: a schedule set just before its time
                // is not skipped because this pass came a little late.
                await reload(catchingUp: false, nextAfter: lastCheck)
            }
            let due = users.withLock { users in users.filter { $0.value.next.map { $0 <= now } ?? false } }
            var summaries: [(userID: String, slot: Date)] = []
            for (userID, user) in due.sorted(by: { $0.key < $1.key }) {
                if let slot = user.schedule.lastDelivery(atOrBefore: now, in: user.timeZone) {
                    summaries.append((userID, slot))
                }
                users.withLock { $0[userID]?.next = user.schedule.nextDelivery(after: now, in: user.timeZone) }
            }
            await deliver(summaries, now: now)
            lastCheck = now
        }
    }

    private var hasWorkToRetry: Bool {
        !failed.withLock(\.isEmpty) || isCatchUpPending.withLock { $0 }
    }

    /// Tries again what earlier passes could not do: the start-up reading of the schedules, then
    /// the summaries that were not released (in slot order; a slot released meanwhile is not
    /// released twice: the store keeps it once).
    private func retryFailed(now: Date, lastCheck: Date) async {
        if isCatchUpPending.withLock({ $0 }) {
            guard await reload(catchingUp: true, nextAfter: lastCheck) else { return }
            isCatchUpPending.withLock { $0 = false }
        }
        let retrying = failed.withLock { failed in
            defer { failed = [] }
            return failed
        }
        guard !retrying.isEmpty else { return }
        logger.debug("Trying Scheduled Summaries again", metadata: ["summaries": "\(retrying.count)"])
        await deliver(retrying.sorted { ($0.slot, $0.userID) < ($1.slot, $1.userID) }, now: now)
    }

    /// Summaries to try again at a later pass.
    private func retryLater(_ summaries: some Sequence<(userID: String, slot: Date)>) {
        failed.withLock { failed in
            for summary in summaries
            where !failed.contains(where: { $0.userID == summary.userID && $0.slot == summary.slot }) {
                failed.append(summary)
            }
        }
    }

    /// Reads every schedule; the next time of each is the first after `nextAfter`. With
    /// `catchingUp` (start-up), first delivers each user's latest summary time that passed
    /// undelivered (Herald was down at that time). False when the schedules could not be read.
    @discardableResult
    private func reload(catchingUp: Bool, nextAfter: Date) async -> Bool {
        let now = engine.clock.now
        do {
            let records = try await engine.store.usersWithSummary()
            var loaded: [String: SummaryUser] = [:]
            var missed: [(userID: String, slot: Date)] = []
            for record in records {
                var next = record.schedule.nextDelivery(after: nextAfter, in: record.timeZone)
                if catchingUp, let slot = record.schedule.lastDelivery(atOrBefore: now, in: record.timeZone),
                    record.lastDeliveredSlot.map({ $0 < slot }) ?? true
                {
                    missed.append((record.userID, slot))
                    next = record.schedule.nextDelivery(after: now, in: record.timeZone)
                }
                loaded[record.userID] = SummaryUser(schedule: record.schedule, timeZone: record.timeZone, next: next)
            }
            await deliver(missed, now: now)
            users.withLock { $0 = loaded }
            return true
        } catch {
            log(error, "Could not read the summary schedules", [:])
            // Read them again at the next pass (the start-up reading: at the next retry).
            if !catchingUp { isDirty.withLock { $0 = true } }
            return false
        }
    }

    /// Logs a failure: a storage fault only at `debug` (the store logged it once; a full disk must
    /// not write a line per user and retry), anything else as an error.
    private func log(_ error: any Error, _ message: Logger.Message, _ metadata: Logger.Metadata) {
        var metadata = metadata
        metadata["error"] = "\(error)"
        // A read cut short by shutdown (CancellationError) is no fault either.
        logger.log(
            level: error is StorageFaultError || error is CancellationError ? .debug : .error, message,
            metadata: metadata)
    }

    /// How many users' summaries share one store transaction.
    static let batchSize = 2_000

    /// How many users' summaries one read prepares; the reads of a batch run in parallel.
    static let readSize = 250

    /// Releases each user's summary for its slot as one digest (exactly once), many users per store
    /// transaction; a batch that fails is retried user by user, so one bad user does not hold back
    /// the others. The notifications are not rewritten (see `HeraldStore.releaseSummaries`): each
    /// device's summary event goes to the hub, and its sessions read it from the store.
    /// `deliver` at the clock's now (`PolicyCoordinator.deliverSummaries`).
    func deliverNow(_ summaries: [(userID: String, slot: Date)]) async {
        await deliver(summaries, now: engine.clock.now)
    }

    private func deliver(_ summaries: [(userID: String, slot: Date)], now: Date) async {
        // The next batch is prepared (read and ranked) while the store commits this one.
        func preparing(_ start: Int) -> Task<[Prepared], Never>? {
            guard start < summaries.count else { return nil }
            let part = summaries[start..<min(start + Self.batchSize, summaries.count)]
            return Task { await self.prepare(part) }
        }
        var start = 0
        var next = preparing(start)
        while let current = next {
            let batch = await current.value
            start += Self.batchSize
            next = preparing(start)
            guard !batch.isEmpty else { continue }
            do {
                let results = try await engine.store.releaseSummaries(batch.map(\.release), at: now)
                for (item, events) in zip(batch, results) { announce(item, events: events, now: now) }
            } catch {
                for item in batch {
                    do {
                        let events = try await engine.store.releaseSummaries([item.release], at: now)
                        announce(item, events: events.first ?? nil, now: now)
                    } catch {
                        log(error, "Could not deliver a Scheduled Summary", ["user.id": "\(item.release.userID)"])
                        retryLater([(item.release.userID, item.release.slot)])
                    }
                }
            }
        }
    }

    private typealias Prepared = (release: SummaryRelease, digest: SummaryDigest)

    /// Prepares the summaries: `readSize` users per store read, the reads and the ranking of a batch
    /// in parallel, in order; a part that fails is logged and left out (tried again later).
    private func prepare(_ summaries: ArraySlice<(userID: String, slot: Date)>) async -> [Prepared] {
        let parts = stride(from: summaries.startIndex, to: summaries.endIndex, by: Self.readSize).map {
            Array(summaries[$0..<min($0 + Self.readSize, summaries.endIndex)])
        }
        var prepared: [[Prepared]] = Array(repeating: [], count: parts.count)
        await withTaskGroup(of: (Int, [Prepared]).self) { group in
            for (index, part) in parts.enumerated() {
                group.addTask {
                    do {
                        return (index, try await self.prepare(part))
                    } catch {
                        self.log(error, "Could not prepare Scheduled Summaries", ["users": "\(part.count)"])
                        self.retryLater(part)
                        return (index, [])
                    }
                }
            }
            for await (index, items) in group { prepared[index] = items }
        }
        return prepared.flatMap { $0 }
    }

    /// The summaries of some users from one store read: each user's digest and each device's part.
    private func prepare(_ summaries: [(userID: String, slot: Date)]) async throws -> [Prepared] {
        let candidates = try await engine.store.summaryCandidates(summaries)
        return zip(summaries, candidates.users).map { summary, range in
            prepare(
                userID: summary.userID, slot: summary.slot, held: candidates.held[range], horizon: candidates.horizon)
        }
    }

    private func announce(_ item: Prepared, events: [ReleasedSummary]?, now: Date) {
        for event in events ?? [] { engine.hub.publishSummary(deviceID: event.deviceID, seq: event.seq) }
        policyEvents.publish(
            .summaryDelivered(
                SummaryDelivery(
                    userID: item.release.userID, slot: item.release.slot, deliveredAt: now, digest: item.digest,
                    events: events ?? [], wasDeliveredBefore: events == nil
                )))
    }

    /// The user's summary for `slot`: the digest of what was held for it, and each device's part.
    /// The digest ranks by what a summary needs (relevance, media, recency), read by the store.
    private func prepare(userID: String, slot: Date, held: ArraySlice<SummaryCandidate>, horizon: SummaryHorizon)
        -> Prepared
    {
        var facts: [NotificationFacts] = []
        facts.reserveCapacity(held.count)
        for row in held {
            facts.append(
                NotificationFacts(
                    id: row.id, bundleID: row.bundleID, relevanceScore: row.relevanceScore,
                    hasMediaAttachment: row.hasMediaAttachment, receivedAt: row.receivedAt))
        }
        let digest = SummaryDigest.make(from: facts, now: slot)
        // Each device's part, in digest order: a notification id on two devices is two entries.
        // Most users have one device: then every entry is its, with no lookup.
        var parts: [String: DeviceSummary] = [:]
        var order: [String] = []
        if let only = held.first?.deviceID, held.allSatisfy({ $0.deviceID == only }) {
            var part = DeviceSummary(deviceID: only, apps: [], featured: [])
            for app in digest.apps {
                part.apps.append(SummaryAppGroup(bundleID: app.bundleID, ids: app.notifications.map(\.id)))
                if app.isFeatured, let first = app.notifications.first { part.featured.append(first.id) }
            }
            parts[only] = part
            order = [only]
        } else {
            var devicesOf: [String: [String]] = [:]
            devicesOf.reserveCapacity(held.count)
            for row in held { devicesOf[row.id, default: []].append(row.deviceID) }
            for app in digest.apps {
                for (offset, notification) in app.notifications.enumerated() {
                    guard let deviceID = devicesOf[notification.id]?.popLast() else { continue }
                    if parts[deviceID] == nil { order.append(deviceID) }
                    parts[deviceID, default: DeviceSummary(deviceID: deviceID, apps: [], featured: [])]
                        .append(notification.id, bundleID: app.bundleID, isFeatured: offset == 0 && app.isFeatured)
                }
            }
        }
        return (
            SummaryRelease(
                userID: userID, slot: slot, digest: Self.digestJSON(digest), devices: order.compactMap { parts[$0] },
                horizon: horizon
            ), digest
        )
    }

    /// What `summary_deliveries` keeps of a user's digest (each device's part is in its release):
    /// `{"count": …, "apps": …, "featured": [ids]}`.
    private static func digestJSON(_ digest: SummaryDigest) -> String {
        var writer = JSONWriter(capacity: 48 + SummaryDigest.featuredLimit * 40)
        writer.beginObject()
        writer.key("count")
        writer.integer(digest.count)
        writer.key("apps")
        writer.integer(digest.apps.count)
        writer.key("featured")
        writer.beginArray()
        for notification in digest.featured { writer.string(notification.id) }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// What the user's next summary would hold, and when it comes.
    func nextSummaryPreview(userID: String, now: Date) async throws -> SummaryPreview {
        let store = engine.store
        let devices = try await store.devices(userID: userID).map(\.deviceID)
        guard let first = devices.first else { return SummaryPreview(at: nil, digest: .make(from: [], now: now)) }
        let context = try await engine.context(deviceID: first)
        let at = context.summary.nextDelivery(after: now, in: context.preferences.timeZone)
        let held = try await store.heldNotifications(deviceIDs: devices, dispositions: [.heldForSummary])
        var facts: [NotificationFacts] = []
        for row in held { facts.append(try await engine.facts(of: row)) }
        return SummaryPreview(at: at, digest: .make(from: facts, now: at ?? now))
    }
}

private extension DeviceSummary {
    /// Adds a notification of `bundleID` (after the ones already added: digest order).
    mutating func append(_ id: String, bundleID: String, isFeatured: Bool) {
        if apps.last?.bundleID != bundleID { apps.append(SummaryAppGroup(bundleID: bundleID, ids: [])) }
        apps[apps.count - 1].ids.append(id)
        if isFeatured { featured.append(id) }
    }
}
