import HeraldStore
import Synchronization

// The parts of the committed feed's relay (`PostgresStore+Feed.swift`) that hold its state between
// its listening sessions and the signals they hear.

/// The relay's progress, shared by its listening sessions: the last seq handed on, and which session
/// may hand on. A session left behind (its connection closed under a query that never completes)
/// could otherwise wake later and hand on a range out of order.
final class RelayProgress: Sendable {
    private let state: Mutex<(seen: Int64, session: Int)>

    init(seen: Int64) {
        state = Mutex((seen, 0))
    }

    /// The last seq handed on.
    var seen: Int64 { state.withLock { $0.seen } }

    /// A new session begins: the ones before it hand on nothing more.
    func begin() -> Int {
        state.withLock { state in
            state.session += 1
            return state.session
        }
    }

    /// The relay ends: no session hands on anything more.
    func end() {
        state.withLock { $0.session += 1 }
    }

    /// Hands `change` on (and moves `seen` to `through`) if `session` is still the current one;
    /// throws `FeedConnectionClosed` for one left behind. Under the lock, so two sessions never
    /// interleave their ranges.
    func handOn(
        _ change: SharedChange, through: Int64?, session: Int, to continuation: AsyncStream<SharedChange>.Continuation
    ) throws {
        try state.withLock { state in
            guard state.session == session else { throw FeedConnectionClosed() }
            continuation.yield(change)
            if let through { state.seen = max(state.seen, through) }
        }
    }
}

/// The signals heard on the listening connection, taken all at once by the relay.
final class SignalBuffer: Sendable {
    private struct State {
        var payloads: [String] = []
        var isFinished = false
        var error: (any Error)?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func append(_ payload: String) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isFinished else { return nil }
            state.payloads.append(payload)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// No more signals: the listening ended (`error` nil) or failed.
    func finish(_ error: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.error = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Every signal queued (waiting for one); nil when the listening ended, its error when it failed.
    func take() async throws -> [String]? {
        while true {
            let taken = try state.withLock { state -> [String]?? in
                if !state.payloads.isEmpty {
                    defer { state.payloads = [] }
                    return .some(state.payloads)
                }
                if state.isFinished {
                    if let error = state.error { throw error }
                    return .some(nil)
                }
                return nil
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state -> Bool in
                        if !state.payloads.isEmpty || state.isFinished { return true }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                finish(CancellationError())
            }
        }
    }
}
