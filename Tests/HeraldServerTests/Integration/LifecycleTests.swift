import Foundation
import HeraldServer
import HeraldStore
import Logging
import ServiceLifecycle
import Testing

/// How a running Herald ends: gracefully at once after start-up, and when cancelled (its service group
/// cancels every service when one of them fails).
@Suite("Herald's lifecycle: stopped right after start, or cancelled")
struct LifecycleTests {
    /// Fails when `task` has not ended within `seconds` (a guard against a hang, not a delay).
    static func ends(_ task: Task<Void, any Error>, within seconds: Double) async -> Result<Void, any Error>? {
        // Unstructured: a task group would wait for its child, and awaiting a task that hangs can't be
        // cancelled.
        let (first, continuation) = AsyncStream.makeStream(of: Result<Void, any Error>?.self)
        Task { continuation.yield(await task.result) }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            continuation.yield(nil)
        }
        for await result in first { return result }
        return nil
    }

    @Test("a cancelled Herald ends: every service, the APNs listener's wait for its sockets included")
    func cancelledRunEnds() async throws {
        let herald = try await RunningHerald.start()
        herald.task.cancel()
        let result = await Self.ends(herald.task, within: 60)
        #expect(result != nil, "the cancelled server did not end within 60 s")
        try? FileManager.default.removeItem(at: herald.directory)
    }

    @Test("stopped as soon as it listens, Herald ends cleanly, many times over")
    func stoppedAtOnce() async throws {
        for _ in 0..<5 {
            let herald = try await RunningHerald.start()
            await herald.application.shutdown()
            let result = await Self.ends(herald.task, within: 60)
            #expect(result != nil, "the stopped server did not end within 60 s")
            if case .failure(let error) = result { Issue.record("the server ended with \(error)") }
            try? FileManager.default.removeItem(at: herald.directory)
        }
    }

    /// A service whose work ends by cancellation at graceful shutdown.
    struct SleepingService: Service {
        func run() async throws {
            try await runUntilGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }

    @Test("a service's work cancelled by graceful shutdown ends the service cleanly, not with an error")
    func cancelledWorkIsAShutdown() async throws {
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: SleepingService())], logger: Logger(label: "test")))
        let run = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(50))
        await group.triggerGracefulShutdown()
        let result = await Self.ends(run, within: 60)
        if case .failure(let error) = result { Issue.record("the group ended with \(error)") }
        #expect(result != nil)
    }
}
