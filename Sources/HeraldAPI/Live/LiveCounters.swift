import Synchronization

/// What the live sessions of one node cost the store, counted as it happens and read by
/// `GET /metrics`: how often a session's queue overflowed (it lagged) and how many rows sessions
/// read from the store instead of getting them from the hub (catching up after connecting with a
/// cursor, or after lagging). A session that keeps up reads none.
public final class LiveCounters: Sendable {
    private let lags = Atomic<Int>(0)
    private let storeRows = Atomic<Int>(0)

    public init() {}

    /// The counts so far.
    public var snapshot: (lags: Int, storeRows: Int) {
        (lags.load(ordering: .relaxed), storeRows.load(ordering: .relaxed))
    }

    func lagged() {
        lags.add(1, ordering: .relaxed)
    }

    func readFromStore(_ rows: Int) {
        storeRows.add(rows, ordering: .relaxed)
    }
}
