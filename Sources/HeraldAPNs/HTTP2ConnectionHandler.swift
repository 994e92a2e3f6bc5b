import HeraldCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL

/// Collects the requests of every stream of one HTTP/2 connection and answers them with raw frames.
///
/// APNs clients are particular about frames (see the reference): a 200 is ONE HEADERS frame with
/// END_STREAM (aioapns crashes on an extra empty DATA frame, which NIOHTTP2's HTTP/1-style codec
/// would write), and an error is HEADERS followed by ONE DATA frame with END_STREAM. So this handler
/// works on `HTTP2Frame`s directly.
///
/// It sits right after a `NIOHTTP2Handler` created without a stream multiplexer: no child channel
/// per stream, and answers that complete together (a group commit) are written together and flushed
/// once — a child channel and a flush (one `write(2)`) per stream were most of the endpoint's cost.
/// Without the multiplexer, flow control of what the client sends is this handler's job: it opens
/// the connection and stream windows again (WINDOW_UPDATE) as request bodies arrive.
///
/// It is also NIOHTTP2's frame delegate: a GOAWAY that NIOHTTP2 writes with an error code tells it that
/// the error reported next is a connection error, not a stream error (see `ProtocolErrors`).
///
/// On a connection error (NIOHTTP2 has already sent GOAWAY with its code: a CONTINUATION flood, rapid
/// resets, a frame it cannot parse, bad HPACK, …) the handler stops reading at once, writes the
/// answers of requests it already took, and closes the connection — within `closeDeadline` even if
/// the peer does not read. Without this NIOHTTP2 keeps decoding what the peer sends after its GOAWAY,
/// and the connection lives on (a CONTINUATION flood grew the server by 600 MiB in 5 s). An error
/// confined to one request's header block (NIOHTTP2 resets that stream) keeps the connection: NIOHTTP2
/// turns too many of those into a connection error of its own (its glitch limit).
///
/// What to do on each frame and event is decided by `HTTP2ConnectionStateMachine` (the pending requests,
/// the windows, the answers owed, closing); this handler only does it: it writes the frames, hands the
/// requests to the `PushHandler`, keeps the outbox, and stops reading and closes the channel.
final class HTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// How long a connection that broke the protocol is given to take the answers of requests
    /// accepted before the error; then it is closed whatever is left.
    static let closeDeadline = TimeAmount.seconds(2)

    private let connection: APNsConnection
    private let handler: any PushHandler
    private let tracker: ConnectionTracker
    private let outbox = ResponseOutbox()
    /// The connection's state; each event changes it in place and returns what to do.
    private var state = HTTP2ConnectionStateMachine()
    private var context: ChannelHandlerContext?
    private let logger: Logger

    init(connection: APNsConnection, handler: any PushHandler, tracker: ConnectionTracker, logger: Logger) {
        self.connection = connection
        self.handler = handler
        self.tracker = tracker
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let streamID = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            if case .dispatch(let request) = state.headersReceived(
                headers.headers, endStream: headers.endStream, on: streamID)
            {
                dispatch(request, on: streamID, context: context)
            }
        case .data(let data):
            guard case .byteBuffer(var buffer) = data.data else {
                state.otherFrameReceived()
                return
            }
            // A padded frame's flow-controlled length is its whole payload: the data, the padding and
            // the Pad Length byte (RFC 9113 §6.1); `paddingBytes` is the Pad Length value only.
            let length = buffer.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
            let action = state.dataReceived(
                &buffer, flowControlledLength: length, endStream: data.endStream, on: streamID)
            if let increment = action.connectionWindowIncrement {
                writeWindowUpdate(increment, on: .rootStream, context: context)
            }
            if let increment = action.streamWindowIncrement {
                writeWindowUpdate(increment, on: streamID, context: context)
            }
            if case .dispatch(let request) = action.request {
                dispatch(request, on: streamID, context: context)
            }
        case .rstStream:
            state.streamReset(streamID)
        default:
            state.otherFrameReceived()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let batch = state.readComplete() {
            write(batch, context: context)
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A stream NIOHTTP2 reset (a request it refused mid-way) leaves nothing behind here.
        if let closed = event as? StreamClosedEvent {
            state.streamClosed(closed.streamID)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let action = state.errorCaught(error)
        switch action {
        case .streamRefused:
            // The error's type only: NIOHTTP2's descriptions of refused header blocks carry the header
            // values (provider tokens, device tokens in the path), which must never reach the log.
            logger.debug("APNs HTTP/2 stream refused", metadata: ["apns.error": "\(type(of: error))"])
        case .none:
            break
        case .stopReadingAndClose, .stopReadingAndCloseWhenAnswered:
            // A TLS peer that hangs up without close_notify is leaving, not breaking the protocol.
            let isHangUp = (error as? NIOSSLError) == .uncleanShutdown
            let message: Logger.Message =
                isHangUp
                ? "APNs TLS peer closed without close_notify" : "APNs HTTP/2 connection closed after a protocol error"
            logger.log(
                level: isHangUp ? .trace : .debug, message,
                metadata: [
                    "apns.error": "\(type(of: error))",
                    "apns.peer": "\(context.channel.remoteAddress.map { "\($0)" } ?? "?")",
                ])
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            guard case .stopReadingAndCloseWhenAnswered = action else {
                context.close(promise: nil)
                return
            }
            let deadline = context.eventLoop.scheduleTask(in: Self.closeDeadline) { [channel = context.channel] in
                channel.close(promise: nil)
            }
            context.channel.closeFuture.whenComplete { _ in deadline.cancel() }
        }
    }

    /// Sends a WINDOW_UPDATE so the client can keep sending, at once.
    private func writeWindowUpdate(_ increment: Int, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let frame = HTTP2Frame(streamID: streamID, payload: .windowUpdate(windowSizeIncrement: increment))
        context.write(wrapOutboundOut(frame), promise: nil)
        context.flush()
    }

    /// Hands a complete request to the push handler (or answers `503 Shutdown` while quiescing). Its
    /// answer joins the read burst under way when it completes on the event loop during one (the push
    /// handler answered at once), otherwise the outbox.
    private func dispatch(_ request: APNsRequest, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let outbox = self.outbox
        let respond: @Sendable (APNsResponse) -> Void = { response in
            if eventLoop.inEventLoop, case .batched = loopBound.value.state.answerCompleted(response, on: streamID) {
                return
            }
            if outbox.append((streamID, response)) {
                // The first answer since the last drain schedules the drain; later ones join it.
                eventLoop.execute { loopBound.value.drainOutbox() }
            }
        }
        guard tracker.requestStarted() else {
            respond(APNsResponse(failure: APNsFailure(.shutdown), apnsID: request.header("apns-id") ?? ""))
            return
        }
        handler.handle(request, connection: connection, respond: respond)
    }

    /// Writes every answer that completed off the event loop since the last drain, with one flush.
    private func drainOutbox() {
        let answers = outbox.takeAll()
        guard let context else {
            state.answersDropped(count: answers.count)
            tracker.requestsFinished(answers.count)
            return
        }
        if let batch = state.outboxDrained(answers) {
            write(batch, context: context)
        }
    }

    /// Writes a batch and flushes once; the requests count as finished when the writes complete.
    private func write(_ batch: HTTP2ConnectionStateMachine.WriteBatch, context: ChannelHandlerContext) {
        let done = context.eventLoop.makePromise(of: Void.self)
        let last = batch.answers.count - 1
        for (index, (streamID, response)) in batch.answers.enumerated() {
            Self.write(response, on: streamID, context: context, handler: self, promise: index == last ? done : nil)
        }
        context.flush()
        let tracker = self.tracker
        let count = batch.answers.count
        let closeWhenWritten = batch.closeWhenWritten
        let channel = context.channel
        done.futureResult.whenComplete { _ in
            tracker.requestsFinished(count)
            if closeWhenWritten { channel.close(promise: nil) }
        }
    }

    private static func write(
        _ response: APNsResponse, on streamID: HTTP2StreamID, context: ChannelHandlerContext,
        handler: HTTP2ConnectionHandler, promise: EventLoopPromise<Void>?
    ) {
        var headers = HPACKHeaders()
        headers.add(name: ":status", value: response.status == 200 ? "200" : String(response.status))
        // Each answer's ids are new: entering them in the dynamic table would only evict entries
        // (and cost a table search and insert per answer), so they are sent as literals.
        headers.add(name: "apns-id", value: response.apnsID, indexing: .nonIndexable)
        if let uniqueID = response.uniqueID {
            headers.add(name: "apns-unique-id", value: uniqueID, indexing: .nonIndexable)
        }
        guard let body = response.body else {
            let frame = HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))
            context.write(handler.wrapOutboundOut(frame), promise: promise)
            return
        }
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.utf8.count))
        let head = HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: false)))
        context.write(handler.wrapOutboundOut(head), promise: nil)
        let buffer = context.channel.allocator.buffer(string: body)
        let data = HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(buffer), endStream: true)))
        context.write(handler.wrapOutboundOut(data), promise: promise)
    }
}

