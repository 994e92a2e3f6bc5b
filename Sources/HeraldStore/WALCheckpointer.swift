import Foundation
import GRDB
import Synchronization

/// Copies the write-ahead log into the database file in the background (PASSIVE checkpoints on a
/// connection and thread of its own), so commits never pay for a checkpoint.
///
/// A passive checkpoint neither waits for nor blocks the writer or the readers: it copies what it
/// can, and the log restarts from its beginning once everything was copied. A thread rather than a
/// task: a checkpoint blocks for as long as it copies and syncs, which must not hold a thread of
/// Swift's cooperative pool.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let interval: TimeInterval
    private let state = Mutex(State())
    private let stopped = NSCondition()

    private struct State {
        var isRunning = false
        var isStopping = false
        var hasStopped = false
    }

    init(path: String, configuration: Configuration, interval: TimeInterval = 0.25) throws {
        var configuration = configuration
        configuration.label = (configuration.label ?? "herald") + ".checkpoint"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
    }

    /// Starts the checkpoint thread (once).
    func start() {
        let starts = state.withLock { state in
            guard !state.isRunning, !state.isStopping else { return false }
            state.isRunning = true
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in run() }
        thread.name = "herald-checkpoint"
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Stops the thread and waits until its current checkpoint (if any) ended.
    func stop() {
        let wasRunning = state.withLock { state in
            state.isStopping = true
            return state.isRunning
        }
        guard wasRunning else { return }
        stopped.lock()
        while !state.withLock({ $0.hasStopped }) {
            stopped.signal()
            stopped.wait(until: Date().addingTimeInterval(0.05))
        }
        stopped.unlock()
    }

    private func run() {
        while true {
            stopped.lock()
            if !state.withLock({ $0.isStopping }) {
                stopped.wait(until: Date().addingTimeInterval(interval))
            }
            stopped.unlock()
            if state.withLock({ $0.isStopping }) { break }
            // Busy or locked: the next round tries again.
            _ = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        }
        state.withLock { $0.hasStopped = true }
        stopped.lock()
        stopped.broadcast()
        stopped.unlock()
    }
}
