import HeraldCore
import NIOCore
import NIOHTTP2
import NIOHPACK

/// Collects one HTTP/2 stream's request and answers it with raw frames.
///
/// APNs clients are particular about frames (see the reference): a 200 is ONE HEADERS frame with
/// END_STREAM (aioapns crashes on an extra empty DATA frame, which NIOHTTP2's HTTP/1-style codec
/// would write), and an error is HEADERS followed by ONE DATA frame with END_STREAM. So this handler
/// works on `HTTP2Frame.FramePayload` directly instead of the HTTP/1 codec.
final class HTTP2StreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: APNsConnection
    private let handler: any PushHandler
    private let tracker: ConnectionTracker
    private var method = ""
    private var path = ""
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var sawHeaders = false
    private var dispatched = false

    init(connection: APNsConnection, handler: any PushHandler, tracker: ConnectionTracker) {
        self.connection = connection
        self.handler = handler
        self.tracker = tracker
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if !sawHeaders {
                sawHeaders = true
                for (name, value, _) in frame.headers {
                    switch name {
                    case ":method": method = value
                    case ":path": path = value
                    case ":scheme", ":authority": break
                    default: headers.append((name: name.lowercased(), value: value))
                    }
                }
            }
            if frame.endStream { dispatch(context: context) }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data {
                RequestBody.append(&buffer, to: &body)
            }
            if frame.endStream { dispatch(context: context) }
        default:
            break
        }
    }

    private func dispatch(context: ChannelHandlerContext) {
        guard !dispatched else { return }
        dispatched = true
        let request = APNsRequest(method: method, path: path, headers: headers, body: body)
        let channel = context.channel
        guard tracker.requestStarted() else {
            let apnsID = request.header("apns-id") ?? ""
            Self.write(APNsResponse(failure: APNsFailure(.shutdown), apnsID: apnsID), to: channel)
            return
        }
        Self.process(request, channel: channel, handler: handler, connection: connection, tracker: tracker)
    }

    private static func process(
        _ request: sending APNsRequest, channel: any Channel, handler: any PushHandler,
        connection: APNsConnection, tracker: ConnectionTracker
    ) {
        Task {
            let response = await handler.handle(request, connection: connection)
            write(response, to: channel).whenComplete { _ in tracker.requestFinished() }
        }
    }

    @discardableResult
    static func write(_ response: APNsResponse, to channel: any Channel) -> EventLoopFuture<Void> {
        var headers = HPACKHeaders()
        headers.add(name: ":status", value: String(response.status))
        headers.add(name: "apns-id", value: response.apnsID)
        if let uniqueID = response.uniqueID { headers.add(name: "apns-unique-id", value: uniqueID) }
        guard let body = response.body else {
            return channel.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: true)))
        }
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.utf8.count))
        channel.write(HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: false)), promise: nil)
        let buffer = channel.allocator.buffer(string: body)
        return channel.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(buffer), endStream: true)))
    }
}

/// Request bodies are kept up to one byte past the largest payload APNs accepts: enough to answer
/// PayloadTooLarge at the right step of the checks without buffering an unbounded body.
enum RequestBody {
    static let limit = PushType.voip.maximumPayloadSize + 1

    static func append(_ buffer: inout ByteBuffer, to body: inout [UInt8]) {
        let room = limit - body.count
        guard room > 0 else { return }
        if let bytes = buffer.readBytes(length: min(room, buffer.readableBytes)) {
            body.append(contentsOf: bytes)
        }
    }
}
