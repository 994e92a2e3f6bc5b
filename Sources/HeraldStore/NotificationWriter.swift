import Dispatch
import Foundation
import HeraldCore
import ServiceLifecycle
import Synchronization

/// Group commit of notification writes: concurrent writes share one store transaction (and one
/// fsync).
///
/// While a batch is being committed, new writes queue up; when the commit ends, everything queued
/// (up to `maxBatch`) is committed as the next batch with one `HeraldStore.insertBlocking` call.
/// `onCommit` receives each committed batch's changes in `seq` order before any writer of that batch
/// hears back, so a fan-out driven by it never lags behind the provider's answer. When a batch fails,
/// every writer of that batch gets the error and `onCommit` is not called for it.
///
/// The commits run on a thread of their own, back to back: the thread takes what is queued, commits
/// it, hands the committed batch to a serial delivery queue (`onCommit`, then the writers'
/// completions, batch after batch in commit order) and takes the next batch at once. So the store's
/// single writer is never idle while a batch's fan-out runs, and a commit does not hop between
/// threads (on a loaded machine each hop waited for a core: the writer spent a third of its time
/// outside its transactions). A lock-protected queue rather than an actor: the push path enqueues
/// from the event loop that read the request. A write is not cancellable: once queued it is
/// committed (or fails) with its batch.
///
/// A service of the application's ServiceGroup: `run()` starts the thread and, on graceful shutdown
/// (or cancellation), commits what is queued, delivers it and returns; a write enqueued after that
/// fails with `NotificationWriter.Stopped`. List it before the listeners that write through it, so
/// it stops after them. Writes enqueued before `run()` wait for it.
public final class NotificationWriter: Service {
    /// The error of a write enqueued after the writer stopped.
    public struct Stopped: Error, CustomStringConvertible {
        public var description: String { "The notification writer has stopped (the server is shutting down)." }
    }

    /// Called once per write, on the delivery queue, when its batch is durable (or failed).
    public typealias Completion = @Sendable (Result<Committed, any Error>) -> Void

    /// A write in its committed batch: the row it became is read on demand (`row`). The push path
    /// only needs to know the write is durable, and copying each row for its writer (a value of
    /// some twenty reference-counted fields) showed on the delivery thread of every batch.
    public struct Committed: Sendable {
        /// The batch's changes (`onCommit`'s array, shared).
        private let changes: [StoredNotification]
        private let index: Int

        fileprivate init(changes: [StoredNotification], index: Int) {
            self.changes = changes
            self.index = index
        }

        /// The notification as stored, with its `seq`.
        public var row: StoredNotification { changes[index] }
    }

    private struct State {
        /// The writes waiting for the next batch, and their writers (same order).
        var queued: [StoredNotification] = []
        var completions: [Completion] = []
        /// Whether the writer was told to stop: the thread ends once the queue is empty.
        var isStopped = false
        var hasStarted = false
    }

    /// What the commit thread shares with the writer; it does not keep the writer alive.
    private final class Core: Sendable {
        let store: any NotificationListStore
        let maxBatch: Int
        let onCommit: @Sendable ([StoredNotification]) -> Void
        let state = HeraldMutex(State())
        /// Signalled once per enqueue that found the queue empty, and on stop.
        let wake = DispatchSemaphore(value: 0)
        let delivery = DispatchQueue(label: "herald.notification-writer.delivery")
        /// Fired when the thread has ended.
        let threadEnded = OneShot()

        /// Told of each committed batch: its size and the commit's time (the metrics).
        let observe: (@Sendable (Int, Duration) -> Void)?

        init(
            store: any NotificationListStore, maxBatch: Int,
            observe: (@Sendable (Int, Duration) -> Void)?,
            onCommit: @escaping @Sendable ([StoredNotification]) -> Void
        ) {
            self.store = store
            self.maxBatch = maxBatch
            self.observe = observe
            self.onCommit = onCommit
        }

        /// The commit thread's loop: waits for writes, commits them in batches, until stopped.
        func run() {
            while true {
                let (batch, completions, isStopped): ([StoredNotification], [Completion], Bool) = state.withLock {
                    state in
                    if state.queued.count <= maxBatch {
                        defer {
                            state.queued = []
                            state.completions = []
                        }
                        return (state.queued, state.completions, state.isStopped)
                    }
                    defer {
                        state.queued.removeFirst(maxBatch)
                        state.completions.removeFirst(maxBatch)
                    }
                    return (Array(state.queued.prefix(maxBatch)), Array(state.completions.prefix(maxBatch)), false)
                }
                if batch.isEmpty {
                    if isStopped { return }
                    wake.wait()
                    continue
                }
                let onCommit = self.onCommit
                do {
                    let started = ContinuousClock.now
                    let inserted = try store.insertBlocking(batch)
                    observe?(batch.count, ContinuousClock.now - started)
                    delivery.async {
                        let changes = inserted.changes(of: batch)
                        let rows: [Int]
                        do {
                            rows = try NotificationWriter.rowIndices(of: batch, in: changes)
                        } catch {
                            for completion in completions { completion(.failure(error)) }
                            return
                        }
                        onCommit(changes)
                        for (completion, index) in zip(completions, rows) {
                            completion(.success(Committed(changes: changes, index: index)))
                        }
                    }
                } catch {
                    delivery.async {
                        for completion in completions { completion(.failure(error)) }
                    }
                }
            }
        }
    }

