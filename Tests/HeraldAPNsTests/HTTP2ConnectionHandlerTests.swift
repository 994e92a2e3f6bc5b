import HeraldCore
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldAPNs

/// `HTTP2ConnectionHandler` in an `EmbeddedChannel`: the frames it is fed (as NIOHTTP2 would hand them
/// over) and the frames it writes.
@Suite("HTTP2ConnectionHandler")
struct HTTP2ConnectionHandlerTests {
    // MARK: Frame shapes and batching

    @Test("a 200 is one HEADERS frame with END_STREAM; an error is HEADERS and one DATA frame with END_STREAM")
    func frameShapes() throws {
        let connection = try TestConnection()
        connection.receive(
            requestHeaders(1, endStream: true), requestHeaders(3, path: "/3/device/bad", endStream: true))
        let frames = try connection.written()
        try #require(frames.count == 3)

        guard case .headers(let ok) = frames[0].payload else {
            Issue.record("not HEADERS: \(frames[0])")
            return
        }
        #expect(frames[0].streamID == 1)
        #expect(ok.endStream)
        #expect(
            ok.headers.map { "\($0.name): \($0.value)" } == [
                ":status: 200", "apns-id: id-1", "apns-unique-id: unique-id-1",
            ])
        #expect(ok.headers.filter { $0.name.hasPrefix("apns-") }.allSatisfy { $0.indexable == .nonIndexable })

