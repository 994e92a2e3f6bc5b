import ServiceLifecycle

/// Runs a service's work until graceful shutdown cancels it, as `cancelWhenGracefulShutdown` does —
/// but the `CancellationError` that the work throws then is the shutdown, not a failure.
///
/// A service that throws while its ServiceGroup shuts down gracefully makes the group cancel every
/// service whose turn has not come yet. A shutdown right after start-up (a test that starts and stops
/// a server) cancels a service in the middle of its first store read, which throws `CancellationError`.
public func runUntilGracefulShutdown(_ operation: @escaping @Sendable () async throws -> Void) async throws {
    do {
        try await cancelWhenGracefulShutdown(operation)
    } catch is CancellationError where Task.isShuttingDownGracefully {
        // Shut down as asked.
    }
}
