import Foundation
import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// A scheduler that acts when time passes, run by `ScheduledServices` one term at a time.
protocol ScheduledService: Sendable {
    /// How far its loop followed the clock (`ClockController` waits on it).
    var progress: ServiceProgress { get }
    /// Runs until cancelled: first what came due while it did not run, then each time as it comes.
    func loop() async throws
}

extension ScheduledService {
    /// One term: the loop from its start-up pass, until cancelled. Called again for each term this
    /// node leads.
    func term() async throws {
        progress.resume()
        defer { progress.pause() }
        try await loop()
    }

    /// Until the next term, a move of the manual clock does not wait for this service.
    func pause() {
        progress.pause()
    }

    /// The service alone (not under `ScheduledServices`): one term until graceful shutdown.
    func runAlone() async throws {
        defer { progress.finish() }
        try await runUntilGracefulShutdown {
            try await term()
        }
    }
}

/// The services that act when time passes — Focus releases, Scheduled Summaries, the trigger
/// scheduler of local notifications — as one service of the application's group.
///
/// They must act once however many nodes share the database: on a `SharedDatabaseStore` they run
/// only on the node that holds the lease (`whileLeading`), and from the start again (their start-up
/// pass catches up what came due meanwhile) each time this node takes the lease over. A node that
/// does not lead passes on what it hears to the leader through the database (`PolicyCoordinator`
/// broadcasts user state and pending requests); its clock controller does not wait for services it
/// does not run. Alone on its store (SQLite), a node always leads: one term, for as long as it runs.
final class ScheduledServices: Service, CustomStringConvertible {
    let services: [any ScheduledService]
    /// The lease of a shared store; nil: this node alone runs them.
    let leadership: (@Sendable (@escaping @Sendable () async throws -> Void) async throws -> Void)?
    /// Whether a term runs now (the readiness route shows it).
    let isLeading = HeraldMutex(false)

    init(
        services: [any ScheduledService],
        leadership: (@Sendable (@escaping @Sendable () async throws -> Void) async throws -> Void)?
    ) {
        self.services = services
        self.leadership = leadership
    }

    var description: String { "ScheduledServices" }

    func run() async throws {
        try await runUntilGracefulShutdown { [self] in
            guard let leadership else { return try await term() }
            // Until this node leads, a move of the manual clock does not wait for these services.
            for service in services { service.pause() }
            do {
                try await leadership { try await self.term() }
            } catch is CancellationError {
                // Graceful shutdown.
            }
        }
    }

    /// Runs every service until cancelled; the first that fails ends the others and the term.
    private func term() async throws {
        isLeading.withLock { $0 = true }
        defer { isLeading.withLock { $0 = false } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in services {
                group.addTask { try await service.term() }
            }
            defer { group.cancelAll() }
            while try await group.next() != nil {}
        }
    }
}
