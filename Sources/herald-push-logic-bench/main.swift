// herald-push-logic-bench: what Herald's own logic costs a push when nothing else does — the token
// check, the payload's parse and APNs validation, the rate limit and expiry rules, the delivery
// decision and the stored row, on one thread with warm caches. scripts/bench sets it beside the
// HTTP/2 floor (`herald-h2-floor`) and the profile's durable-store work: together they are a lower
// bound of a push's CPU, whatever the thread hand-offs, the fan-out and the event loops cost.
//
// It runs the server's own `PushService.handle` (the function the APNs listener calls, the one
// `herald serve` runs) on a fresh data directory with the demo setup, the demo device unlocked (as
// scripts/profile-push and scripts/bench have it), and the same request each time: the demo
// device's path, `apns-topic`, `apns-push-type: alert` and the provider token, and the bench's
// 188-byte alert (or the body of `--payload FILE`). The server's group commit stores them on its
// own threads; only the calling thread's CPU time counts. The tool fails unless every push was
// accepted (200) once stored.
//
//   herald-push-logic-bench [--pushes 20000] [--rounds 9] [--payload FILE]
//
// Prints one JSON line: the CPU time of the calling thread per push (`us_per_push`: the median
// round; `min_us_per_push`, `rounds`) and the inputs.
import CoreFoundation
import Foundation
import HeraldAPI
import HeraldAPNs
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

/// The data directory of this run: removed on the way out, failed or not.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "herald-push-logic-\(ProcessInfo.processInfo.processIdentifier)")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("herald-push-logic-bench: \(message)\n".utf8))
    try? FileManager.default.removeItem(at: directory)
    exit(1)
}

/// The CPU time the calling thread has used, in seconds.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let pushesPerRound = option("--pushes").flatMap(Int.init) ?? 20_000
let rounds = option("--rounds").flatMap(Int.init) ?? 9
guard pushesPerRound > 0, rounds > 0 else { fail("--pushes and --rounds must be positive") }
// scripts/profile-push's and scripts/bench's alert, or the body of --payload.
var payload = Array(
    #"{"aps":{"alert":{"title":"Herald","subtitle":"Benchmark","body":"A push from h2load to the demo device."},"badge":1,"sound":"default","thread-id":"bench","category":"message"},"bench":"x"}"#
        .utf8)
if let path = option("--payload") {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    payload = [UInt8](data)
}

let logger = {
    var logger = Logger(label: "herald-push-logic-bench")
    logger.logLevel = .warning
    return logger
}()
let app = try await HeraldApplication.make(
    configuration: HeraldConfiguration(dataDirectory: directory.path), logger: logger)
guard let demo = app.demo, let token = try app.demoProviderToken() else { fail("no demo setup") }

// The demo device unlocked: previews shown, so a decision reads nothing from the store.
var state = try await app.store.deviceState(deviceID: demo.deviceID) ?? DeviceState()
state.isLocked = false
try await app.store.setDeviceState(state, deviceID: demo.deviceID)
await app.policy.deviceStateChanged(deviceID: demo.deviceID)

// The server's group commit on the same store: it commits on threads of its own (the writer's and
// its delivery queue's), so the figure is the calling thread's work alone, and each push's answer
// says it was stored.
let writer = NotificationWriter(store: app.store) { _ in }
let writing = Task { try await writer.run() }
let service = PushService(
    registry: app.registry.cache, writer: writer, hub: app.hub, policy: app.policy.engine, deviceRateLimit: 0,
    now: { Date() }, logger: logger)
let request = APNsRequest(
    method: "POST", path: "/3/device/\(demo.deviceToken)",
    headers: [
        (name: "apns-topic", value: demo.topic), (name: "apns-push-type", value: "alert"),
        (name: "authorization", value: "bearer \(token)"),
    ],
    body: payload)
let connection = APNsConnection()

// Warm up: the device's policy context and the app's resources are read into the engine's cache
// (as the first push of a server does), and the connection's provider token is verified once.
let validated = connection.auth.withLock { auth in
    PushValidator.validate(request, auth: &auth, registry: app.registry.cache.snapshot, apnsID: "warm-up", now: Date())
}
guard case .success(let push) = validated else { fail("the demo push is refused: \(validated)") }
_ = try await app.policy.engine.decide(push: push, receivedAt: Date())
guard try app.policy.engine.decideIfCached(push: push, receivedAt: Date()) != nil else {
    fail("the decision still reads the store after the warm-up")
}

let answers = Atomic<Int>(0)
let accepted = Atomic<Int>(0)
let respond: @Sendable (APNsResponse) -> Void = { response in
    if response.status == 200 { accepted.add(1, ordering: .relaxed) }
    answers.add(1, ordering: .relaxed)
}
let warmUp = min(pushesPerRound, 10_000)
for _ in 0..<warmUp { service.handle(request, connection: connection, respond: respond) }

var perPush: [Double] = []
for _ in 0..<rounds {
    let started = threadCPUTime()
    for _ in 0..<pushesPerRound { service.handle(request, connection: connection, respond: respond) }
    perPush.append((threadCPUTime() - started) / Double(pushesPerRound) * 1e6)
    // The next round starts with the store caught up, as each round starts alike.
    while answers.load(ordering: .relaxed) < warmUp + pushesPerRound * perPush.count {
        try await Task.sleep(for: .milliseconds(5))
    }
}
let total = warmUp + pushesPerRound * rounds
guard accepted.load(ordering: .relaxed) == total else {
    fail("\(total - accepted.load(ordering: .relaxed)) of \(total) pushes were not stored and accepted")
}
writing.cancel()
_ = try? await writing.value

let median = perPush.sorted()[perPush.count / 2]
let roundsJSON = perPush.map { String(format: "%.3f", $0) }.joined(separator: ",")
print(
    #"{"us_per_push":\#(String(format: "%.3f", median)),"min_us_per_push":\#(String(format: "%.3f", perPush.min()!)),"rounds":[\#(roundsJSON)],"pushes_per_round":\#(pushesPerRound),"payload_bytes":\#(payload.count)}"#
)
try await app.store.close()
try? FileManager.default.removeItem(at: directory)
