import HeraldCore

/// Group commit of notification writes: concurrent writes share one store transaction (and one
/// fsync).
///
/// While a batch is being committed, new writes queue up; when the commit ends, everything queued
/// (up to `maxBatch`) is committed as the next batch with one `HeraldStore.insert` call. `onCommit`
/// receives each committed batch's changes in `seq` order before any writer of that batch resumes, so
/// a fan-out driven by it never lags behind the provider's answer. When a batch fails, every writer
/// of that batch gets the error and `onCommit` is not called for it.
///
/// A write is not cancellable: once queued it is committed (or fails) with its batch.
public actor NotificationWriter {
    private typealias Waiter = UnsafeContinuation<StoredNotification, any Error>

    private let store: any HeraldStore
    private let maxBatch: Int
    private let onCommit: @Sendable ([StoredNotification]) -> Void

    /// The writes waiting for the next batch, and their writers (same order).
    private var queued: [StoredNotification] = []
    private var waiters: [Waiter] = []
    /// Whether a commit task is running; it keeps committing until the queue is empty.
    private var isCommitting = false

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

    /// Stores `notification` with the next batch; returns it as stored (with its `seq`) once the
    /// batch is durable and `onCommit` has seen it.
    public func write(_ notification: StoredNotification) async throws -> StoredNotification {
        // An unsafe continuation saves an allocation per write; `commitQueued` resumes every waiter
        // it dequeues exactly once, on success and on failure alike.
        try await withUnsafeThrowingContinuation { (waiter: Waiter) in
            queued.append(notification)
            waiters.append(waiter)
            if !isCommitting {
                isCommitting = true
                Task { await self.commitQueued() }
            }
        }
    }

    /// Commits batches until nothing is queued. Writes arriving meanwhile join the next batch.
    private func commitQueued() async {
        while !queued.isEmpty {
            let batch: [StoredNotification]
            let batchWaiters: [Waiter]
            if queued.count <= maxBatch {
                batch = queued
                batchWaiters = waiters
                queued = []
                waiters = []
            } else {
                batch = Array(queued.prefix(maxBatch))
                batchWaiters = Array(waiters.prefix(maxBatch))
                queued.removeFirst(maxBatch)
                waiters.removeFirst(maxBatch)
            }
            let stored: [StoredNotification]
            do {
                let changes = try await store.insert(batch)
                stored = try Self.storedRows(of: batch, in: changes)
                onCommit(changes)
            } catch {
                for waiter in batchWaiters { waiter.resume(throwing: error) }
                continue
            }
            for (waiter, row) in zip(batchWaiters, stored) { waiter.resume(returning: row) }
        }
        isCommitting = false
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
