import Dispatch
import HeraldCore

/// What a batch insert wrote (`HeraldStore.insertBlocking`): the seq of each notification and the
/// tombstones its collapse ids made. The rows as stored (`changes(of:)`, `insert`'s result) are
/// made from it and the batch afterwards, so the store's writer does not copy every notification
/// while it holds the database.
public struct InsertedBatch: Sendable {
    /// A notification replaced through a collapse id, by the batch's notification at `before`.
    public struct Tombstone: Sendable {
        public var before: Int
        public var row: StoredNotification

        public init(before: Int, row: StoredNotification) {
            self.before = before
            self.row = row
        }
    }

    /// The seq each notification of the batch got, in batch order.
    public var seqs: [Int64]
    /// In seq order.
    public var tombstones: [Tombstone]
    /// The changes as a store that built them already returned them.
    private var built: [StoredNotification]?

    public init(seqs: [Int64], tombstones: [Tombstone]) {
        self.seqs = seqs
        self.tombstones = tombstones
    }

    /// The changes `insert` returned (a store without a blocking write).
    public init(changes: [StoredNotification]) {
        seqs = []
        tombstones = []
        built = changes
    }

    /// The batch's changes in seq order, as `insert` returns them: each tombstone, then the
    /// notification that made it, each as it was stored.
    public func changes(of batch: [StoredNotification]) -> [StoredNotification] {
        if let built { return built }
        var changes: [StoredNotification] = []
        changes.reserveCapacity(batch.count + tombstones.count)
        var next = tombstones.startIndex
        for (index, seq) in zip(batch.indices, seqs) {
            while next < tombstones.endIndex, tombstones[next].before == index {
                changes.append(tombstones[next].row)
                next += 1
            }
            changes.append(NotificationRow.stored(batch[index], seq: seq))
        }
        return changes
    }
}

extension InsertedBatch {
    /// The batch `insert` commits, waited for on the calling thread: `insertBlocking` for a store
    /// whose writes are only asynchronous. Call it from a thread of its own (`NotificationWriter`'s),
    /// never from a task: it blocks the thread until the task ends.
    public static func waiting(
        for insert: @escaping @Sendable () async throws -> [StoredNotification]
    ) throws -> InsertedBatch {
        let result = BlockingResult<[StoredNotification]>()
        Task {
            do {
                result.set(.success(try await insert()))
            } catch {
                result.set(.failure(error))
            }
        }
        return InsertedBatch(changes: try result.wait())
    }
}

/// A value produced by a task, waited for on a thread.
private final class BlockingResult<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    func set(_ result: Result<Value, any Error>) {
        self.result = result
        done.signal()
    }

    func wait() throws -> Value {
        done.wait()
        return try result!.get()
    }
}
