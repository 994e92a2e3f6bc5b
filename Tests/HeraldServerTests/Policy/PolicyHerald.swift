import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Logging
import Testing

/// A real Herald on port 0 whose time is a `ManualClock`, with the policy services' events
/// subscribed from before start-up. Restartable on the same data directory.
struct PolicyHerald {
    let application: HeraldApplication
    let clock: ManualClock
    let runtime: RuntimeInfo
    let task: Task<Void, any Error>
    let directory: URL
    let events: AsyncStream<PolicyServiceActivity>

    /// The real time, to the second: provider tokens are signed with the real clock, so the test
    /// clock starts there.
    static func startOfTest() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// Starts Herald at `now` in `directory` (a fresh one by default) and waits until the Focus and
    /// summary services finished their start-up pass.
    static func start(
        at now: Date = startOfTest(), directory: URL? = nil, willPresentTimeout: Double = 2,
        webhookRetryBase: Double = 1, attachmentQuota: Int = 1 << 30
    ) async throws -> PolicyHerald {
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("herald-policy-\(UUID().uuidString)")
        var configuration = HeraldConfiguration(dataDirectory: directory.path)
        configuration.apiPort = 0
        configuration.apnsPort = 0
        configuration.apnsTLSPort = nil
        configuration.willPresentTimeout = willPresentTimeout
        configuration.webhookRetryBase = webhookRetryBase
        configuration.attachmentQuota = attachmentQuota
        var logger = Logger(label: "herald.policy-test")
        logger.logLevel = .warning
        let clock = ManualClock(now: now)
        let application = try await HeraldApplication.make(configuration: configuration, logger: logger, clock: clock)
        let events = application.policy.events.subscribe()
        let (ready, continuation) = AsyncStream.makeStream(of: RuntimeInfo.self)
        let task = Task {
            // A run that ends before it is ready (it threw) ends the stream: the wait below then
            // throws its error, where it would wait for ever.
            defer { continuation.finish() }
            try await application.run(signals: []) { runtime in continuation.yield(runtime) }
        }
        var iterator = ready.makeAsyncIterator()
        guard let runtime = await iterator.next() else {
            try await task.value
            throw CancellationError()
        }
        let herald = PolicyHerald(
            application: application, clock: clock, runtime: runtime, task: task, directory: directory, events: events
        )
        var started: Set<String> = []
        while started.count < 2 {
            if case .serviceReady(let name) = try await herald.nextEvent(where: {
                if case .serviceReady = $0 { true } else { false }
            }) {
                started.insert(name)
            }
        }
        return herald
    }

    var demo: DemoSetup { application.demo! }
    var store: any HeraldStore { application.store }

    func userID() async throws -> String {
        try await store.device(id: demo.deviceID)!.userID
    }

    func apnsClient() throws -> APNsClient {
        try APNsClient(
            baseURL: URL(string: runtime.apnsURL)!,
            credentials: APNsCredentials(
                teamID: demo.teamID, keyID: demo.keyID, privateKeyFile: URL(fileURLWithPath: demo.keyPath)),
            caFile: application.authority.authorityCertificateURL.path
        )
    }

    /// Unlocks the demo device (it starts unlocked; a test that locked it unlocks it again), where the
    /// default Show Previews (When Unlocked) shows the content.
    func unlockDevice() async throws {
        try await store.setDeviceState(DeviceState(isLocked: false), deviceID: demo.deviceID)
        await application.policy.deviceStateChanged(deviceID: demo.deviceID)
    }

    /// Pushes `aps` (a JSON object's text) over the APNs endpoint; returns the stored notification.
    func push(_ aps: String, client: APNsClient) async throws -> StoredNotification {
        let payload = Data(#"{"aps":\#(aps)}"#.utf8)
        let result = try await client.send(APNsPush(deviceToken: demo.deviceToken, topic: demo.topic, payload: payload))
        guard result.status == 200, let id = result.apnsID else {
            throw PolicyTestError("push answered \(result.status) \(result.reason ?? "")")
        }
        guard let row = try await store.notification(deviceID: demo.deviceID, id: id.lowercased()) else {
            throw PolicyTestError("the push was not stored")
        }
        return row
    }

    /// The next policy event that matches, waiting at most 30 s (a guard against a hang, not a delay).
    func nextEvent(where matches: @escaping @Sendable (PolicyServiceActivity) -> Bool) async throws
        -> PolicyServiceActivity
    {
        let events = self.events
        return try await withThrowingTaskGroup(of: PolicyServiceActivity?.self) { group in
            group.addTask {
                for await event in events where matches(event) { return event }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                throw PolicyTestError("no matching policy event within 30 s")
            }
            defer { group.cancelAll() }
            guard let event = try await group.next() ?? nil else { throw PolicyTestError("the policy events ended") }
            return event
        }
    }

    /// Signals a user-state change (as the API will) and waits until the Focus service re-evaluated
    /// the user's held notifications; returns the changed rows.
    @discardableResult
    func userStateChanged(_ userID: String) async throws -> [StoredNotification] {
        await application.policy.userStateChanged(userID: userID)
        return try await heldReevaluated(userID)
    }

    /// Waits for the next re-evaluation of the user's held notifications; returns the changed rows.
    func heldReevaluated(_ userID: String) async throws -> [StoredNotification] {
        let event = try await nextEvent { event in
            if case .heldReevaluated(let user, _, _) = event { user == userID } else { false }
        }
        guard case .heldReevaluated(_, _, let changes) = event else { return [] }
        return changes
    }

    func stop(removingData: Bool = true) async throws {
        await application.shutdown()
        try await awaitEnd(of: task)
        if removingData { try? FileManager.default.removeItem(at: directory) }
    }
}

struct PolicyTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The value at `path` (object keys) in `value`.
func json(_ value: JSONValue?, _ path: String...) -> JSONValue? {
    var current = value
    for key in path { current = current?.objectValue?[key] }
    return current
}

/// The items of a JSON array (empty for anything else).
func jsonItems(_ value: JSONValue?) -> [JSONValue] {
    if case .array(let items)? = value { return items }
    return []
}

extension HeraldApplication {
    /// The explanation of a stored notification, read back from the store first.
    func explain(deviceID: String, id: String) async throws -> JSONValue {
        guard let row = try await store.notification(deviceID: deviceID, id: id) else {
            throw PolicyTestError("no notification \(id)")
        }
        return policy.explain(row)
    }
}

/// The reason codes and sentences of an explanation.
func reasons(_ explanation: JSONValue) -> [(code: String, sentence: String)] {
    jsonItems(json(explanation, "reasons")).map {
        (json($0, "code")?.stringValue ?? "", json($0, "sentence")?.stringValue ?? "")
    }
}

/// Checks that `row` was released quietly from a hold: listed (Lock Screen, Notification Center),
/// no banner, no sound, not announced, its badge applied as `badge` says.
func expectReleasedQuietly(_ row: StoredNotification, badge: Bool, sourceLocation: SourceLocation = #_sourceLocation)
    throws
{
    let decision = try #require(row.decision, sourceLocation: sourceLocation).decision
    #expect(decision.disposition == .listedSilently, sourceLocation: sourceLocation)
    #expect(decision.banner == .none, sourceLocation: sourceLocation)
    #expect(decision.sound == .silent, sourceLocation: sourceLocation)
    #expect(!decision.announce, sourceLocation: sourceLocation)
    #expect(decision.lockScreen && decision.notificationCenter, sourceLocation: sourceLocation)
    #expect(decision.badge == badge, sourceLocation: sourceLocation)
}
