import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import Synchronization

/// A connection of the JSON API: counted against the API's connection limit, `RequestHeadGuard`
/// first in its pipeline, then HTTP/1.1 with the WebSocket upgrade of the stream route.
///
/// Live sessions are served on the connection, with no task held while they are idle: a WebSocket
/// upgrade of `/v1/devices/{id}/stream` whose token and cursor check out becomes a
/// `WebSocketStreamHandler`, an SSE request of it an `EventStreamHandler`. Hummingbird's connection
/// task (`handleHTTP`: the router), which would keep the frames of its deepest call for the life of
/// the connection, starts only when the connection's first request is for the router
/// (`ConnectionRoute`). A refused upgrade is answered with the route's JSON error, then closed.
struct APIChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The connection is a WebSocket stream session.
        case webSocketStream
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// A WebSocket upgrade refused with this error.
        case refusedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, APIError)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        /// How the first request of a connection that was not upgraded is served.
        let route: EventLoopFuture<ConnectionRoute.Kind>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let dependencies: APIDependencies
    let authenticator: Authenticator
    let connections: APIConnectionCount

    init(responder: @escaping HTTPChannelHandler.Responder, dependencies: APIDependencies) {
        self.responder = Self.upgradeRedirecting(responder)
        self.dependencies = dependencies
        self.authenticator = Authenticator(adminToken: dependencies.adminToken, store: dependencies.store)
        self.connections = APIConnectionCount(limit: dependencies.maximumConnections)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard connections.add(channel) else {
            if connections.refused() {
                dependencies.logger.warning(
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
            try channel.pipeline.syncOperations.addHandler(
                RequestHeadGuard(timeout: TimeAmount(dependencies.idleTimeout)), position: .first)
            // What a connection may have written but not sent before its writes wait: streams write
            // until then, so with a client that never reads this is most of what its session holds.
            // NIO's default (64 KiB) made 2,000 stalled sessions cost ~140 KB each; the kernel's
            // socket buffer still lets a reading client take bursts.
            try channel.syncOptions?.setOption(
                ChannelOptions.writeBufferWaterMark, value: APIConnectionCount.writeBufferWaterMark)
            let upgrade = try configureUpgrade(channel, logger: logger)
            return channel.eventLoop.makeSucceededFuture(
                Value(upgradeResult: upgrade, route: route.decided.futureResult, channel: channel))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    /// NIO's upgradable HTTP/1.1 pipeline with the stream's WebSocket upgrader; a connection that
    /// is not upgraded gets the HTTP/1 handlers Hummingbird's own channel would add, and
    /// `EventStreamHandler` among them.
    private func configureUpgrade(_ channel: any Channel, logger: Logger) throws -> EventLoopFuture<UpgradeResult> {
        // What the upgrade check decided, for the pipeline handlers that follow it.
        let decision = NIOLoopBoundBox(UpgradeDecision.none, eventLoop: channel.eventLoop)
        let dependencies = self.dependencies
        let authenticator = self.authenticator
        let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
            maxFrameSize: 1 << 14,
            shouldUpgrade: { channel, head in
                let promise = channel.eventLoop.makePromise(of: UpgradeDecision.self)
                promise.completeWithTask {
                    do {
                        let request = try Self.request(head)
                        let start = try await WebSocketStreams.checkUpgrade(
                            request, authenticator: authenticator, store: dependencies.store)
                        return .accepted(device: start.device, cursor: start.cursor)
                    } catch {
                        let refusal =
                            (error as? StorageFaultError).map(APIError.storageFault) ?? error as? APIError
                            ?? .internalError
                        if refusal == .internalError {
                            dependencies.logger.error(
                                "WebSocket upgrade failed",
                                metadata: ["error.type": .string(String(describing: type(of: error)))])
                        }
                        return .refused(refusal)
                    }
                }
                return promise.futureResult.map { result in
                    decision.value = result
                    if case .accepted = result { return HTTPHeaders() }
                    return nil
                }
            },
            upgradePipelineHandler: { channel, _ in
                guard case .accepted(let device, let cursor) = decision.value else {
                    return channel.eventLoop.makeFailedFuture(ChannelError.inappropriateOperationForState)
                }
                var logger = dependencies.logger
                logger[metadataKey: "device.id"] = .string(device.deviceID)
                let handler = WebSocketStreamHandler(pingInterval: TimeAmount(dependencies.webSocketPingInterval)) {
                    [logger] transport in
                    LiveSession(
                        deviceID: device.deviceID, cursor: cursor, dependencies: dependencies, logger: logger,
                        transport: transport)
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(handler)
                    dependencies.openStreams.add(channel)
                    return .webSocketStream
                }
            }
        )
        let idleTimeout = dependencies.idleTimeout
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
            upgradeConfiguration: NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try sync.addHandler(
                            EventStreamHandler(dependencies: dependencies, authenticator: authenticator))
                        try sync.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
                        let http1 = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        if case .refused(let error) = decision.value { return .refusedUpgrade(http1, error) }
                        return .notUpgraded(http1)
                    }
                }
            )
        )
        configuration.enablePipelining = false  // requests are taken one at a time by the connection's task
        configuration.enableErrorHandling = false  // Hummingbird's handleHTTP answers parse errors
        configuration.enableResponseHeaderValidation = false  // swift-http-types validates them
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .webSocketStream:
                // Served on the connection; no task waits for it.
                return
            case .notUpgraded(let http1):
                // An SSE stream as the first request is served on the connection too.
                if try await value.route.get() == .eventStream { return }
                await handleHTTP(asyncChannel: http1, logger: logger)
            case .refusedUpgrade(let http1, let error):
                await Self.refuse(error, on: http1)
            }
        } catch {
            logger.trace("API connection ended before its first request", metadata: ["error.type": "\(error)"])
        }
    }

    /// Answers a refused upgrade with the route's JSON error and closes.
    private static func refuse(_ error: APIError, on http1: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>) async {
        let response = error.makeResponse()
        var headers = response.headers
        headers[.connection] = "close"
        let body =
            (try? JSONBody.encode(ErrorEnvelope(error: .init(code: error.code, message: error.message)))) ?? Data()
        headers[.contentLength] = String(body.count)
        try? await http1.executeThenClose { _, outbound in
            try await outbound.write(
                contentsOf: [
                    .head(HTTPResponse(status: error.status, headerFields: headers)), .body(ByteBuffer(bytes: body)),
                    .end(nil),
                ])
        }
    }

    /// NIO's request head as swift-http-types' request (the stream checks read those).
    static func request(_ head: HTTPRequestHead) throws -> HTTPRequest {
        guard let method = HTTPRequest.Method(head.method.rawValue) else {
            throw APIError.notFound("not_found", "No route.")
        }
        var fields = HTTPFields()
        for (name, value) in head.headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return HTTPRequest(
            method: method, scheme: nil, authority: head.headers.first(name: "host"), path: head.uri,
            headerFields: fields)
    }

    /// A request with `Upgrade: websocket` that reaches the router (only a connection's first request
    /// is upgraded) is redirected to its own URL with `connection: close`, so the client upgrades on a
    /// new connection (as hummingbird-websocket does).
    static func upgradeRedirecting(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder
    {
        struct RedirectClose: Error {}
        return { request, responseWriter, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, responseWriter, channel)
            }
            var path = request.uri.path
            if let query = request.uri.query { path += "?\(query)" }
            try await responseWriter.writeResponse(
                HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: path]))
            throw RedirectClose()
        }
    }
}

/// What a WebSocket upgrade check decided.
private enum UpgradeDecision: Sendable {
    case none
    case accepted(device: Device, cursor: Int64)
    case refused(APIError)
}

/// Decides whether a JSON API connection that was not upgraded runs Hummingbird's connection task:
/// not when its first request becomes an event stream, yes on anything else — a request for the
/// router, an error, the connection's end (then the task cleans up as it always did).
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