        guard case .headers(let head) = frames[1].payload, case .data(let data) = frames[2].payload,
            case .byteBuffer(let body) = data.data
        else {
            Issue.record("not HEADERS + DATA: \(frames[1...])")
            return
        }
        #expect(frames[1].streamID == 3 && frames[2].streamID == 3)
        #expect(!head.endStream)
        #expect(
            head.headers.map { "\($0.name): \($0.value)" } == [
                ":status: 400", "apns-id: id-3", "content-type: application/json", "content-length: 27",
            ])
        #expect(data.endStream)
        #expect(String(buffer: body) == #"{"reason":"BadDeviceToken"}"#)
    }

    @Test("the answers of one read burst are written at its end with one flush")
    func readBurstFlushedOnce() throws {
        let connection = try TestConnection()
        connection.read(
            requestHeaders(1, endStream: true), requestHeaders(3, endStream: true), requestHeaders(5, endStream: true))
        #expect(connection.pushes.requests.count == 3)
        #expect(try connection.written().isEmpty)
        connection.readComplete()
        #expect(answers(in: try connection.written()).map(\.stream) == [1, 3, 5])
        #expect(connection.flushes.count == 1)
    }

    @Test("answers completed after the read burst are drained from the outbox in one event-loop turn, with one flush")
    func outboxDrainedWithOneFlush() throws {
        let connection = try TestConnection(answersAtOnce: false)
        connection.receive(
            requestHeaders(1, endStream: true), requestHeaders(3, path: "/3/device/bad", endStream: true))
        connection.receive(requestHeaders(5, endStream: true))
        #expect(connection.pushes.waitingCount == 3)
        connection.pushes.answerWaiting()
        #expect(try connection.written().isEmpty)
        #expect(connection.flushes.count == 0)
        connection.channel.embeddedEventLoop.run()
        #expect(
            answers(in: try connection.written()) == [
                WrittenAnswer(stream: 1, status: "200", apnsID: "id-1"),
                WrittenAnswer(stream: 3, status: "400", apnsID: "id-3", body: #"{"reason":"BadDeviceToken"}"#),
                WrittenAnswer(stream: 5, status: "200", apnsID: "id-5"),
            ])
        #expect(connection.flushes.count == 1)
    }

    // MARK: Request bodies

    @Test("bodies of interleaved streams are kept apart, each request dispatched with its own at its END_STREAM")
    func interleavedStreams() throws {
        let connection = try TestConnection()
        connection.receive(
            requestHeaders(1, endStream: false), requestHeaders(3, endStream: false),
            requestHeaders(5, endStream: false),
            dataFrame(1, Array("a1".utf8)), dataFrame(3, Array("b1".utf8)), dataFrame(5, Array("c1".utf8)),
            dataFrame(3, Array("b2".utf8)), dataFrame(1, Array("a2".utf8)),
            dataFrame(5, Array("c2".utf8), endStream: true),
            dataFrame(1, Array("a3".utf8), endStream: true), dataFrame(3, Array("b3".utf8), endStream: true)
        )
        let requests = connection.pushes.requests
        #expect(requests.map { $0.header("apns-id") } == ["id-5", "id-1", "id-3"])
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["c1c2", "a1a2a3", "b1b2b3"])
        #expect(answers(in: try connection.written()).map(\.stream) == [5, 1, 3])
    }

    @Test("a request carries its method, path and regular headers (lowercased), not :scheme or :authority")
    func requestHeadersKept() throws {
        let connection = try TestConnection()
        var headers = HPACKHeaders([
            (":method", "GET"), (":scheme", "https"), (":path", "/3/device/x"), (":authority", "h"),
        ])
        headers.add(name: "apns-topic", value: "com.example.demo")
        headers.add(name: "X-Odd", value: "Value")
        connection.receive(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: headers, endStream: true))))
        let request = try #require(connection.pushes.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/3/device/x")
        #expect(request.headers.map { "\($0.name): \($0.value)" } == ["apns-topic: com.example.demo", "x-odd: Value"])
        #expect(request.body.isEmpty)
    }

    @Test("a body over the limit is kept to RequestBody.limit bytes")
    func bodyCapped() throws {
        let connection = try TestConnection()
        let body = (0..<(RequestBody.limit + 10_000)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        var frames = [requestHeaders(1, endStream: false)]
        for start in stride(from: 0, to: body.count, by: 4_000) {
            let end = min(start + 4_000, body.count)
            frames.append(dataFrame(1, Array(body[start..<end]), endStream: end == body.count))
        }
        connection.receive(frames)
        let request = try #require(connection.pushes.requests.first)
        #expect(request.body.count == RequestBody.limit)
        #expect(request.body == Array(body.prefix(RequestBody.limit)))
    }

    @Test("RST_STREAM mid-body: nothing is dispatched and the stream's state is gone")
    func resetMidBody() throws {
        let connection = try TestConnection()
        connection.receive(requestHeaders(1, endStream: false), dataFrame(1, Array("abc".utf8)), rstStream(1))
        connection.receive(dataFrame(1, Array("def".utf8), endStream: true))
        #expect(connection.pushes.requests.isEmpty)
        // Nothing is left of the reset request: a new header block on the stream starts afresh.
        connection.receive(requestHeaders(1, path: "/3/device/second", endStream: true))
        let request = try #require(connection.pushes.requests.first)
        #expect(request.path == "/3/device/second")
        #expect(request.body.isEmpty)
        #expect(answers(in: try connection.written()).map(\.stream) == [1])
    }

    @Test("a StreamClosedEvent (NIOHTTP2 reset the stream) drops the stream's pending request")
    func streamClosedEventDropsRequest() throws {
        let connection = try TestConnection()
        connection.receive(requestHeaders(1, endStream: false), dataFrame(1, Array("abc".utf8)))
        connection.channel.pipeline.syncOperations.fireUserInboundEventTriggered(
            StreamClosedEvent(streamID: 1, reason: .protocolError)
        )
        connection.receive(requestHeaders(1, path: "/3/device/second", endStream: true))
        let request = try #require(connection.pushes.requests.first)
        #expect(connection.pushes.requests.count == 1)
        #expect(request.path == "/3/device/second")
        #expect(request.body.isEmpty)
    }

    // MARK: Flow control

    @Test("the connection window is opened once 32,767 bytes (half of 65,535) arrived, with what arrived")
    func connectionWindow() throws {
        let connection = try TestConnection()
        connection.receive(
            requestHeaders(1, endStream: false), dataFrame(1, count: 16_383), dataFrame(1, count: 16_383))
        #expect(try connection.windowUpdates().isEmpty)
        connection.receive(dataFrame(1, count: 1))
        #expect(try connection.windowUpdates() == [WindowUpdate(stream: 0, increment: 32_767)])
        connection.receive(dataFrame(1, count: 32_766))
        #expect(try connection.windowUpdates().isEmpty)
        connection.receive(dataFrame(1, count: 40_000))
        #expect(try connection.windowUpdates() == [WindowUpdate(stream: 0, increment: 72_766)])
    }

    @Test("padding counts against the windows")
    func paddingCounts() throws {
        let connection = try TestConnection()
        // 32,000 + 255 + 1 (the Pad Length byte) = 32,256, then 255 + 254 + 1 = 510: 32,766 in all
        connection.receive(
            requestHeaders(1, endStream: false), dataFrame(1, count: 32_000, padding: 255),
            dataFrame(1, count: 255, padding: 254)
        )
        #expect(try connection.windowUpdates().isEmpty)
        // A padded frame with no data and no padding still counts its Pad Length byte
        connection.receive(dataFrame(1, count: 0, padding: 0))
        #expect(try connection.windowUpdates() == [WindowUpdate(stream: 0, increment: 32_767)])
        #expect(connection.pushes.requests.isEmpty)
    }

    @Test("a stream's window is opened once 512 KiB (half of 1 MiB) of it arrived")
    func streamWindow() throws {
        let connection = try TestConnection()
        connection.receive(requestHeaders(1, endStream: false))
        for _ in 0..<31 { connection.receive(dataFrame(1, count: 16_384)) }
        var updates = try connection.windowUpdates()
        #expect(updates.allSatisfy { $0.stream == 0 })
        connection.receive(dataFrame(1, count: 16_384))
        updates += try connection.windowUpdates()
        let connectionUpdates = Array(repeating: WindowUpdate(stream: 0, increment: 32_768), count: 16)
        #expect(updates == connectionUpdates + [WindowUpdate(stream: 1, increment: 524_288)])
        // Each WINDOW_UPDATE is flushed as it is written.
        #expect(connection.flushes.count == 17)
        connection.receive(dataFrame(1, count: 10, endStream: true))
        #expect(connection.pushes.requests.first?.body.count == RequestBody.limit)
    }

    @Test("no WINDOW_UPDATE for a stream that has gone (reset, answered or unknown); the connection's still counts")
    func noUpdateForGoneStream() throws {
        let connection = try TestConnection()
        connection.receive(requestHeaders(1, endStream: false), rstStream(1), requestHeaders(3, endStream: true))
        _ = try connection.written()
        for stream in [1, 3, 5] {
            for _ in 0..<40 { connection.receive(dataFrame(stream, count: 16_384)) }
        }
        let updates = try connection.windowUpdates()
        #expect(updates == Array(repeating: WindowUpdate(stream: 0, increment: 32_768), count: 60))
    }

    // MARK: Connection errors

    @Test("a connection error stops reading, ignores later frames, writes the answers owed, then closes")
    func connectionErrorClosesAfterAnswers() throws {
        let connection = try TestConnection(answersAtOnce: false)
        connection.receive(
            requestHeaders(1, endStream: true), requestHeaders(3, endStream: true), requestHeaders(5, endStream: false))
        connection.fireConnectionError(NIOHTTP2Errors.flowControlViolation())
        #expect(connection.stoppedReading)
        #expect(connection.channel.isActive)
        connection.receive(requestHeaders(7, endStream: true), dataFrame(5, Array("late".utf8), endStream: true))
        #expect(connection.pushes.requests.count == 2)

        connection.pushes.answerWaiting()
        connection.channel.embeddedEventLoop.run()
        #expect(answers(in: try connection.written()).map(\.stream) == [1, 3])
        #expect(!connection.channel.isActive)
    }

    @Test("a connection error during a read burst closes once that burst's answers are written")
    func connectionErrorDuringReadBurst() throws {
        let connection = try TestConnection()
        connection.read(requestHeaders(1, endStream: true))
        connection.fireConnectionError(NIOHTTP2Errors.flowControlViolation())
        connection.read(requestHeaders(3, endStream: true))
        #expect(connection.channel.isActive)
        connection.readComplete()
        #expect(answers(in: try connection.written()).map(\.stream) == [1])
        #expect(!connection.channel.isActive)
    }

    @Test("a connection error closes at the 2 s deadline when the answers owed don't come")
    func connectionErrorDeadline() throws {
        let connection = try TestConnection(answersAtOnce: false)
        connection.receive(requestHeaders(1, endStream: true))
        connection.fireConnectionError(NIOHTTP2Errors.flowControlViolation())
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_999))
        #expect(connection.channel.isActive)
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!connection.channel.isActive)
    }

    @Test("a connection error closes at once when no answer is owed")
    func connectionErrorClosesAtOnce() throws {
        let connection = try TestConnection()
        connection.receive(requestHeaders(1, endStream: false), dataFrame(1, Array("abc".utf8)))
        connection.fireConnectionError(NIOHTTP2Errors.flowControlViolation())
        #expect(!connection.channel.isActive)
        #expect(connection.pushes.requests.isEmpty)
        #expect(try connection.written().isEmpty)
    }

    @Test("an error confined to one stream keeps the connection and its other streams")
    func streamErrorKeepsConnection() throws {
        let connection = try TestConnection()
        connection.receive(requestHeaders(1, endStream: false), dataFrame(1, Array("abc".utf8)))
        connection.fireError(NIOHTTP2Errors.invalidHTTP2HeaderFieldName("Bad-Name"))
        connection.fireError(NIOHTTP2Errors.contentLengthViolated())
        #expect(connection.channel.isActive)
        #expect(!connection.stoppedReading)
        connection.receive(dataFrame(1, Array("def".utf8), endStream: true), requestHeaders(3, endStream: true))
        #expect(connection.pushes.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["abcdef", ""])
        #expect(answers(in: try connection.written()).map(\.stream) == [1, 3])
    }

    // MARK: Shutdown

    @Test("while the listener quiesces a request is answered 503 Shutdown without reaching the push handler")
    func shutdownAnswer() throws {
        let tracker = ConnectionTracker()
        let connection = try TestConnection(tracker: tracker)
        _ = tracker.beginQuiescing()
        connection.receive(requestHeaders(1, apnsID: "8F3E2A1C-0000-4000-8000-000000000001", endStream: true))
        #expect(connection.pushes.requests.isEmpty)
        #expect(
            answers(in: try connection.written()) == [
                WrittenAnswer(
                    stream: 1, status: "503", apnsID: "8F3E2A1C-0000-4000-8000-000000000001",
                    body: #"{"reason":"Shutdown"}"#)
            ])
        #expect(tracker.inFlight == 0)
    }

    @Test("a 503 Shutdown answer counts in and out: the drain still waits for a request taken before quiescing")
    func shutdownAnswersKeepTheInFlightCount() throws {
        let tracker = ConnectionTracker()
        let connection = try TestConnection(answersAtOnce: false, tracker: tracker)
        connection.receive(requestHeaders(1, endStream: true))
        #expect(tracker.inFlight == 1)
        _ = tracker.beginQuiescing()
        connection.receive(requestHeaders(3, endStream: true))
        #expect(answers(in: try connection.written()).map(\.status) == ["503"])
        #expect(tracker.inFlight == 1, "the 503 must not count out the request still being handled")
        connection.pushes.answerWaiting()
        connection.channel.embeddedEventLoop.run()
        #expect(answers(in: try connection.written()).map(\.status) == ["200"])
        #expect(tracker.inFlight == 0)
    }
}
