import HeraldCore
import NIOCore
import Synchronization

/// The open connections of the APNs listeners and the requests in flight, for graceful shutdown.
final class ConnectionTracker: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: any Channel] = [:]
        var inFlight = 0
        var isQuiescing = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = HeraldMutex(State())

    /// Requests counted in and not yet out.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Whether the listener stopped taking new requests.
    var isQuiescing: Bool { state.withLock { $0.isQuiescing } }

    /// Open connections.
    var connectionCount: Int { state.withLock { $0.connections.count } }

    func add(_ channel: any Channel) {
        _ = add(channel, limit: .max)
    }

    /// Counts a new connection in, unless `limit` connections are already open: false then (the caller
    /// closes it), so that connections can't take every file descriptor of the process.
    func add(_ channel: any Channel, limit: Int) -> Bool {
        let id = ObjectIdentifier(channel)
        let added = state.withLock { state in
            guard state.connections.count < limit else { return false }
            state.connections[id] = channel
            return true
        }
        guard added else { return false }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { _ = $0.connections.removeValue(forKey: id) }
        }
        return true
    }

    /// Counts a request in until `requestsFinished` counts it out — every request, its answer written
    /// or not, so the count stays true; false when shutting down (the caller answers 503 Shutdown).
    func requestStarted() -> Bool {
        state.withLock { state in
            state.inFlight += 1
            return !state.isQuiescing
        }
    }

    func requestFinished() {
        requestsFinished(1)
    }

    /// Counts `count` requests out at once.
    func requestsFinished(_ count: Int) {
        guard count > 0 else { return }
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.inFlight -= count
            guard state.isQuiescing, state.inFlight == 0 else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops new requests and returns the open connections (to be sent GOAWAY).
    func beginQuiescing() -> [any Channel] {
        state.withLock { state in
            state.isQuiescing = true
            return Array(state.connections.values)
        }
    }

    /// Waits until no request is in flight.
    func waitUntilDrained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.inFlight == 0 { return true }
                state.drained.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
