import HeraldCore
import Synchronization

/// Group commit of notification writes: concurrent writes share one store transaction (and one
/// fsync).
///
/// While a batch is being committed, new writes queue up; when the commit ends, everything queued
/// (up to `maxBatch`) is committed as the next batch with one `HeraldStore.insert` call. `onCommit`
/// receives each committed batch's changes in `seq` order before any writer of that batch hears back,
/// so a fan-out driven by it never lags behind the provider's answer. When a batch fails, every writer
/// of that batch gets the error and `onCommit` is not called for it.
///
/// A lock-protected queue rather than an actor: the push path enqueues from the event loop that read
/// the request and is called back when the batch is durable, without a task or an actor hop per push
/// (both showed in profiles of the APNs endpoint). A write is not cancellable: once queued it is
/// committed (or fails) with its batch.
public final class NotificationWriter: Sendable {
    /// Called once per write, from the committing task, when its batch is durable (or failed).
    public typealias Completion = @Sendable (Result<StoredNotification, any Error>) -> Void

    private struct State {
        /// The writes waiting for the next batch, and their writers (same order).
        var queued: [StoredNotification] = []
        var completions: [Completion] = []
        /// Whether a commit task is running; it keeps committing until the queue is empty.
        var isCommitting = false
    }

    private let store: any HeraldStore
    private let maxBatch: Int
    private let onCommit: @Sendable ([StoredNotification]) -> Void
    private let state = Mutex(State())

    /// A writer into `store` that commits at most `maxBatch` notifications per transaction and reports
    /// each committed batch's changes to `onCommit`.
    public init(
        store: any HeraldStore,
        maxBatch: Int = 512,
        onCommit: @escaping @Sendable ([StoredNotification]) -> Void
    ) {
        precondition(maxBatch > 0, "maxBatch must be positive")
        self.store = store
        self.maxBatch = maxBatch
        self.onCommit = onCommit
    }

    /// Stores `notification` with the next batch; `completion` gets it as stored (with its `seq`)
    /// once the batch is durable and `onCommit` has seen it, or the batch's error.
    public func enqueue(_ notification: StoredNotification, completion: @escaping Completion) {
        let startsCommit = state.withLock { state in
            state.queued.append(notification)
            state.completions.append(completion)
            guard !state.isCommitting else { return false }
            state.isCommitting = true
            return true
        }
        if startsCommit {
            Task { await self.commitQueued() }
        }
    }

    /// Stores `notification` with the next batch; returns it as stored (with its `seq`) once the
    /// batch is durable and `onCommit` has seen it.
    public func write(_ notification: StoredNotification) async throws -> StoredNotification {
        try await withUnsafeThrowingContinuation { continuation in
            enqueue(notification) { continuation.resume(with: $0) }
        }
    }

    /// Commits batches until nothing is queued. Writes arriving meanwhile join the next batch.
    private func commitQueued() async {
        while true {
            let (batch, completions): ([StoredNotification], [Completion]) = state.withLock { state in
                if state.queued.isEmpty {
                    state.isCommitting = false
                    return ([], [])
                }
                if state.queued.count <= maxBatch {
                    defer {
                        state.queued = []
                        state.completions = []
                    }
                    return (state.queued, state.completions)
                }
                defer {
                    state.queued.removeFirst(maxBatch)
                    state.completions.removeFirst(maxBatch)
                }
                return (Array(state.queued.prefix(maxBatch)), Array(state.completions.prefix(maxBatch)))
            }
            guard !batch.isEmpty else { return }
            let stored: [StoredNotification]
            do {
                let changes = try await store.insert(batch)
                stored = try Self.storedRows(of: batch, in: changes)
                onCommit(changes)
            } catch {
                for completion in completions { completion(.failure(error)) }
                continue
            }
            for (completion, row) in zip(completions, stored) { completion(.success(row)) }
        }
    }

    /// The row each notification of `batch` became, found in `changes` (the batch's changes in seq
    /// order: each new row follows the tombstones it caused, in batch order).
    private static func storedRows(
        of batch: [StoredNotification], in changes: [StoredNotification]
    ) throws -> [StoredNotification] {
        var rows: [StoredNotification] = []
        rows.reserveCapacity(batch.count)
        var index = changes.startIndex
        for notification in batch {
            while index < changes.endIndex {
                let change = changes[index]
                index += 1
                if change.removedAt == nil, change.id == notification.id, change.deviceID == notification.deviceID {
                    rows.append(change)
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
