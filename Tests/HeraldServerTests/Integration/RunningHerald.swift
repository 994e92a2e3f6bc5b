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
            try await application.run(signals: []) { runtime in continuation.yield(runtime) }
        }
        var iterator = ready.makeAsyncIterator()
        guard let runtime = await iterator.next() else { throw CancellationError() }
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
        try await task.value
        try? FileManager.default.removeItem(at: directory)
    }
}
