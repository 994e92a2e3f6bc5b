import HeraldCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Synchronization
import Testing

@testable import HeraldAPNs

/// A `PushHandler` that records the requests it is given and answers them at once (during the read
/// that completed them) or, when `answersAtOnce` is false, only when `answerWaiting()` is called.
///
/// The answer is a 200 with an `apns-unique-id`, or 400 BadDeviceToken for the path `/3/device/bad`.
final class FakePushHandler: PushHandler {
    private struct State {
        var requests: [APNsRequest] = []
        var waiting: [(response: APNsResponse, respond: @Sendable (APNsResponse) -> Void)] = []
    }

    private let answersAtOnce: Bool
    private let state = HeraldMutex(State())

    init(answersAtOnce: Bool = true) {
        self.answersAtOnce = answersAtOnce
    }

    /// The requests handled so far, in order.
    var requests: [APNsRequest] { state.withLock { $0.requests } }
    /// How many requests wait for `answerWaiting()`.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func handle(_ request: APNsRequest, connection: APNsConnection) async -> APNsResponse {
        Self.answer(to: request)
    }

    func handle(_ request: APNsRequest, connection: APNsConnection, respond: @escaping @Sendable (APNsResponse) -> Void)
    {
        let response = Self.answer(to: request)
        let answerNow = state.withLock { state in
            state.requests.append(request)
            if !answersAtOnce { state.waiting.append((response, respond)) }
            return answersAtOnce
        }
        if answerNow { respond(response) }
    }

    /// Answers the requests waiting, in the order they came.
    func answerWaiting() {
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for (response, respond) in waiting { respond(response) }
    }

    static func answer(to request: APNsRequest) -> APNsResponse {
        let apnsID = request.header("apns-id") ?? "generated"
        if request.path == "/3/device/bad" {
            return APNsResponse(failure: APNsFailure(.badDeviceToken), apnsID: apnsID)
        }
        return APNsResponse(status: 200, apnsID: apnsID, uniqueID: "unique-\(apnsID)")
    }
}

/// Counts the flushes that pass it (it sits in front of the handler under test).
final class FlushCounter: ChannelOutboundHandler {
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private(set) var count = 0

    func flush(context: ChannelHandlerContext) {
        count += 1
        context.flush()
    }
}

/// An `EmbeddedChannel` holding a `FlushCounter` and the `HTTP2ConnectionHandler` under test, with
/// helpers to feed it frames and read what it writes.
struct TestConnection {
    let channel: EmbeddedChannel
    let flushes = FlushCounter()
    let pushes: FakePushHandler
    let tracker: ConnectionTracker
    let handler: HTTP2ConnectionHandler

    init(answersAtOnce: Bool = true, tracker: ConnectionTracker = ConnectionTracker()) throws {
        channel = EmbeddedChannel()
        pushes = FakePushHandler(answersAtOnce: answersAtOnce)
        self.tracker = tracker
        handler = HTTP2ConnectionHandler(
            connection: APNsConnection(), handler: pushes, tracker: tracker, logger: Logger(label: "test")
        )
        try channel.pipeline.syncOperations.addHandler(flushes)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
    }

    /// Delivers `frames` as one read burst (channelRead each, then one channelReadComplete).
    func receive(_ frames: HTTP2Frame...) {
        receive(frames)
    }

    func receive(_ frames: [HTTP2Frame]) {
        for frame in frames { channel.pipeline.syncOperations.fireChannelRead(NIOAny(frame)) }
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }

    /// Delivers frames without ending the read burst.
    func read(_ frames: HTTP2Frame...) {
        for frame in frames { channel.pipeline.syncOperations.fireChannelRead(NIOAny(frame)) }
    }

    func readComplete() {
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }

    func fireError(_ error: any Error) {
        channel.pipeline.syncOperations.fireErrorCaught(error)
    }

