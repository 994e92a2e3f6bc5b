import HeraldCore
import Logging
import NIOCore
import NIOWebSocket

/// A WebSocket stream session on the connection itself, behind NIO's frame codec: the protocol's
/// server side as the stream needs it, and the session's messages, with no task held while idle
/// (`LiveSession`; a session that ran in the connection's task held ~28 KB of suspended frames).
///
/// What it answers: a ping with its pong; a close with a close (1000, or 1002 for a bad code or a
/// reason that is not UTF-8), then it closes the connection; a reserved opcode, reserved bits, or a
/// fragmented or oversized control frame with 1002; text and binary messages are read and dropped
/// (the stream is one way). It pings every `pingInterval` and closes with 1001 when a ping went
/// unanswered for a whole interval. When the session ends (the server shuts down) it sends 1000 and
/// waits up to `closeTimeout` for the client's close.
final class WebSocketStreamHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The longest frame it writes: longer messages go out in continuation frames.
    static let maximumFrameBytes = 1 << 14
    static let closeTimeout = TimeAmount.seconds(15)

    private enum State {
        case open
        /// A close was sent; the client's close (or the timeout) ends the connection.
        case closing(Scheduled<Void>?)
        case closed
    }

    private let start: @Sendable (WebSocketStreamTransport) -> LiveSession
    private let pingInterval: TimeAmount
    private var state = State.open
    private var session: LiveSession?
    private var pinger: RepeatedTask?
    /// The payload of the last ping not answered yet.
    private var unansweredPing: ByteBuffer?

    /// `start` makes the session once the handler is in place (it starts writing at once).
    init(pingInterval: TimeAmount, start: @escaping @Sendable (WebSocketStreamTransport) -> LiveSession) {
        self.pingInterval = pingInterval
        self.start = start
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added while the upgrade is completed: the session starts once that is done.
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = bound.value
            guard case .open = handler.state, context.channel.isActive else { return }
            let session = handler.start(WebSocketStreamTransport(place: HandlerOnLoop(handler, context: context)))
            handler.session = session
            handler.pinger = context.eventLoop.scheduleRepeatedTask(
                initialDelay: handler.pingInterval, delay: handler.pingInterval
            ) { _ in
                let (handler, context) = bound.value
                handler.ping(context: context)
            }
            session.start(heartbeatEvery: nil, on: context.eventLoop)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        state = .closed
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            // The server shuts down: the session ends, then its transport sends 1000.
            session?.finish()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            receivedClose(frame, context: context)
        case .ping:
            guard frame.fin, frame.length < 126 else { return close(.protocolError, context: context) }
            if case .open = state {
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
            }
        case .pong:
            guard frame.fin else { return close(.protocolError, context: context) }
            if frame.unmaskedData == unansweredPing { unansweredPing = nil }
        case .text, .binary, .continuation:
            // No extension is negotiated: reserved bits are an error; messages are dropped.
            guard frame.reservedBits.isEmpty else { return close(.protocolError, context: context) }
        default:
            close(.protocolError, context: context)
        }
    }

    /// Sends a ping, or closes with 1001 when the last one went unanswered for a whole interval.
    private func ping(context: ChannelHandlerContext) {
        guard case .open = state else { return }
        if unansweredPing != nil {
            close(.goingAway, reason: "Ping timeout", context: context)
            context.close(promise: nil)
            return
        }
        var data = context.channel.allocator.buffer(capacity: 16)
        for _ in 0..<2 { data.writeInteger(UInt64.random(in: .min ... .max)) }
        unansweredPing = data
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: data)), promise: nil)
    }

    private func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        stop()
        switch state {
        case .open:
            state = .closed
            let reply = Self.closeReply(to: frame)
            let channel = context.channel
            writeClose(reply, reason: nil, context: context).whenComplete { _ in channel.close(promise: nil) }
        case .closing(let timeout):
            timeout?.cancel()
            state = .closed
            context.close(promise: nil)
        case .closed:
            break
        }
    }

    /// The code to answer a client's close with (RFC 6455 §7.4): 1000, or 1002 for a one-byte body,
    /// a code no endpoint may send, or a reason that is not UTF-8.
    static func closeReply(to frame: WebSocketFrame) -> WebSocketErrorCode {
        var data = frame.unmaskedData
        guard frame.reservedBits.isEmpty, data.readableBytes != 1 else { return .protocolError }
        guard let code = data.readInteger(as: UInt16.self) else { return .normalClosure }
        let validCode =
            switch code {
            case 1000...1003, 1007...1011, 3000...4999: true
            default: false
            }
        guard validCode, String(validating: data.readableBytesView, as: UTF8.self) != nil else {
            return .protocolError
        }
        return .normalClosure
    }

    /// Sends a close (once) and waits for the client's, up to `closeTimeout`.
    fileprivate func close(_ code: WebSocketErrorCode, reason: String? = nil, context: ChannelHandlerContext) {
        guard case .open = state else { return }
        stop()
        let channel = context.channel
        state = .closing(context.eventLoop.scheduleTask(in: Self.closeTimeout) { channel.close(promise: nil) })
        writeClose(code, reason: reason, context: context).whenFailure { _ in channel.close(promise: nil) }
    }

    private func writeClose(_ code: WebSocketErrorCode, reason: String?, context: ChannelHandlerContext)
        -> EventLoopFuture<Void>
    {
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(reason) }
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
    }

    /// Stops the session and the pings.
    private func stop() {
        pinger?.cancel()
        pinger = nil
        session?.finish()
    }

    /// Writes `messages` (each in frames of at most `maximumFrameBytes`) while the connection takes
    /// more, flushing once; gives what is left once it stops taking more (when the last message
    /// written is), else nothing at once. An output's messages (encoded already) go in one hop to
    /// the event loop, not one each: a hop is two thread wake-ups, the session's task's and the
    /// loop's, and a commit's batch is a message a notification.
    fileprivate func writeMessages(
        _ messages: ArraySlice<ByteBuffer>, context: ChannelHandlerContext
    ) -> EventLoopFuture<ArraySlice<ByteBuffer>> {
        guard case .open = state else { return context.eventLoop.makeFailedFuture(ChannelError.outputClosed) }
        var rest = messages
        while let message = rest.popFirst() {
            // Only the message's last frame is waited for: the frames before it take no promise.
            let frames = Self.frames(message)
            for frame in frames.dropLast() { context.write(wrapOutboundOut(frame), promise: nil) }
            let written = context.write(wrapOutboundOut(frames[frames.count - 1]))
            // Past the connection's buffer: flushed, and waited for unless the socket took it all.
            if !context.channel.isWritable {
                context.flush()
                if !context.channel.isWritable { return written.map { [rest] in rest } }
            }
        }
        context.flush()
        return context.eventLoop.makeSucceededFuture([])
    }

    /// A text message as frames of at most `maximumBytes`: a text frame, then continuations, the last
    /// one final.
    static func frames(_ text: ByteBuffer, maximumBytes: Int = maximumFrameBytes) -> [WebSocketFrame] {
        var rest = text
        var frames: [WebSocketFrame] = []
        repeat {
            let part = rest.readSlice(length: min(rest.readableBytes, maximumBytes))!
            frames.append(
                WebSocketFrame(fin: rest.readableBytes == 0, opcode: frames.isEmpty ? .text : .continuation, data: part)
            )
        } while rest.readableBytes > 0
        return frames
    }
}

/// A WebSocket session's transport: its handler's place in the pipeline, from any task.
struct WebSocketStreamTransport: LiveSessionTransport {
    let place: HandlerOnLoop<WebSocketStreamHandler>

    func write(_ output: LiveFeedOutput) async throws {
        var rest = try WebSocketStreams.messages(output)[...]
        while !rest.isEmpty {
            rest = try await place.submit { [rest] handler, context in handler.writeMessages(rest, context: context) }
        }
    }

    /// Sends 1000 and waits for the client's close.
    func end() {
        place.execute { handler, context in handler.close(.normalClosure, context: context) }
    }

    /// Sends 1011 and waits for the client's close.
    func fail() {
        place.execute { handler, context in handler.close(.unexpectedServerError, context: context) }
    }
}
