// herald-trigger-bench: how late apps' local notifications fire, and what a million pending ones cost
// the server's memory (scripts/bench-triggers; a benchmark, not a test).
//
// 1. Lateness: a temporary SQLite store (the server's `SQLiteStore`, WAL, synchronous = FULL) with
//    `pending` requests spread over `devices` devices × 8 apps (at most 64 per app and device, as
//    Apple allows), due one after another at an even rate over `window` seconds on the wall clock; the
//    server's trigger scheduler (`LocalNotificationService`, through `PolicyCoordinator`) fires them,
//    deciding each with the real delivery policy and committing it with its request's removal. A
//    notification is late by the time from its trigger's fire date until it is committed and
//    published (what a device's stream sees).
// 2. Memory: `herald serve` (the release binary) on a data directory holding `memoryPending` requests
//    due in a day, and 1,000 due a few seconds after it starts; its resident memory (VmRSS, sampled
//    every 100 ms for 15 s, while the 1,000 fire) next to the same server on an empty data directory.
//
//   herald-trigger-bench [--pending N] [--window S] [--memory-pending N] [--herald PATH] [--markdown]
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import HeraldTriggers
import Logging
import ServiceLifecycle
import Synchronization

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
let pending = option("--pending").flatMap(Int.init) ?? 100_000
let window = option("--window").flatMap(Double.init) ?? 100
let memoryPending = option("--memory-pending").flatMap(Int.init) ?? 1_000_000
let heraldBinary = option("--herald") ?? ".build/release/herald"
let markdown = arguments.contains("--markdown")

let appIDs = (0..<8).map { "com.example.app\($0)" }
let perDevice = appIDs.count * 64

