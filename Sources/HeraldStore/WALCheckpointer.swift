import Foundation
import GRDB
import HeraldCore
import ServiceLifecycle
import Synchronization

/// Copies the write-ahead log into the database file in the background (PASSIVE checkpoints on a
/// connection and thread of its own), so commits never pay for a checkpoint.
///
/// A passive checkpoint neither waits for nor blocks the writer or the readers: it copies what it
/// can. Past `restartFrames` of log, a RESTART checkpoint makes the log start over (see `run`).
/// A thread rather than a task: a checkpoint blocks for as long as it copies and syncs, which must
/// not hold a thread of Swift's cooperative pool.
///
/// A service of the application's ServiceGroup (`SQLiteStore.backgroundServices`): `run()` starts the
/// thread and stops it on graceful shutdown or cancellation. Without it (tools, tests) SQLite's own
/// automatic checkpoint keeps the log bounded.
final class WALCheckpointer: Service {
    private let connection: DatabaseQueue
    private let interval: TimeInterval
    private let state = HeraldMutex(State())
    private let stopped = NSCondition()

    private struct State {
        var isRunning = false
        var isStopping = false
        var hasStopped = false
    }

    /// Log frames (pages) past which the log is started over (`RESTART`): 32 MiB of 4 KiB pages.
    private let restartFrames: Int

    init(path: String, configuration: Configuration, interval: TimeInterval = 0.25, restartFrames: Int = 8192) throws {
        var configuration = configuration
        configuration.label = (configuration.label ?? "herald") + ".checkpoint"
        // Never wait for a lock: a RESTART that waited for readers would hold the writer back all
        // that time (a long catch-up read of a live session stalled commits for 400 ms). Busy means
        // "try again next round".
        configuration.busyMode = .immediateError
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
        self.restartFrames = restartFrames
    }

    /// Copies the whole log back and empties it (TRUNCATE), on this connection (so not at the same
    /// time as a round of the thread), retrying while the writer, a reader or a round is busy, for
    /// at most `timeout` seconds.
    func truncateLog(timeout: TimeInterval = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            do {
                try connection.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                return
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
            {
                guard Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Starts the checkpoint thread (once).
    func start() {
        let starts = state.withLock { state in
            guard !state.isRunning, !state.isStopping else { return false }
            state.isRunning = true
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in
            // Named from the thread itself, in at most 15 bytes: on Linux a name set before `start()`,
            // or a longer one, never reaches the system thread (`top`, `perf` and
            // scripts/perf-stages.py showed the name of the dispatch queue it was started from).
            Thread.current.name = "herald-ckpt"
            run()
        }
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Checkpoints in the background until graceful shutdown or cancellation.
    func run() async throws {
        start()
        await untilShutdownOrCancellation()
        // `stop` waits for a checkpoint in progress: on a thread of its own, not the cooperative pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [self] in
                stop()
                continuation.resume()
            }
        }
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
            let frames = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            if let frames, frames.walFrameCount >= restartFrames, frames.checkpointedFrameCount == frames.walFrameCount
            {
                // The log starts over from its beginning only when a writer finds every frame copied,
                // which a writer that commits all the time never does: the log would grow until the
                // writer's own safety-net checkpoint stalled a commit for a second (measured). Right
                // after a passive round that copied everything, a RESTART has only the frames of the
                // last few milliseconds to copy while it holds the writer back, and lets the next
                // commit start the log over: a short wait, a bounded log.
                // It needs the writer's lock, and never waits for it: a writer that commits back to
                // back holds it most of the time, so a few tries a millisecond apart find a gap
                // between two commits (one try alone kept missing on a loaded machine).
                for attempt in 0..<5 {
                    if attempt > 0 { Thread.sleep(forTimeInterval: 0.001) }
                    if (try? connection.writeWithoutTransaction({ db in try db.checkpoint(.restart) })) != nil { break }
                }
            }
        }
        state.withLock { $0.hasStopped = true }
        stopped.lock()
        stopped.broadcast()
        stopped.unlock()
    }
}
