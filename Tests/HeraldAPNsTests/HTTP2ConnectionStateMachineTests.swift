import HeraldCore
import NIOCore
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldAPNs

/// `HTTP2ConnectionStateMachine` on its own: events in, actions out.
@Suite("HTTP2ConnectionStateMachine")
struct HTTP2ConnectionStateMachineTests {
    typealias Machine = HTTP2ConnectionStateMachine

    static func headers(path: String = "/3/device/ok", _ extra: (String, String)...) -> HPACKHeaders {
        HPACKHeaders([(":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "localhost")] + extra)
    }

    static func ok(_ id: String) -> APNsResponse {
        APNsResponse(status: 200, apnsID: id)
    }

    /// Feeds a DATA frame of `text` (counted as `length` flow-controlled bytes, its size by default).
    static func data(
        _ machine: inout Machine, _ text: String, length: Int? = nil, endStream: Bool = false, on stream: HTTP2StreamID
    ) -> Machine.DataAction {
        var buffer = ByteBuffer(string: text)
        return machine.dataReceived(
            &buffer, flowControlledLength: length ?? text.utf8.count, endStream: endStream, on: stream)
    }

    /// A connection error as NIOHTTP2 reports one: it writes its GOAWAY, then reports the error.
    static func connectionError(_ machine: inout Machine) -> Machine.ErrorAction {
        machine.goAwayWritten(errorCode: .flowControlError)
        return machine.errorCaught(NIOHTTP2Errors.flowControlViolation())
    }

    // MARK: Requests

    @Test("HEADERS with END_STREAM dispatches at once, with the method, path and regular headers (lowercased)")
    func headersOnlyRequest() throws {
        var machine = Machine()
        let action = machine.headersReceived(
            Self.headers(path: "/3/device/abc", ("apns-topic", "com.example.demo"), ("X-Odd", "V")), endStream: true,
            on: 1
        )
        guard case .dispatch(let request) = action else {
            Issue.record("not dispatched: \(action)")
            return
        }
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/abc")
        #expect(request.headers.map { "\($0.name): \($0.value)" } == ["apns-topic: com.example.demo", "x-odd: V"])
        #expect(request.body.isEmpty)
        #expect(machine.awaitingAnswers == 1)
        #expect(machine.streams.isEmpty)
    }

    @Test("a body arrives in DATA frames; the request is dispatched with it at END_STREAM")
    func bodyThenEndStream() {
        var machine = Machine()
        guard case .none = machine.headersReceived(Self.headers(), endStream: false, on: 1) else {
            Issue.record()
            return
        }
        #expect(machine.streams.count == 1)
        #expect(machine.awaitingAnswers == 0)
        guard case .none = Self.data(&machine, "{\"aps\":", on: 1).request else {
            Issue.record()
            return
        }
        let action = Self.data(&machine, "{}}", endStream: true, on: 1)
        guard case .dispatch(let request) = action.request else {
            Issue.record("not dispatched")
            return
        }
        #expect(String(decoding: request.body, as: UTF8.self) == "{\"aps\":{}}")
        #expect(machine.streams.isEmpty)
        #expect(machine.awaitingAnswers == 1)
    }

    @Test("a later header block on the stream (trailers) ends it without replacing the request")
    func trailers() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(path: "/3/device/first"), endStream: false, on: 1)
        _ = Self.data(&machine, "ab", on: 1)
        let action = machine.headersReceived(HPACKHeaders([("x-trailer", "t")]), endStream: true, on: 1)
        guard case .dispatch(let request) = action else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.path == "/3/device/first")
        #expect(request.headers.isEmpty)
        #expect(request.body == Array("ab".utf8))
    }

    @Test("interleaved streams keep their own bodies and are dispatched in END_STREAM order")
    func interleavedStreams() {
        var machine = Machine()
        for stream: HTTP2StreamID in [1, 3, 5] {
            _ = machine.headersReceived(Self.headers(), endStream: false, on: stream)
        }
        var dispatched: [String] = []
        let frames: [(HTTP2StreamID, String, Bool)] = [
            (3, "b1", false), (1, "a1", false), (5, "c1", false), (1, "a2", false),
            (3, "b2", true), (5, "c2", false), (1, "a3", true), (5, "c3", true),
        ]
        for (stream, text, end) in frames {
            if case .dispatch(let request) = Self.data(&machine, text, endStream: end, on: stream).request {
                dispatched.append("\(Int(stream)):" + String(decoding: request.body, as: UTF8.self))
            }
        }
        #expect(dispatched == ["3:b1b2", "1:a1a2a3", "5:c1c2c3"])
        #expect(machine.awaitingAnswers == 3)
    }