    private let core: Core

    /// A writer into `store` that commits at most `maxBatch` notifications per transaction and reports
    /// each committed batch's changes to `onCommit` (and its size and commit time to `observe`).
    public init(
        store: any NotificationListStore,
        maxBatch: Int = 512,
        observe: (@Sendable (Int, Duration) -> Void)? = nil,
        onCommit: @escaping @Sendable ([StoredNotification]) -> Void
    ) {
        precondition(maxBatch > 0, "maxBatch must be positive")
        core = Core(store: store, maxBatch: maxBatch, observe: observe, onCommit: onCommit)
    }

    deinit {
        core.state.withLock { $0.isStopped = true }
        core.wake.signal()
    }

    /// Commits writes on the writer's thread until graceful shutdown or cancellation; then commits
    /// what is queued, waits until every writer of it heard back, and returns. Runs once.
    public func run() async throws {
        let core = self.core
        let starts = core.state.withLock { state in
            defer { state.hasStarted = true }
            return !state.hasStarted
        }
        guard starts else { return }
        let thread = Thread {
            // Named from the thread itself (on Linux that is what names it in `top` and `perf`).
            Thread.current.name = "herald-writer"
            core.run()
            // The delivery queue is serial: once this runs, every batch's writers have heard back.
            core.delivery.async { core.threadEnded.fire() }
        }
        thread.start()
        await untilShutdownOrCancellation()
        core.state.withLock { $0.isStopped = true }
        core.wake.signal()
        await core.threadEnded.wait()
    }

    /// Stores `notification` with the next batch; `completion` gets its place in the committed
    /// batch (`Committed.row`: it as stored, with its `seq`) once the batch is durable and `onCommit`
    /// has seen it, or the batch's error.
    public func enqueue(_ notification: consuming StoredNotification, completion: @escaping Completion) {
        // Moved into the queue, not copied: a copy retains a row's some fifteen strings and boxes, and
        // the caller's release of them follows (measured by herald-push-logic-bench).
        var pending = Optional(consume notification)
        let (wasEmpty, isStopped) = core.state.withLock { state in
            guard !state.isStopped else { return (false, true) }
            state.queued.append(pending.take()!)
            state.completions.append(completion)
            return (state.queued.count == 1, false)
        }
        if isStopped { return completion(.failure(Stopped())) }
        if wasEmpty { core.wake.signal() }
    }

    /// Stores `notification` with the next batch; returns it as stored (with its `seq`) once the
    /// batch is durable and `onCommit` has seen it.
    public func write(_ notification: StoredNotification) async throws -> StoredNotification {
        try await withUnsafeThrowingContinuation { continuation in
            enqueue(notification) { continuation.resume(with: $0.map(\.row)) }
        }
    }

    /// Where in `changes` (the batch's changes in seq order: each new row follows the tombstones it
    /// caused, in batch order) each notification of `batch` is, as stored.
    fileprivate static func rowIndices(
        of batch: [StoredNotification], in changes: [StoredNotification]
    ) throws -> [Int] {
        var rows: [Int] = []
        rows.reserveCapacity(batch.count)
        var index = changes.startIndex
        for notification in batch {
            while index < changes.endIndex {
                let at = index
                index += 1
                if changes[at].removedAt == nil, changes[at].id == notification.id,
                    changes[at].deviceID == notification.deviceID
                {
                    rows.append(at)
                    break
                }
            }
        }
        guard rows.count == batch.count else {
            throw StoreError(.invalid, "The store did not report every notification of the batch as stored.")
        }
        return rows
    }
}

/// An event that happens once; waiters before and after it resume.
final class OneShot: Sendable {
    private struct State {
        var fired = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = HeraldMutex(State())

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}

/// Returns on the graceful shutdown of the calling service's ServiceGroup, or when the calling task is
/// cancelled (outside a ServiceGroup, only then): where a service's `run()` waits before stopping.
func untilShutdownOrCancellation() async {
    let stop = OneShot()
    await withGracefulShutdownHandler {
        await withTaskCancellationHandler {
            await stop.wait()
        } onCancel: {
            stop.fire()
        }
    } onGracefulShutdown: {
        stop.fire()
    }
}