func report(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// A store with a team, the apps, and `devices` users with one device each.
func seededStore(path: String, devices: Int) async throws -> SQLiteStore {
    let store = try SQLiteStore(path: path)
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    try await store.createTeam(Team(teamID: "TEAM123456", name: "Bench", createdAt: epoch))
    for id in appIDs {
        try await store.createApp(
            App(bundleID: id, teamID: "TEAM123456", name: id, entitlements: Entitlements(), createdAt: epoch))
    }
    for index in 0..<devices {
        try await store.createUser(
            User(userID: "user\(index)", name: "User \(index)", createdAt: epoch),
            tokenDigest: String(format: "%064x", index))
        try await store.createDevice(
            Device(deviceID: "device\(index)", userID: "user\(index)", name: "Phone", createdAt: epoch))
    }
    return store
}

/// `count` requests over the devices and apps, the i-th due at `fireDate(i)`.
func requests(count: Int, addedAt: Date, fireDate: (Int) -> Date) -> [LocalRequestRecord] {
    let trigger = LocalTrigger.timeInterval(3600, repeats: false).jsonText
    return (0..<count).map { index in
        let device = index / perDevice
        let app = appIDs[(index % perDevice) / 64]
        return LocalRequestRecord(
            deviceID: "device\(device)", bundleID: app, identifier: "r\(index)",
            content: #"{"body":"Reminder \#(index)"}"#,
            payload: #"{"aps":{"alert":{"title":"Reminder","body":"Reminder \#(index)"},"sound":"default"}}"#,
            trigger: trigger, addedAt: addedAt, nextFireAt: fireDate(index))
    }
}

/// Where committed local notifications go: each one's lateness against its fire date.
final class LatenessRecorder: LiveSessions {
    let fireDates: [String: Date]
    private let latenesses = Mutex<[Double]>([])
    private let done: AsyncStream<Void>.Continuation
    let finished: AsyncStream<Void>

    init(fireDates: [String: Date]) {
        self.fireDates = fireDates
        (finished, done) = AsyncStream.makeStream(of: Void.self)
    }

    func hasSession(deviceID: String) -> Bool { false }
    func publishSummary(deviceID: String, seq: Int64) {}
    func answersWillPresent(deviceID: String, bundleID: String) -> Bool { false }
    func willPresent(_ question: WillPresentQuestion) async -> PresentationOptions? { nil }

    func publish(_ changes: [StoredNotification]) {
        let now = Date()
        let count = latenesses.withLock { values -> Int in
            for change in changes {
                if let due = fireDates[change.id] { values.append(now.timeIntervalSince(due) * 1000) }
            }
            return values.count
        }
        if count >= fireDates.count { done.yield() }
    }

    var values: [Double] { latenesses.withLock { $0 } }

    /// Ends `finished` (the bench gives up waiting).
    func giveUp() { done.finish() }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[max(0, min(sorted.count - 1, rank - 1))]
}

// MARK: 1. Lateness

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-trigger-bench-\(UUID())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let devices = (pending + perDevice - 1) / perDevice
let store = try await seededStore(path: directory.appendingPathComponent("lateness.sqlite").path, devices: devices)
// Whole milliseconds, as the store keeps them.
let startMilliseconds = (Date().timeIntervalSince1970 * 1000).rounded(.down) + 15_000
let start = Date(timeIntervalSince1970: startMilliseconds / 1000)
let spacingMilliseconds = window * 1000 / Double(pending)
let seedClock = ContinuousClock()
let seedStart = seedClock.now
let seeded = requests(count: pending, addedAt: Date()) {
    Date(timeIntervalSince1970: (startMilliseconds + (Double($0) * spacingMilliseconds).rounded(.down)) / 1000)
}
try await store.seedLocalRequests(seeded)
try await store.checkpointLog()
report(
    "lateness: seeded \(pending) requests on \(devices) devices × \(appIDs.count) apps in \(String(format: "%.1f", seconds(seedClock.now - seedStart))) s"
)
guard Date() < start.addingTimeInterval(-2) else { throw BenchError(description: "seeding took too long") }
var fireDates: [String: Date] = [:]
for request in seeded {
    fireDates[LocalNotificationID.make(bundleID: request.bundleID, identifier: request.identifier)] =
        request.nextFireAt!
}
let recorder = LatenessRecorder(fireDates: fireDates)
var logger = Logger(label: "herald-trigger-bench")
logger.logLevel = .warning
let policy = try await PolicyCoordinator.make(store: store, hub: recorder, clock: SystemClock(), logger: logger)
// The store's own background work runs as in the server (the write-ahead log's checkpoints off the
// commit path), and the scheduler.
let background = store.backgroundServices.map { service in Task { try await service.run() } }
let scheduler = Task { try await policy.localNotifications.run() }
let deadline = Task {
    try await Task.sleep(for: .seconds(window + 120))
    recorder.giveUp()
}
for await _ in recorder.finished { break }
deadline.cancel()
scheduler.cancel()
for task in background { task.cancel() }
let latenesses = recorder.values.sorted()
let remaining = try await store.nextLocalRequestFireDate()
guard latenesses.count == pending, remaining == nil else {
    throw BenchError(
        description: "fired \(latenesses.count) of \(pending); still pending: \(remaining.map { "\($0)" } ?? "none")")
}
let p50 = percentile(latenesses, 50), p99 = percentile(latenesses, 99), worst = latenesses.last ?? .nan
report(
    "lateness: \(pending) fired over \(Int(window)) s (\(Int(Double(pending) / window))/s): p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms, max \(String(format: "%.1f", worst)) ms"
)
try await store.close()

// MARK: 2. Memory with a million pending

guard memoryPending > 0 else {
    report("memory: skipped (--memory-pending 0)")
    exit(0)
}

/// The largest VmRSS of `pid` (KiB) sampled every 100 ms for `seconds`.
func peakRSS(pid: Int32, seconds: Double) async throws -> Int {
    var peak = 0
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        {
            peak = max(peak, kib)
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    return peak
}

/// Starts `herald serve` on `data`, waits until it listens, samples its memory, stops it.
func serverRSS(data: URL) async throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: heraldBinary)
    process.arguments = [
        "serve", "--data", data.path, "--no-demo", "--api-port", "0", "--apns-port", "0", "--no-tls", "--log-level",
        "warning",
    ]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let runtime = data.appendingPathComponent("runtime.json")
    for _ in 0..<600 where !FileManager.default.fileExists(atPath: runtime.path) {
        try await Task.sleep(for: .milliseconds(100))
    }
    guard FileManager.default.fileExists(atPath: runtime.path) else {
        process.terminate()
        throw BenchError(description: "herald serve did not start on \(data.path)")
    }
    let peak = try await peakRSS(pid: process.processIdentifier, seconds: 15)
    process.terminate()
    process.waitUntilExit()
    return peak
}

