import NIOCore
import ServiceLifecycle
import Synchronization

/// The connections serving a live session (SSE or WebSocket) on this node, so that a graceful
/// shutdown waits for them to say goodbye.
///
/// A session served on its connection has no task (`LiveSession`): Hummingbird's server, which
/// waits for its connections' tasks when it stops, would not wait for it, and the process ended
/// while a WebSocket's close frame was still to be written (a client saw the connection drop, no
/// 1000). `StreamsDrain` waits for these connections instead.
public final class OpenStreams: Sendable {
    private let open = Mutex(0)

    public init() {}

    /// Counts `channel` in until it closes.
    func add(_ channel: any Channel) {
        open.withLock { $0 += 1 }
        channel.closeFuture.whenComplete { _ in self.open.withLock { $0 -= 1 } }
    }

    /// The connections open now.
    public var count: Int { open.withLock { $0 } }

    /// Returns when no stream connection is open (looked at every 20 ms: a shutdown's wait), or
    /// after `limit`; false when some still were.
    public func drained(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return count == 0
    }
}

/// Waits, when its turn in the graceful shutdown comes (right after the API server stopped taking
/// connections), for the live sessions' connections to end: their sessions were ended when the hub
/// closed, an SSE response ends at once, a WebSocket waits for its client's close (at most 15 s).
public struct StreamsDrain: Service, CustomStringConvertible {
    let streams: OpenStreams
    let limit: Duration

    public var description: String { "StreamsDrain" }

    public init(streams: OpenStreams, limit: Duration = .seconds(20)) {
        self.streams = streams
        self.limit = limit
    }

    public func run() async throws {
        try? await gracefulShutdown()
        _ = await streams.drained(within: limit)
    }
}
