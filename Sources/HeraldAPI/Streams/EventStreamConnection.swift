import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Serves `GET /v1/devices/{device_id}/stream` as Server-Sent Events on the connection itself, so
/// that an idle session holds no task.
///
/// A request served by the router runs in the connection's task, and a task keeps the stack of its
/// deepest call for as long as it lives: an SSE session answered by the route held ~24 KB of
/// suspended frames (Hummingbird's handler chain, the route's body, its heartbeat task) besides the
/// connection — 39 KiB a session in all, 3.9 GB for 100,000 (`scripts/bench-sessions`). This
/// handler sits behind the HTTP/1 codec: a stream request whose token and cursor check out never
/// reaches the router; its events are written by a short task that runs while the feed has
/// something to write and ends when the device is quiet (`LiveFeed.Iterator.step`,
/// `LiveSubscription.whenReady`), and its heartbeat is a timer of the event loop.
///
/// A request that does not check out goes on to the router, which answers it with the route's JSON
/// error (it checks again: only refusals pay twice). The route stays the stream's implementation for
/// what does not come through this pipeline (the router in tests).
final class EventStreamHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Requests go to the router.
        case passing
        /// A stream request is being checked; what arrives meanwhile waits with it.
        case checking([HTTPRequestPart])
        case streaming(LiveSession)
        case closed
    }

    private let dependencies: APIDependencies
    private let authenticator: Authenticator
    private var state = State.passing
    /// Told how the connection's first request is served.
    private var route: ConnectionRoute?
    /// Requests passed to the router whose response has not ended: a stream is taken over only on a
    /// connection with nothing in flight, so its bytes never mix with another response's.
    private var requestsInFlight = 0

    init(dependencies: APIDependencies, authenticator: Authenticator) {
        self.dependencies = dependencies
        self.authenticator = authenticator
    }

    func handlerAdded(context: ChannelHandlerContext) {
        route = try? context.pipeline.syncOperations.handler(type: ConnectionRoute.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch state {
        case .passing:
            if case .head(let head) = part {
                if requestsInFlight == 0, Self.isEventStream(head) {
                    state = .checking([part])
                    check(head, context: context)
                    return
                }
                requestsInFlight += 1
                route?.decide(.router)
            }
            context.fireChannelRead(data)
        case .checking(var parts):
            parts.append(part)
            state = .checking(parts)
        case .streaming, .closed:
            // An event stream reads nothing more from its client.
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), requestsInFlight > 0 { requestsInFlight -= 1 }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .streaming(let session) = state { session.finish() }
        state = .closed
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, case .streaming(let session) = state {
            // The server shuts down: the session ends its response and closes the connection.
            session.finish()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Whether `head` asks for the device's event stream. A WebSocket upgrade gets here only when it
    /// is not a connection's first request: the router redirects it to a new connection.
    static func isEventStream(_ head: HTTPRequest) -> Bool {
        head.method == .get && head.headerFields[.upgrade] == nil
            && WebSocketStreams.deviceID(inStreamPath: URI(head.path ?? "/").path) != nil
    }

    private func check(_ head: HTTPRequest, context: ChannelHandlerContext) {
        let authenticator = self.authenticator
        let store = dependencies.store
        let promise = context.eventLoop.makePromise(of: (device: Device, cursor: Int64).self)
        promise.completeWithTask {
            try await WebSocketStreams.start(head, authenticator: authenticator, store: store)
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        promise.futureResult.whenComplete { result in
            let (handler, context) = bound.value
            handler.checked(result, context: context)
        }
    }

    private func checked(_ result: Result<(device: Device, cursor: Int64), any Error>, context: ChannelHandlerContext) {
        guard case .checking(let parts) = state else { return }
        guard case .success(let start) = result else {
            // The router answers it (with the route's error).
            state = .passing
            requestsInFlight += 1
            route?.decide(.router)
            for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
            // NIO's async channel hands reads on at the end of a read burst.
            context.fireChannelReadComplete()
            return
        }
        // The router's idle timeout would close a connection it sees no request on: the session has
        // its heartbeat instead.
        if let idle = try? context.pipeline.syncOperations.handler(type: HTTPConnectionStateHandler.self) {
            context.pipeline.syncOperations.removeHandler(idle, promise: nil)
        }
        var logger = dependencies.logger
        logger[metadataKey: "device.id"] = .string(start.device.deviceID)
        let session = LiveSession(
            deviceID: start.device.deviceID, cursor: start.cursor, dependencies: dependencies, logger: logger,
            transport: EventStreamTransport(place: HandlerOnLoop(self, context: context))
        )
        state = .streaming(session)
        route?.decide(.eventStream)
        dependencies.openStreams.add(context.channel)
        context.write(
            wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: ServerSentEvents.headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(ByteBuffer(string: ": connected\n\n"))), promise: nil)
        session.start(heartbeatEvery: TimeAmount(dependencies.heartbeatInterval), on: context.eventLoop)
    }

    /// Writes `part` on the event loop; succeeds at once while the connection takes more, else when
    /// the part is written (the session waits for a client that does not read).
    fileprivate func write(_ part: HTTPResponsePart, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let written = context.writeAndFlush(wrapOutboundOut(part))
        return context.channel.isWritable ? context.eventLoop.makeSucceededVoidFuture() : written
    }
}

/// An SSE session's transport: its handler's place in the pipeline, from any task.
struct EventStreamTransport: LiveSessionTransport {
    let place: HandlerOnLoop<EventStreamHandler>

    func write(_ output: LiveFeedOutput) async throws {
        try await ServerSentEvents.write(output) { buffer in
            try await place.submit { handler, context in handler.write(.body(buffer), context: context) }
        }
    }

    /// Ends the response and closes the connection.
    func end() {
        place.execute { handler, context in
            let channel = context.channel
            handler.write(.end(nil), context: context).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func fail() {
        place.execute { _, context in context.close(promise: nil) }
    }
}
