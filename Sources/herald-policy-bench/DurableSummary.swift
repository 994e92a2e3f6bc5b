// The durable Scheduled Summary release: a temporary SQLite store (the server's `SQLiteStore`, WAL,
// synchronous = FULL) with `users` users, one device each, `perUser` notifications held for the
// summary each; then the summary time comes for all of them at once and the server's summary
// service (`PolicyCoordinator.deliverSummaries`, the code `SummaryService` runs at the time) reads,
// ranks, commits and publishes every digest.
import Foundation
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Logging

struct DurableSummaryFigures {
    var users: Int
    var perUser: Int
    var seedSeconds: Double
    /// From the summary time until every digest is committed and published.
    var releaseSeconds: Double
    var digests: Int
    var released: Int
    /// The same summaries delivered again (nothing changes: exactly once).
    var againSeconds: Double
    var deliveredAgain: Int
    /// One session reading its summary event from the store (what a stream does on the event).
    var eventReadMilliseconds: Double
    var databaseMegabytes: Double
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

func durableSummaryBenchmark(users: Int, perUser: Int, seed: UInt64) async throws -> DurableSummaryFigures {
    var rng = SplitMix64(seed: seed)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "herald-policy-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let keep = ProcessInfo.processInfo.environment["HERALD_POLICY_BENCH_KEEP"] != nil
    defer {
        if !keep {
            try? FileManager.default.removeItem(at: directory)
        } else {
            FileHandle.standardError.write(Data("kept \(directory.path)\n".utf8))
        }
    }
    let path = directory.appendingPathComponent("herald.sqlite").path
    let store = try SQLiteStore(path: path)
    let clock = ContinuousClock()

    // Seed through the store's public API: a team, the apps, users with a device, held notifications.
    let seedStart = clock.now
    try await store.createTeam(Team(teamID: "TEAM123456", name: "Bench", createdAt: epoch))
    for app in apps { try await store.createApp(app) }
    for user in 0..<users {
        try await store.createUser(
            User(userID: "user\(user)", name: "User \(user)", createdAt: epoch),
            tokenDigest: String(format: "%064x", user))
        try await store.createDevice(
            Device(deviceID: "device\(user)", userID: "user\(user)", name: "Phone", createdAt: epoch))
    }
    let heldDecision = DecisionRecord(
        decision: Decision(disposition: .heldForSummary, effectiveLevel: .active, reasons: [.summaryHeld]),
        context: DecisionRecord.Context(audioRoute: .none)
    )
    var batch: [StoredNotification] = []
    batch.reserveCapacity(10_000)
    for user in 0..<users {
        for index in 0..<perUser {
            let appIndex = Int.random(in: 0..<8, using: &rng)
            let relevance = Double(Int.random(in: 0...10, using: &rng)) / 10
            let payload =
                #"{"aps":{"alert":{"title":"App \#(appIndex)","body":"Message \#(index) for user \#(user)"},"relevance-score":\#(relevance),"thread-id":"t\#(index % 5)"}}"#
            batch.append(
                StoredNotification(
                    seq: 0, id: "u\(user)n\(index)", deviceID: "device\(user)", bundleID: bundleIDs[appIndex],
                    topic: bundleIDs[appIndex], pushType: .alert, priority: 10, collapseID: nil, expiration: nil,
                    payload: payload,
                    receivedAt: epoch.addingTimeInterval(Double(Int.random(in: 0..<36_000, using: &rng))),
                    decision: heldDecision
                ))
            if batch.count == 10_000 {
                _ = try await store.insert(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }
    if !batch.isEmpty { _ = try await store.insert(batch) }
    // The seed's log is written back before the summary time (counted with the seed): the release
    // is measured on a store at rest, as a server's is between pushes, not sharing the disk with a
    // 758 MB write-back of the bulk load (which made the figure swing between 1.8 and 2.4 s).
    try await store.checkpointLog()
    let seedSeconds = seconds(clock.now - seedStart)

    // The server's policy on that store, a live session per device, and the summary time come.
    let slot = epoch.addingTimeInterval(36_000)
    let hub = LiveHub()
    let sessions = (0..<users).map { hub.subscribe(deviceID: "device\($0)") }
    var logger = Logger(label: "herald-policy-bench")
    logger.logLevel = .warning
    let policy = try await PolicyCoordinator.make(store: store, hub: hub, clock: ManualClock(now: slot), logger: logger)
    let summaries = (0..<users).map { (userID: "user\($0)", slot: slot) }

    let events = policy.events.subscribe()
    let releaseStart = clock.now
    await policy.deliverSummaries(summaries)
    let releaseSeconds = seconds(clock.now - releaseStart)
    var digests = 0, released = 0, deliveredAgain = 0
    for await event in events {
        guard case .summaryDelivered(let delivery) = event else { continue }
        digests += 1
        released += delivery.digest.count
        if digests == users { break }
    }

    // Exactly once: the same summaries again change nothing.
    let again = policy.events.subscribe()
    let againStart = clock.now
    await policy.deliverSummaries(summaries)
    let againSeconds = seconds(clock.now - againStart)
    var seen = 0
    for await event in again {
        guard case .summaryDelivered(let delivery) = event else { continue }
        seen += 1
        if !delivery.wasDeliveredBefore { deliveredAgain += 1 }
        if seen == users { break }
    }

    // Check what a client sees, and time one session's read of its summary event.
    let readStart = clock.now
    let feed = try await store.summaryEvents(deviceID: "device0", after: 0, through: nil, limit: 10)
    let eventReadMilliseconds = seconds(clock.now - readStart) * 1000
    let listed = try await store.notifications(deviceID: "device\(users - 1)", after: 0, limit: perUser, now: slot)
    let stillHeld = try await store.heldNotifications(deviceIDs: ["device0"], dispositions: [.heldForSummary])
    guard feed.count == 1, feed[0].notifications.count == perUser,
        listed.count == perUser, listed.allSatisfy({ $0.disposition == .listedSilently && $0.releasedAt == slot }),
        stillHeld.isEmpty, digests == users, released == users * perUser, deliveredAgain == 0
    else {
        throw BenchError(
            description:
                "the durable release did not show as released (events \(feed.count), listed \(listed.count), held \(stillHeld.count), digests \(digests), released \(released), again \(deliveredAgain))"
        )
    }
    withExtendedLifetime(sessions) {}
    try await store.close()
    let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.doubleValue ?? 0
    return DurableSummaryFigures(
        users: users, perUser: perUser, seedSeconds: seedSeconds, releaseSeconds: releaseSeconds, digests: digests,
        released: released, againSeconds: againSeconds, deliveredAgain: deliveredAgain,
        eventReadMilliseconds: eventReadMilliseconds, databaseMegabytes: bytes / 1_000_000
    )
}

/// A held-for-summary decision as the push pipeline stores it (the `Decision` and its `context`).
