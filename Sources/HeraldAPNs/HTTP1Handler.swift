import HeraldCore
import NIOCore
import NIOHTTP1

/// The APNs endpoint over HTTP/1.1, with the same semantics as over HTTP/2 (APNSwift's own tests
/// talk to `http://127.0.0.1` this way).
final class HTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connection = APNsConnection()
    private let handler: any PushHandler
    private let tracker: ConnectionTracker
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(handler: any PushHandler, tracker: ConnectionTracker) {
        self.handler = handler
        self.tracker = tracker
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
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
                Self.write(failure, version: version, keepAlive: false, to: channel)
                return
            }
            Self.process(request, version: version, keepAlive: keepAlive, channel: channel,
                         handler: handler, connection: connection, tracker: tracker)
        }
    }

    private static func process(
        _ request: sending APNsRequest, version: HTTPVersion, keepAlive: Bool, channel: any Channel,
        handler: any PushHandler, connection: APNsConnection, tracker: ConnectionTracker
    ) {
        Task {
            let response = await handler.handle(request, connection: connection)
            write(response, version: version, keepAlive: keepAlive && !tracker.isQuiescing, to: channel)
                .whenComplete { _ in tracker.requestFinished() }
        }
    }

    @discardableResult
    static func write(_ response: APNsResponse, version: HTTPVersion, keepAlive: Bool, to channel: any Channel) -> EventLoopFuture<Void> {
        var headers = HTTPHeaders()
        headers.add(name: "apns-id", value: response.apnsID)
        if let uniqueID = response.uniqueID { headers.add(name: "apns-unique-id", value: uniqueID) }
        let body = response.body ?? ""
        if response.body != nil { headers.add(name: "content-type", value: "application/json") }
        headers.add(name: "content-length", value: String(body.utf8.count))
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        if !body.isEmpty {
            channel.write(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: body))), promise: nil)
        }
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { done.whenComplete { _ in channel.close(promise: nil) } }
        return done
    }
}
