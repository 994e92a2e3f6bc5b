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

    static func start(configure: (inout HeraldConfiguration) -> Void = { _ in }) async throws -> RunningHerald {
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
        let (ready, continuation) = AsyncStream.makeStream(of: RuntimeInfo.self)
        let task = Task {
            try await application.run(signals: []) { runtime in continuation.yield(runtime) }
        }
        var iterator = ready.makeAsyncIterator()
        guard let runtime = await iterator.next() else { throw CancellationError() }
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