let emptyData = directory.appendingPathComponent("empty")
let emptyRSS = try await serverRSS(data: emptyData)

let million = directory.appendingPathComponent("million")
try FileManager.default.createDirectory(at: million, withIntermediateDirectories: true)
let memoryDevices = (memoryPending + perDevice - 1) / perDevice
let bigStore = try await seededStore(path: million.appendingPathComponent("herald.sqlite").path, devices: memoryDevices)
let dueSoon = 1_000
let bulkStart = seedClock.now
let later = Date().addingTimeInterval(86_400)
let all = requests(count: memoryPending, addedAt: Date()) { later.addingTimeInterval(Double($0) * 0.01) }
for chunk in stride(from: 0, to: all.count, by: 100_000) {
    try await bigStore.seedLocalRequests(Array(all[chunk..<min(all.count, chunk + 100_000)]))
}
try await bigStore.checkpointLog()
let databaseMegabytes =
    Double(
        (try? FileManager.default.attributesOfItem(atPath: million.appendingPathComponent("herald.sqlite").path)[.size]
            as? Int) ?? 0) / 1e6
report(
    "memory: seeded \(memoryPending) requests (\(String(format: "%.0f", databaseMegabytes)) MB) in \(String(format: "%.1f", seconds(seedClock.now - bulkStart))) s"
)
// 1,000 more on the first device, due 8–9 s from now: while the server runs (it starts within a
// second or two and is sampled for 15 s).
let soon = Date().addingTimeInterval(8)
let extra = (0..<dueSoon).map { index in
    LocalRequestRecord(
        deviceID: "device0", bundleID: appIDs[index % appIDs.count], identifier: "soon\(index)",
        content: #"{"body":"soon"}"#,
        payload: #"{"aps":{"alert":{"body":"soon"}}}"#, trigger: LocalTrigger.timeInterval(60, repeats: false).jsonText,
        addedAt: Date(), nextFireAt: soon.addingTimeInterval(Double(index) / 1000))
}
try await bigStore.seedLocalRequests(extra)
try await bigStore.close()
let millionRSS = try await serverRSS(data: million)
let after = try SQLiteStore(path: million.appendingPathComponent("herald.sqlite").path)
let firedSoon = try await after.notifications(deviceID: "device0", after: 0, limit: 2_000, now: Date()).count
try await after.close()
guard firedSoon == dueSoon else {
    throw BenchError(description: "of the \(dueSoon) due while serving, \(firedSoon) fired")
}
report(
    "memory: herald serve peak RSS \(emptyRSS / 1024) MiB on an empty data directory, \(millionRSS / 1024) MiB with \(memoryPending) pending (the \(dueSoon) due meanwhile fired)"
)

if markdown {
    print(
        """
        ## Local notification triggers

        `scripts/bench-triggers` (`herald-trigger-bench --pending \(pending) --window \(Int(window)) --memory-pending \(memoryPending)`, release build).

        | Measure | Result | Target |
        |---|---|---|
        | \(pending.formatted()) pending time-interval triggers due at an even rate over \(Int(window)) s (\(Int(Double(pending) / window).formatted())/s), \(devices) devices × \(appIDs.count) apps: lateness from the fire date to commit + publish, p50 | \(String(format: "%.1f", p50)) ms | |
        | the same, p99 | \(String(format: "%.1f", p99)) ms | under 50 ms |
        | the same, max | \(String(format: "%.1f", worst)) ms | |
        | `herald serve` peak resident memory, empty data directory | \(emptyRSS / 1024) MiB | |
        | `herald serve` peak resident memory with \(memoryPending.formatted()) pending requests (\(String(format: "%.0f", databaseMegabytes)) MB database), while \(dueSoon.formatted()) more fire | \(millionRSS / 1024) MiB | bounded |

        The lateness run uses the server's `LocalNotificationService` through `PolicyCoordinator` on a
        temporary `SQLiteStore` (WAL, synchronous = FULL), deciding each notification with the real
        delivery policy and committing it with its request's removal, on the wall clock. The memory run
        starts the release `herald serve` on the seeded data directory and samples VmRSS every 100 ms for
        15 s: the scheduler reads only the earliest fire date and the due requests (256 at a time),
        never the pending set, so memory does not follow the number pending.
        """)
}
