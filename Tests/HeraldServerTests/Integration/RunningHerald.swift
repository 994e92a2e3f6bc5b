import Foundation
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldServer
import Logging
import Synchronization

/// A real Herald on port 0 in a temporary data directory, for integration tests.
struct RunningHerald {
    let application: HeraldApplication
    let runtime: RuntimeInfo
    let task: Task<Void, any Error>
    let directory: URL

    /// Starts Herald; with `afterPolicyStartUp`, returns only once the Focus and summary services have
    /// finished their start-up pass (their reads of the store), so nothing reads the store until the
    /// test does something.
    static func start(
        afterPolicyStartUp: Bool = false, configure: (inout HeraldConfiguration) -> Void = { _ in }
    ) async throws -> RunningHerald {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-test-\(UUID().uuidString)")
        var configuration = HeraldConfiguration(dataDirectory: directory.path)
        configuration.apiPort = 0
        configuration.apnsPort = 0
        configuration.apnsTLSPort = 0
        configure(&configuration)
        var logger = Logger(label: "herald.test")
        logger.logLevel = .warning
        let application = try await HeraldApplication.make(configuration: configuration, logger: logger)
        let events = afterPolicyStartUp ? application.policy.events.subscribe() : nil
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
        if let events {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var started: Set<String> = []
                    for await event in events {
                        if case .serviceReady(let name) = event { started.insert(name) }
                        if started.count == 2 { return }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(60))
                    throw CancellationError()
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
        return RunningHerald(application: application, runtime: runtime, task: task, directory: directory)
    }

    var demo: DemoSetup { application.demo! }

    func apnsClient(tls: Bool) throws -> APNsClient {
        try APNsClient(
            baseURL: URL(string: tls ? runtime.apnsTLSURL : runtime.apnsURL)!,
            credentials: APNsCredentials(
                teamID: demo.teamID, keyID: demo.keyID, privateKeyFile: URL(fileURLWithPath: demo.keyPath)),
            caFile: application.authority.authorityCertificateURL.path
        )
    }

    func stop() async throws {
        await application.shutdown()
        try await awaitEnd(of: task)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The end of a Herald's run, after its `shutdown()`: throws when it has not ended within `seconds`,
/// so that a Herald that does not stop fails its test rather than holding the whole run for ever
/// (the wait for a task's value does not end when the waiter is cancelled: raced here).
func awaitEnd(of task: Task<Void, any Error>, within seconds: Double = 60) async throws {
    let waiter = OnceContinuation()
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        waiter.set(continuation)
        Task { waiter.resume(with: await task.result) }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            waiter.resume(with: .failure(PolicyTestError("Herald did not stop within \(seconds) s")))
        }
    }
}

/// A continuation resumed by the first of several racers.
private final class OnceContinuation: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, any Error>?>(nil)

    func set(_ value: CheckedContinuation<Void, any Error>) { continuation.withLock { $0 = value } }

    func resume(with result: Result<Void, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
