import HeraldCore
import Logging
import NIOCore
import NIOHTTP1

/// The APNs endpoint over HTTP/1.1, with the same semantics as over HTTP/2 (APNSwift's own tests
/// talk to `http://127.0.0.1` this way).
///
/// A request NIO's decoder cannot parse (a request line or header block over its 80 KiB limits,
/// bytes that are not HTTP) is answered `400` with `connection: close` by the
/// `HTTPServerProtocolErrorHandler` before it, and this handler then stops reading and closes the
/// connection — at once, or when the answer to a request taken before the error is written (within
/// `HTTP2ConnectionHandler.closeDeadline`). The decoder itself would otherwise keep the connection
/// open and discard whatever else the peer sends.
final class HTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connection = APNsConnection()
    private let handler: any PushHandler
    private let tracker: ConnectionTracker
    private let logger: Logger
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    /// Whether a request is being answered (the pipelining handler lets one through at a time).
    private var isAnswering = false
    private var isClosing = false

    init(handler: any PushHandler, tracker: ConnectionTracker, logger: Logger) {
        self.handler = handler
        self.tracker = tracker
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !isClosing else { return }
        isClosing = true
        logger.debug(
            "APNs HTTP/1.1 connection closed after an error",
            metadata: [
                "apns.error": "\(error)", "apns.peer": "\(context.channel.remoteAddress.map { "\($0)" } ?? "?")",
            ])
        head = nil
        body = []
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        guard isAnswering else {
            context.close(promise: nil)
            return
        }
        let deadline = context.eventLoop.scheduleTask(in: HTTP2ConnectionHandler.closeDeadline) {
            [channel = context.channel] in
            channel.close(promise: nil)
        }
        context.channel.closeFuture.whenComplete { _ in deadline.cancel() }
    }

    /// Called on the event loop once an answer is written.
    private func answered(channel: any Channel) {
        isAnswering = false
        if isClosing { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            RequestBody.append(&buffer, to: &body)
        case .end:
            guard let head else { return }
            self.head = nil
            let request = APNsRequest(
                method: head.method.rawValue,
                path: head.uri,
                headers: head.headers.compactMap { name, value in
                    let lowered = name.lowercased()
                    return lowered == "host" || lowered == "content-length" || lowered == "connection"
                        ? nil : (name: lowered, value: value)
                },
                body: body
            )
            let channel = context.channel
            let keepAlive = head.isKeepAlive
            let version = head.version
            guard tracker.requestStarted() else {
                let failure = APNsResponse(failure: APNsFailure(.shutdown), apnsID: request.header("apns-id") ?? "")
                let tracker = self.tracker
                Self.write(failure, version: version, keepAlive: false, to: channel).whenComplete { _ in
                    tracker.requestFinished()
                }
                return
            }
            isAnswering = true
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            Self.process(
                request, version: version, keepAlive: keepAlive, channel: channel,
                handler: handler, connection: connection, tracker: tracker
            ) {
                loopBound.value.answered(channel: channel)
            }
        }
    }

    private static func process(
        _ request: sending APNsRequest, version: HTTPVersion, keepAlive: Bool, channel: any Channel,
        handler: any PushHandler, connection: APNsConnection, tracker: ConnectionTracker,
        answered: @escaping @Sendable () -> Void
    ) {
        Task {
            let response = await handler.handle(request, connection: connection)
            write(response, version: version, keepAlive: keepAlive && !tracker.isQuiescing, to: channel)
                .whenComplete { _ in
                    tracker.requestFinished()
                    answered()  // the write's future completes on the channel's event loop
                }
        }
    }

    @discardableResult
    static func write(_ response: APNsResponse, version: HTTPVersion, keepAlive: Bool, to channel: any Channel)
        -> EventLoopFuture<Void>
    {
        var headers = HTTPHeaders()
        headers.add(name: "apns-id", value: response.apnsID)
        if let uniqueID = response.uniqueID { headers.add(name: "apns-unique-id", value: uniqueID) }
        let body = response.body ?? ""
        if response.body != nil { headers.add(name: "content-type", value: "application/json") }
        headers.add(name: "content-length", value: String(body.utf8.count))
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(
            version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        if !body.isEmpty {
            channel.write(
                HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: body))), promise: nil)
        }
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { done.whenComplete { _ in channel.close(promise: nil) } }
        return done
    }
}
