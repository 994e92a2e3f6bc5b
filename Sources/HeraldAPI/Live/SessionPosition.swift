/// A session's position in its device's change feed: which changes it sent, so each is sent once.
///
/// The stream cursor never moves backwards: it is the largest `seq` sent. A change can still
/// arrive below it when two writers committed in one order and published in the other (the
/// group-commit writer and a read/dismiss request racing); such a change was never sent, so it
/// goes out, labelled with the current cursor, so a client resuming from that cursor misses nothing.
/// Changes sent recently are remembered (a bounded window) to drop the duplicates that subscribing
/// before reading the backlog produces.
struct SessionPosition: Sendable {
    /// What the client already has: everything up to here (its resume cursor).
    let floor: Int64
    /// The largest `seq` sent (or `floor` before anything is sent).
    private(set) var position: Int64
    private var recent: Set<Int64> = []
    private var recentOrder: [Int64] = []
    private var recentStart = 0
    private let memory: Int

    /// A cursor for a client that has everything up to `floor`, remembering the last `memory` sends.
    init(floor: Int64, memory: Int) {
        self.floor = floor
        self.position = floor
        self.memory = max(1, memory)
    }

    /// Whether the change with this `seq` should be sent; records it as sent when it should, and
    /// returns the stream cursor to label it with.
    mutating func accept(_ seq: Int64) -> Int64? {
        guard seq > floor, !recent.contains(seq) else { return nil }
        // Below the cursor, only a change inside the remembered window can be a late one that was
        // never sent; anything older was sent before the window moved on (e.g. live changes that
        // queued up while a catch-up read of the store had already sent them).
        if seq <= position {
            guard recentStart < recentOrder.count, seq > recentOrder[recentStart] else { return nil }
        }
        remember(seq)
        position = max(position, seq)
        return position
    }

    /// Where a catch-up read of the store starts after the queue dropped changes from `oldestDropped` on.
    func catchUpStart(oldestDropped: Int64) -> Int64 {
        max(floor, min(position, oldestDropped - 1))
    }

    private mutating func remember(_ seq: Int64) {
        recent.insert(seq)
        recentOrder.append(seq)
        if recentOrder.count - recentStart > memory {
            recent.remove(recentOrder[recentStart])
            recentStart += 1
            if recentStart > memory {
                recentOrder.removeFirst(recentStart)
                recentStart = 0
            }
        }
    }
}
