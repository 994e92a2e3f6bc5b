import Foundation
import HeraldAPI
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers each user's Scheduled Summary: at each summary time, the notifications held for the
/// summary (held at or before that time) are released together as ONE digest through
/// `HeraldStore.releaseSummary`, which records the summary time in the same transaction — so a
/// time is delivered exactly once, across restarts. The released rows go to the live hub and a
/// `summaryDelivered` event carries the digest.
///
/// At start-up, a user whose last summary time passed while Herald was down (the schedule's
/// `lastDelivery(atOrBefore: now)` is later than the store's last delivery) gets it at once.
final class SummaryService: Service {
    private struct SummaryUser: Sendable {
        var schedule: SummarySchedule
        var timeZone: TimeZone
        /// The next summary time to deliver.
        var next: Date?
    }

    private let engine: DeliveryPolicyEngine
    private let events: PolicyEvents
    private let logger: Logger
    private let users = Mutex<[String: SummaryUser]>([:])
    private let isDirty = Mutex(false)
    private let wake = WakeSignal()

    init(engine: DeliveryPolicyEngine, events: PolicyEvents, logger: Logger) {
        self.engine = engine
        self.events = events
        self.logger = logger
    }

    /// A user's summary schedule or time zone may have changed: read the schedules again.
    func userStateChanged(_ userID: String) {
        isDirty.withLock { $0 = true }
        wake.signal()
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await self.loop()
        }
    }

    private func loop() async throws {
        let clock = engine.clock
        var lastCheck = clock.now
        await reload(catchingUp: true, nextAfter: lastCheck)
        events.publish(.serviceReady(name: "summary"))
        while !Task.isCancelled {
            let deadline = users.withLock { $0.values.compactMap(\.next).min() }
            await wake.wait(until: deadline, on: clock)
            if Task.isCancelled { break }
            let now = clock.now
            if isDirty.withLock({ dirty in defer { dirty = false }; return dirty }) {
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

    /// Reads every schedule; the next time of each is the first after `nextAfter`. With
    /// `catchingUp` (start-up), first delivers each user's latest summary time that passed
    /// undelivered (Herald was down at that time).
    private func reload(catchingUp: Bool, nextAfter: Date) async {
        let now = engine.clock.now
        do {
            let records = try await engine.store.usersWithSummary()
            var loaded: [String: SummaryUser] = [:]
            var missed: [(userID: String, slot: Date)] = []
            for record in records {
                var next = record.schedule.nextDelivery(after: nextAfter, in: record.timeZone)
                if catchingUp, let slot = record.schedule.lastDelivery(atOrBefore: now, in: record.timeZone),
                   record.lastDeliveredSlot.map({ $0 < slot }) ?? true {
                    missed.append((record.userID, slot))
                    next = record.schedule.nextDelivery(after: now, in: record.timeZone)
                }
                loaded[record.userID] = SummaryUser(schedule: record.schedule, timeZone: record.timeZone, next: next)
            }
            await deliver(missed, now: now)
            users.withLock { $0 = loaded }
        } catch {
            logger.error("Could not read the summary schedules", metadata: ["error": "\(error)"])
        }
    }

    /// How many users' summaries share one store transaction.
    static let batchSize = 500

    /// Releases each user's summary for its slot as one digest (exactly once), many users per store
    /// transaction; a batch that fails is retried user by user, so one bad user does not hold back
    /// the others.
    private func deliver(_ summaries: [(userID: String, slot: Date)], now: Date) async {
        var prepared: [(release: SummaryRelease, digest: SummaryDigest)] = []
        prepared.reserveCapacity(summaries.count)
        for summary in summaries {
            do {
                prepared.append(try await prepare(userID: summary.userID, slot: summary.slot))
            } catch {
                logger.error("Could not prepare a Scheduled Summary", metadata: ["user.id": "\(summary.userID)", "error": "\(error)"])
            }
        }
        for start in stride(from: 0, to: prepared.count, by: Self.batchSize) {
            let batch = Array(prepared[start..<min(start + Self.batchSize, prepared.count)])
            do {
                let results = try await engine.store.releaseSummaries(batch.map(\.release), at: now)
                for (item, changes) in zip(batch, results) { announce(item, changes: changes, now: now) }
            } catch {
                for item in batch {
                    do {
                        let changes = try await engine.store.releaseSummaries([item.release], at: now)
                        announce(item, changes: changes.first ?? nil, now: now)
                    } catch {
                        logger.error("Could not deliver a Scheduled Summary", metadata: ["user.id": "\(item.release.userID)", "error": "\(error)"])
                    }
                }
            }
        }
    }

    private func announce(_ item: (release: SummaryRelease, digest: SummaryDigest), changes: [StoredNotification]?, now: Date) {
        engine.hub.publish(changes ?? [])
        events.publish(.summaryDelivered(SummaryDelivery(
            userID: item.release.userID, slot: item.release.slot, deliveredAt: now, digest: item.digest,
            changes: changes ?? [], wasDeliveredBefore: changes == nil
        )))
    }

    /// The user's summary for `slot`: the digest of what was held for it, and the new decisions.
    private func prepare(userID: String, slot: Date) async throws -> (release: SummaryRelease, digest: SummaryDigest) {
        let store = engine.store
        let devices = try await store.devices(userID: userID).map(\.deviceID)
        let held = try await store.heldNotifications(deviceIDs: devices, dispositions: [Disposition.heldForSummary.rawValue])
            .filter { $0.receivedAt <= slot }
        var facts: [NotificationFacts] = []
        facts.reserveCapacity(held.count)
        for row in held { facts.append(try await engine.facts(of: row)) }
        let digest = SummaryDigest.make(from: facts, now: slot)
        let featured = Set(digest.featured.map(\.id))
        var releases: [DecisionUpdate] = []
        releases.reserveCapacity(held.count)
        for row in held {
            guard var stored = StoredDecision.read(row) else { continue }
            stored.decision.disposition = .listedSilently
            stored.decision.banner = .none
            stored.decision.sound = .silent
            stored.decision.announce = false
            stored.decision.notificationCenter = true
            stored.decision.reasons.insert(ServerReason.summaryDelivered)
            stored.context.summary = StoredDecision.SummaryRef(
                slotMilliseconds: Int64((slot.timeIntervalSince1970 * 1000).rounded()), isFeatured: featured.contains(row.id)
            )
            releases.append(DecisionUpdate(
                deviceID: row.deviceID, id: row.id, disposition: Disposition.listedSilently.rawValue, decision: try stored.jsonText()
            ))
        }
        let digestJSON = String(decoding: try JSONEncoder().encode(digest), as: UTF8.self)
        return (SummaryRelease(userID: userID, slot: slot, digest: digestJSON, releases: releases), digest)
    }

    /// What the user's next summary would hold, and when it comes.
    func nextSummaryPreview(userID: String, now: Date) async throws -> SummaryPreview {
        let store = engine.store
        let devices = try await store.devices(userID: userID).map(\.deviceID)
        guard let first = devices.first else { return SummaryPreview(at: nil, digest: .make(from: [], now: now)) }
        let context = try await engine.context(deviceID: first)
        let at = context.summary.nextDelivery(after: now, in: context.preferences.timeZone)
        let held = try await store.heldNotifications(deviceIDs: devices, dispositions: [Disposition.heldForSummary.rawValue])
        var facts: [NotificationFacts] = []
        for row in held { facts.append(try await engine.facts(of: row)) }
        return SummaryPreview(at: at, digest: .make(from: facts, now: at ?? now))
    }
}
