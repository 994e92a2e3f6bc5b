import HeraldCore
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// A child channel of the API server: counted against the API's connection limit, with
/// `RequestHeadGuard` first in its pipeline, and Hummingbird's connection task started only for a
/// connection whose first request is not an event stream (`ConnectionRoute`).
struct APIChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let base: Base.Value
        /// How the connection's first request is served.
        let route: EventLoopFuture<ConnectionRoute.Kind>
        var channel: any Channel { base.channel }
    }

    let base: Base
    let timeout: TimeAmount
    let connections: APIConnectionCount
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard connections.add(channel) else {
            if connections.refused() {
                self.logger.warning(
                    "API connection refused: too many open connections",
                    metadata: ["api.maximum_connections": "\(connections.limit)"])
            }
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(APIConnectionCount.TooMany())
        }
        let route = ConnectionRoute(decided: channel.eventLoop.makePromise())
        do {
            try channel.pipeline.syncOperations.addHandler(route, position: .first)
            try channel.pipeline.syncOperations.addHandler(CloseAfterResponse(), position: .first)
            try channel.pipeline.syncOperations.addHandler(RequestHeadGuard(timeout: timeout), position: .first)
            // What a connection may have written but not sent before its writes wait: streams write
            // until then, so with a client that never reads this is most of what its session holds.
            // NIO's default (64 KiB) made 2,000 stalled sessions cost ~140 KB each; the kernel's
            // socket buffer still lets a reading client take bursts.
            try channel.syncOptions?.setOption(
                ChannelOptions.writeBufferWaterMark, value: APIConnectionCount.writeBufferWaterMark)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).map { Value(base: $0, route: route.decided.futureResult) }
    }

    func handle(value: Value, logger: Logger) async {
        // An event stream is served on the connection (`EventStreamHandler`): Hummingbird's task,
        // which would keep the frames of its handler chain for the life of the session, never starts.
        if (try? await value.route.get()) == .eventStream {
            try? await value.channel.closeFuture.get()
            return
        }
        await base.handle(value: value.base, logger: logger)
    }
}

/// Decides whether a JSON API connection runs Hummingbird's connection task: not when its first
/// request becomes an event stream, yes on anything else — a request for the router, a WebSocket
/// upgrade, an error, the connection's end (then the task cleans up as it always did).
final class ConnectionRoute: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Kind: Sendable { case router, eventStream }

    let decided: EventLoopPromise<Kind>
    private var isDecided = false

    init(decided: EventLoopPromise<Kind>) { self.decided = decided }

    /// Decides the first time; later calls change nothing. On the channel's event loop.
    func decide(_ kind: Kind) {
        guard !isDecided else { return }
        isDecided = true
        decided.succeed(kind)
    }

    /// Decides for `channel` from any thread (the WebSocket upgrade's decision).
    static func decide(_ kind: Kind, on channel: any Channel) {
        channel.eventLoop.execute {
            (try? channel.pipeline.syncOperations.handler(type: ConnectionRoute.self))?.decide(kind)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        decide(.router)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        decide(.router)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        decide(.router)
    }
}

/// The open connections of the JSON API, against its limit.
final class APIConnectionCount: Sendable {
    struct TooMany: Error {}

    /// The write buffer bounds of an API connection (see `setup`).
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 8 << 10, high: 16 << 10)

    let limit: Int
    private let state = HeraldMutex((open: 0, refused: 0))

    init(limit: Int) { self.limit = limit }

    /// Counts the channel in until it closes; false (and not counted) past the limit.
    func add(_ channel: any Channel) -> Bool {
        let added = state.withLock { state in
            guard state.open < limit else { return false }
            state.open += 1
            return true
        }
        if added { channel.closeFuture.whenComplete { _ in self.state.withLock { $0.open -= 1 } } }
        return added
    }

    /// Counts a refusal; true for the first and every 1,000th (log those, not each).
    func refused() -> Bool {
        state.withLock { state in
            state.refused += 1
            return state.refused % 1000 == 1
        }
    }

    var open: Int { state.withLock { $0.open } }
}