    /// A connection error as NIOHTTP2 reports one: it writes GOAWAY (telling its frame delegate), then
    /// reports the error.
    func fireConnectionError(_ error: any Error, code: HTTP2ErrorCode = .flowControlError) {
        handler.wroteFrame(
            HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: code, opaqueData: nil)))
        fireError(error)
    }

    /// The frames written since the last call.
    func written() throws -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame) }
        return frames
    }

    /// The WINDOW_UPDATE frames written since the last call, as (stream, increment).
    func windowUpdates() throws -> [WindowUpdate] {
        try written().map { frame in
            guard case .windowUpdate(let increment) = frame.payload else {
                Issue.record("expected WINDOW_UPDATE, got \(frame.payload)")
                return WindowUpdate(stream: -1, increment: -1)
            }
            return WindowUpdate(stream: Int(frame.streamID), increment: increment)
        }
    }

    /// Whether the handler turned autoRead off.
    var stoppedReading: Bool {
        channel.options.contains { $0.option is ChannelOptions.Types.AutoReadOption && ($0.value as? Bool) == false }
    }
}

struct WindowUpdate: Equatable, CustomStringConvertible {
    var stream: Int
    var increment: Int
    var description: String { "WINDOW_UPDATE(stream \(stream), +\(increment))" }
}

/// The HEADERS frame of a request to `path` with an `apns-id` (the default `id-<stream>`).
func requestHeaders(
    _ stream: Int, path: String = "/3/device/ok", apnsID: String? = nil, extra: [(String, String)] = [], endStream: Bool
) -> HTTP2Frame {
    var headers = HPACKHeaders([
        (":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "localhost"),
        ("apns-id", apnsID ?? "id-\(stream)"),
    ])
    for (name, value) in extra { headers.add(name: name, value: value) }
    return HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .headers(.init(headers: headers, endStream: endStream)))
}

/// A DATA frame carrying `bytes` (and `padding` bytes of padding).
func dataFrame(_ stream: Int, _ bytes: [UInt8], padding: Int? = nil, endStream: Bool = false) -> HTTP2Frame {
    let buffer = ByteBuffer(bytes: bytes)
    return HTTP2Frame(
        streamID: HTTP2StreamID(stream),
        payload: .data(.init(data: .byteBuffer(buffer), endStream: endStream, paddingBytes: padding))
    )
}

/// A DATA frame of `count` bytes of `byte`.
func dataFrame(_ stream: Int, count: Int, byte: UInt8 = 0x61, padding: Int? = nil, endStream: Bool = false)
    -> HTTP2Frame
{
    dataFrame(stream, [UInt8](repeating: byte, count: count), padding: padding, endStream: endStream)
}

func rstStream(_ stream: Int) -> HTTP2Frame {
    HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .rstStream(.cancel))
}

/// What one answer looks like on the wire.
struct WrittenAnswer: Equatable, CustomStringConvertible {
    var stream: Int
    var status: String
    var apnsID: String?
    var body: String?

    var description: String { "stream \(stream): \(status) \(apnsID ?? "-") \(body ?? "")" }
}

/// Reads `frames` as answers: a HEADERS frame with END_STREAM (a 200), or HEADERS then one DATA frame
/// with END_STREAM (an error). Records an issue for any other shape.
func answers(in frames: [HTTP2Frame], sourceLocation: SourceLocation = #_sourceLocation) -> [WrittenAnswer] {
    var result: [WrittenAnswer] = []
    var index = 0
    while index < frames.count {
        let frame = frames[index]
        index += 1
        guard case .headers(let headers) = frame.payload else {
            Issue.record("expected HEADERS, got \(frame.payload)", sourceLocation: sourceLocation)
            continue
        }
        var answer = WrittenAnswer(
            stream: Int(frame.streamID), status: headers.headers.first(name: ":status") ?? "?",
            apnsID: headers.headers.first(name: "apns-id")
        )
        if !headers.endStream {
            guard index < frames.count, frames[index].streamID == frame.streamID,
                case .data(let data) = frames[index].payload, data.endStream, case .byteBuffer(let buffer) = data.data
            else {
                Issue.record("expected one DATA frame with END_STREAM after HEADERS", sourceLocation: sourceLocation)
                continue
            }
            answer.body = String(buffer: buffer)
            index += 1
        }
        result.append(answer)
    }
    return result
}