    @Test("a body is kept to RequestBody.limit bytes")
    func bodyLimit() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        _ = Self.data(&machine, String(repeating: "x", count: RequestBody.limit - 1), on: 1)
        var buffer = ByteBuffer(string: "yz")
        let action = machine.dataReceived(&buffer, flowControlledLength: 2, endStream: true, on: 1)
        guard case .dispatch(let request) = action.request else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.body.count == RequestBody.limit)
        #expect(request.body.last == UInt8(ascii: "y"))
    }

    @Test("RST_STREAM and StreamClosedEvent drop the stream's request: its END_STREAM dispatches nothing")
    func resetAndClosedDropRequest() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 3)
        _ = Self.data(&machine, "abc", on: 1)
        machine.streamReset(1)
        machine.streamClosed(3)
        #expect(machine.streams.isEmpty)
        guard case .none = Self.data(&machine, "def", endStream: true, on: 1).request else {
            Issue.record()
            return
        }
        guard case .none = Self.data(&machine, "", endStream: true, on: 3).request else {
            Issue.record()
            return
        }
        #expect(machine.awaitingAnswers == 0)
    }

    // MARK: Windows

    @Test("the connection window is opened with what arrived once it reaches half of 65,535")
    func connectionWindow() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        let increments = [32_766, 0, 3, 32_766, 1].map { length in
            Self.data(&machine, "", length: length, on: 1).connectionWindowIncrement
        }
        #expect(increments == [nil, nil, 32_769, nil, 32_767])
        #expect(machine.unacknowledgedConnectionBytes == 0)
    }

    @Test("the flow-controlled length counts, not the payload (padding included)")
    func flowControlledLengthCounts() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        let action = Self.data(&machine, "ab", length: 40_000, endStream: true, on: 1)
        #expect(action.connectionWindowIncrement == 40_000)
        guard case .dispatch(let request) = action.request else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.body == Array("ab".utf8))
    }

    @Test("a stream's window is opened with what arrived on it once it reaches half of 1 MiB, after the connection's")
    func streamWindow() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 3)
        var action = Self.data(&machine, "", length: 300_000, on: 1)
        #expect(action.connectionWindowIncrement == 300_000 && action.streamWindowIncrement == nil)
        action = Self.data(&machine, "", length: 300_000, on: 3)
        #expect(action.connectionWindowIncrement == 300_000 && action.streamWindowIncrement == nil)
        action = Self.data(&machine, "", length: 224_288, on: 1)
        #expect(action.connectionWindowIncrement == 224_288 && action.streamWindowIncrement == 524_288)
        action = Self.data(&machine, "", length: 524_287, on: 1)
        #expect(action.connectionWindowIncrement == 524_287 && action.streamWindowIncrement == nil)
        action = Self.data(&machine, "", length: 224_288, on: 3)
        #expect(action.connectionWindowIncrement == 224_288 && action.streamWindowIncrement == 524_288)
    }

    @Test(
        "a stream that has gone (reset, dispatched, never opened) gets no WINDOW_UPDATE; the connection still counts it"
    )
    func noStreamWindowForGoneStream() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        machine.streamReset(1)
        _ = machine.headersReceived(Self.headers(), endStream: true, on: 3)
        for stream: HTTP2StreamID in [1, 3, 5] {
            let action = Self.data(&machine, "", length: 600_000, on: stream)
            #expect(action.connectionWindowIncrement == 600_000)
            #expect(action.streamWindowIncrement == nil)
        }
    }

    // MARK: Answers

    @Test("answers completed during a read burst are batched and written at its end; after it they go to the outbox")
    func readBatchAndOutbox() throws {
        var machine = Machine()
        guard case .dispatch = machine.headersReceived(Self.headers(), endStream: true, on: 1) else {
            Issue.record()
            return
        }
        guard case .dispatch = machine.headersReceived(Self.headers(), endStream: true, on: 3) else {
            Issue.record()
            return
        }
        guard case .batched = machine.answerCompleted(Self.ok("a"), on: 1) else {
            Issue.record()
            return
        }
        let burst = machine.readComplete()
        let batch = try #require(burst)
        #expect(batch.answers.map(\.streamID) == [1])
        #expect(!batch.closeWhenWritten)
        #expect(machine.awaitingAnswers == 1)
        let emptyBurst = machine.readComplete()
        #expect(emptyBurst == nil)

        guard case .outbox = machine.answerCompleted(Self.ok("b"), on: 3) else {
            Issue.record()
            return
        }
        #expect(machine.readBatch.isEmpty)
        let drain = machine.outboxDrained([(3, Self.ok("b"))])
        let drained = try #require(drain)
        #expect(drained.answers.map(\.response.apnsID) == ["b"])
        #expect(machine.awaitingAnswers == 0)
        let emptyDrain = machine.outboxDrained([])
        #expect(emptyDrain == nil)
    }

    @Test("any frame starts a read burst (an answer completing then is batched)")
    func anyFrameStartsReadBurst() {
        var machine = Machine()
        machine.otherFrameReceived()
        guard case .batched = machine.answerCompleted(Self.ok("a"), on: 1) else {
            Issue.record()
            return
        }
        let batch = machine.readComplete()
        #expect(batch?.answers.count == 1)
    }

    @Test("answers the handler can no longer write are no longer owed")
    func answersDropped() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: true, on: 1)
        _ = machine.headersReceived(Self.headers(), endStream: true, on: 3)
        machine.answersDropped(count: 2)
        #expect(machine.awaitingAnswers == 0)
        guard case .stopReadingAndClose = Self.connectionError(&machine) else {
            Issue.record()
            return
        }
    }

    // MARK: Errors

    @Test(
        "an error confined to one stream changes nothing",
        arguments: [
            NIOHTTP2Errors.invalidHTTP2HeaderFieldName("Bad") as any Error, NIOHTTP2Errors.missingPseudoHeader(":path"),
            NIOHTTP2Errors.contentLengthViolated(),
        ])
    func streamError(error: any Error) {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        guard case .streamRefused = machine.errorCaught(error) else {
            Issue.record("not refused: \(error)")
            return
        }
        #expect(!machine.isClosing)
        #expect(machine.streams.count == 1)
        guard case .dispatch = Self.data(&machine, "x", endStream: true, on: 1).request else {
            Issue.record()
            return
        }
    }

    @Test("a connection error with no answer owed closes at once; later frames are ignored, windows included")
    func connectionErrorClosesAtOnce() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        guard case .stopReadingAndClose = Self.connectionError(&machine) else {
            Issue.record()
            return
        }
        #expect(machine.isClosing)
        #expect(machine.streams.isEmpty)
        guard case .none = machine.headersReceived(Self.headers(), endStream: true, on: 3) else {
            Issue.record()
            return
        }
        let action = Self.data(&machine, "x", length: 100_000, endStream: true, on: 1)
        #expect(action.connectionWindowIncrement == nil && action.streamWindowIncrement == nil)
        #expect(machine.awaitingAnswers == 0)
        guard case .none = Self.connectionError(&machine) else {
            Issue.record()
            return
        }
    }

    @Test("a connection error with answers owed closes once the last of them is written")
    func connectionErrorClosesWhenAnswered() throws {
        var machine = Machine()
        for stream: HTTP2StreamID in [1, 3, 5] {
            _ = machine.headersReceived(Self.headers(), endStream: true, on: stream)
        }
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 7)
        _ = machine.answerCompleted(Self.ok("1"), on: 1)
        let action = Self.connectionError(&machine)
        guard case .stopReadingAndCloseWhenAnswered = action else {
            Issue.record("\(action)")
            return
        }
        #expect(machine.streams.isEmpty)
        // The read burst under way still ends, and its answer is written.
        let batches = [
            machine.readComplete(), machine.outboxDrained([(3, Self.ok("3"))]),
            machine.outboxDrained([(5, Self.ok("5"))]),
        ]
        #expect(batches.map { $0?.answers.map(\.streamID) } == [[1], [3], [5]])
        #expect(batches.map { $0?.closeWhenWritten } == [false, false, true])
        #expect(machine.awaitingAnswers == 0)
    }

    @Test("an HTTP/2 error reported with no GOAWAY written is a stream error (NIOHTTP2 reset only that stream)")
    func errorWithoutGoAwayIsAStreamError() {
        var machine = Machine()
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 1)
        _ = machine.headersReceived(Self.headers(), endStream: false, on: 3)
        // A WINDOW_UPDATE of 0 on stream 1 (RFC 9113 §6.9): RST_STREAM, no GOAWAY.
        guard case .streamRefused = machine.errorCaught(NIOHTTP2Errors.invalidWindowIncrementSize()) else {
            Issue.record()
            return
        }
        machine.streamClosed(1)
        #expect(!machine.isClosing)
        guard case .dispatch = Self.data(&machine, "x", endStream: true, on: 3).request else {
            Issue.record()
            return
        }
    }

    @Test("a quiescing GOAWAY (NO_ERROR) makes no later HTTP/2 error a connection error")
    func quiescingGoAwayIsNoError() {
        var machine = Machine()
        machine.goAwayWritten(errorCode: .noError)
        guard case .streamRefused = machine.errorCaught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .cancel))
        else {
            Issue.record()
            return
        }
    }

    @Test("an error that is not NIOHTTP2's (TLS, I/O) closes the connection though no GOAWAY was written")
    func otherErrorsClose() {
        var machine = Machine()
        guard case .stopReadingAndClose = machine.errorCaught(ChannelError.ioOnClosedChannel) else {
            Issue.record()
            return
        }
    }
}