extension HTTP2ConnectionHandler: NIOHTTP2FrameDelegate {
    /// Called by NIOHTTP2 for each frame it writes; only GOAWAY matters here.
    func wroteFrame(_ frame: HTTP2Frame) {
        if case .goAway(_, let errorCode, _) = frame.payload {
            state.goAwayWritten(errorCode: errorCode)
        }
    }
}

/// Answers completed off the event loop, waiting for it to write them.
private final class ResponseOutbox: Sendable {
    private let items = NIOLockedValueBox<[HTTP2ConnectionStateMachine.Answer]>([])

    /// Adds an answer; true when the outbox was empty (the caller schedules a drain).
    func append(_ item: HTTP2ConnectionStateMachine.Answer) -> Bool {
        items.withLockedValue { items in
            items.append(item)
            return items.count == 1
        }
    }

    func takeAll() -> [HTTP2ConnectionStateMachine.Answer] {
        items.withLockedValue { items in
            defer { items = [] }
            return items
        }
    }
}

/// Request bodies are kept up to one byte past the largest payload APNs accepts: enough to answer
/// PayloadTooLarge at the right step of the checks without buffering an unbounded body.
package enum RequestBody {
    package static let limit = PushType.voip.maximumPayloadSize + 1

    /// Adds the frame's bytes to the body, up to `limit`: the first frame's become the body (one
    /// copy out of the frame), a later frame's are copied in place onto its end.
    static func append(_ buffer: inout ByteBuffer, to body: inout [UInt8]) {
        let count = min(limit - body.count, buffer.readableBytes)
        guard count > 0 else { return }
        if body.isEmpty {
            body = buffer.readBytes(length: count) ?? []
            return
        }
        buffer.withUnsafeReadableBytes { bytes in
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(count)))
        }
        buffer.moveReaderIndex(forwardBy: count)
    }
}
