import HeraldCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2

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
/// On a connection error (NIOHTTP2 has already sent GOAWAY with its code: a CONTINUATION flood, rapid
/// resets, a frame it cannot parse, bad HPACK, …) the handler stops reading at once, writes the
/// answers of requests it already took, and closes the connection — within `closeDeadline` even if
/// the peer does not read. Without this NIOHTTP2 keeps decoding what the peer sends after its GOAWAY,
/// and the connection lives on (a CONTINUATION flood grew the server by 600 MiB in 5 s). An error
/// confined to one request's header block (NIOHTTP2 resets that stream) keeps the connection: NIOHTTP2
/// turns too many of those into a connection error of its own (its glitch limit).
final class HTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A request being received on one stream.
    private struct PendingRequest {
        var method = ""
        var path = ""
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        /// Flow-controlled bytes received on the stream since its window was last opened again.
        var unacknowledged = 0
    }

    /// The connection's initial receive window (RFC 9113 §6.9.2; SETTINGS don't change it).
    static let connectionWindow = 65_535
    /// The stream window the listener advertises (`SETTINGS_INITIAL_WINDOW_SIZE`).
    static let streamWindow = 1 << 20
    /// How long a connection that broke the protocol is given to take the answers of requests
    /// accepted before the error; then it is closed whatever is left.
    static let closeDeadline = TimeAmount.seconds(2)

    private let connection: APNsConnection
    private let handler: any PushHandler
    private let tracker: ConnectionTracker
    private let outbox = ResponseOutbox()
    private var streams: [HTTP2StreamID: PendingRequest] = [:]
    private var unacknowledgedConnectionBytes = 0
    private var context: ChannelHandlerContext?
    /// Answers produced while a read burst is processed; written and flushed at its end.
    private var readBatch: [(HTTP2StreamID, APNsResponse)] = []
    private var isReading = false
    /// Requests dispatched whose answers are not written yet.
    private var awaitingAnswers = 0
    /// Set by a connection error: no frame is read any more, and the connection closes once the
    /// answers owed are written.
    private var isClosing = false
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
        guard !isClosing else { return }
        isReading = true
        let frame = unwrapInboundIn(data)
        let streamID = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            if streams[streamID] == nil {
                var request = PendingRequest()
                for (name, value, _) in headers.headers {
                    switch name {
                    case ":method": request.method = value
                    case ":path": request.path = value
                    case ":scheme", ":authority": break
                    // HTTP/2 header names are lowercase (NIOHTTP2 refuses others); lowercasing
                    // is for a peer that got through anyway.
                    default: request.headers.append((name: name.utf8.contains { $0 >= 0x41 && $0 <= 0x5A } ? name.lowercased() : name, value: value))
                    }
                }
                streams[streamID] = request
            }
            if headers.endStream { dispatch(streamID, context: context) }
        case .data(let data):
            guard case .byteBuffer(var buffer) = data.data else { break }
            let length = buffer.readableBytes + (data.paddingBytes ?? 0)
            openWindows(afterReceiving: length, on: streamID, context: context)
            if streams[streamID] != nil {
                RequestBody.append(&buffer, to: &streams[streamID]!.body)
            }
            if data.endStream { dispatch(streamID, context: context) }
        case .rstStream:
            streams[streamID] = nil
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        isReading = false
        if !readBatch.isEmpty {
            let batch = readBatch
            readBatch = []
            write(batch, context: context)
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A stream NIOHTTP2 reset (a request it refused mid-way) leaves nothing behind here.
        if let closed = event as? StreamClosedEvent {
            streams[closed.streamID] = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if ProtocolErrors.isConfinedToOneStream(error) {
            logger.debug("APNs HTTP/2 stream refused", metadata: ["apns.error": "\(error)"])
            return
        }
        guard !isClosing else { return }
        isClosing = true
        logger.debug("APNs HTTP/2 connection closed after a protocol error", metadata: [
            "apns.error": "\(error)", "apns.peer": "\(context.channel.remoteAddress.map { "\($0)" } ?? "?")",
        ])
        streams = [:]
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        if awaitingAnswers == 0 {
            context.close(promise: nil)
            return
        }
        let deadline = context.eventLoop.scheduleTask(in: Self.closeDeadline) { [channel = context.channel] in
            channel.close(promise: nil)
        }
        context.channel.closeFuture.whenComplete { _ in deadline.cancel() }
    }

    /// Sends WINDOW_UPDATE frames so the client can keep sending: for the connection once half its
    /// window is used, for a stream once half of the stream window is.
    private func openWindows(afterReceiving length: Int, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard length > 0 else { return }
        unacknowledgedConnectionBytes += length
        if unacknowledgedConnectionBytes >= Self.connectionWindow / 2 {
            let increment = unacknowledgedConnectionBytes
            unacknowledgedConnectionBytes = 0
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
            context.flush()
        }
        guard streams[streamID] != nil else { return }
        streams[streamID]!.unacknowledged += length
        if streams[streamID]!.unacknowledged >= Self.streamWindow / 2 {
            let increment = streams[streamID]!.unacknowledged
            streams[streamID]!.unacknowledged = 0
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
            context.flush()
        }
    }

    private func dispatch(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let pending = streams.removeValue(forKey: streamID) else { return }
        awaitingAnswers += 1
        let request = APNsRequest(method: pending.method, path: pending.path, headers: pending.headers, body: pending.body)
        guard tracker.requestStarted() else {
            let apnsID = request.header("apns-id") ?? ""
            readBatch.append((streamID, APNsResponse(failure: APNsFailure(.shutdown), apnsID: apnsID)))
            return
        }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let outbox = self.outbox
        handler.handle(request, connection: connection) { response in
            if eventLoop.inEventLoop, loopBound.value.isReading {
                loopBound.value.readBatch.append((streamID, response))
            } else if outbox.append((streamID, response)) {
                // The first answer since the last drain schedules the drain; later ones join it.
                eventLoop.execute { loopBound.value.drainOutbox() }
            }
        }
    }

    /// Writes every answer that completed off the event loop since the last drain, with one flush.
    private func drainOutbox() {
        let batch = outbox.takeAll()
        guard let context else {
            awaitingAnswers -= batch.count
            tracker.requestsFinished(batch.count)
            return
        }
        write(batch, context: context)
    }

    /// Writes `batch` and flushes once; the requests count as finished when the writes complete.
    private func write(_ batch: [(HTTP2StreamID, APNsResponse)], context: ChannelHandlerContext) {
        guard !batch.isEmpty else { return }
        let done = context.eventLoop.makePromise(of: Void.self)
        for (index, (streamID, response)) in batch.enumerated() {
            Self.write(response, on: streamID, context: context, handler: self, promise: index == batch.count - 1 ? done : nil)
        }
        context.flush()
        let tracker = self.tracker
        let count = batch.count
        awaitingAnswers -= count
        let closeAfterwards = isClosing && awaitingAnswers == 0
        let channel = context.channel
        done.futureResult.whenComplete { _ in
            tracker.requestsFinished(count)
            if closeAfterwards { channel.close(promise: nil) }
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
        if let uniqueID = response.uniqueID { headers.add(name: "apns-unique-id", value: uniqueID, indexing: .nonIndexable) }
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

/// Answers completed off the event loop, waiting for it to write them.
private final class ResponseOutbox: Sendable {
    private let items = NIOLockedValueBox<[(HTTP2StreamID, APNsResponse)]>([])

    /// Adds an answer; true when the outbox was empty (the caller schedules a drain).
    func append(_ item: (HTTP2StreamID, APNsResponse)) -> Bool {
        items.withLockedValue { items in
            items.append(item)
            return items.count == 1
        }
    }

    func takeAll() -> [(HTTP2StreamID, APNsResponse)] {
        items.withLockedValue { items in
            defer { items = [] }
            return items
        }
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
