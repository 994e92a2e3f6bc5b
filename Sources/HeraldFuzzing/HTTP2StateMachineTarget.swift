import HeraldAPNs
import HeraldCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// `HTTP2ConnectionStateMachine` (HeraldAPNs) driven by a sequence of events decoded from the input:
/// HEADERS, DATA, RST_STREAM, other frames, stream closures, answers completing, read bursts ending,
/// outbox drains, errors, and the handler leaving the pipeline.
///
/// Next to the machine runs a model of what its peer and its handler see: the windows the peer may
/// still send into, the requests sent on each stream, the answers owed. After every event the
/// machine's actions must agree with the model:
/// - window updates are positive, only for the connection or a stream with a request being received,
///   and never take a window over 2^31-1; the peer's connection window never runs out (bytes
///   received but not yet acknowledged plus the window left is always exactly 65,535), nor a stream's;
/// - a request is dispatched once, only on a stream whose HEADERS arrived, with exactly the method,
///   path, headers and body (up to `RequestBody.limit`) the peer sent, and never after a connection
///   error;
/// - answers are written once each, only for dispatched requests, batched answers at the end of the
///   read burst, outboxed ones when the outbox drains; the count of answers owed is never negative;
/// - a connection error closes the connection once nothing is owed, and the connection never
///   reopens.
///
/// DATA frames respect the windows the model tracks, as NIOHTTP2 enforces them before the machine
/// sees a frame (a peer overrunning a window gets a connection error from NIOHTTP2 instead).
enum HTTP2StateMachineTarget {
    static let target = FuzzTarget(
        name: "http2-state-machine",
        property: "HTTP2ConnectionStateMachine: windows stay within 1…2^31-1 and never run dry, each request "
            + "is dispatched once as sent, each answer written once on a dispatched stream, close only when "
            + "nothing is owed",
        check: run
    )

    /// What the peer sent on a stream whose request is being received.
    private struct SentRequest {
        var method: String
        var path: String
        var headers: [(name: String, value: String)]
        var body: [UInt8] = []
    }

    private struct Model {
        /// Whether NIOHTTP2 wrote a GOAWAY with an error code (from then on every error ends the connection).
        var goAwayWritten = false
        /// What the peer may still send on the connection.
        var connectionWindow = HTTP2ConnectionStateMachine.connectionWindow
        /// What the peer may still send on each stream (the listener's SETTINGS_INITIAL_WINDOW_SIZE at first).
        var streamWindows: [Int: Int] = [:]
        /// Requests being received (HEADERS arrived, not dispatched, reset or closed).
        var pending: [Int: SentRequest] = [:]
        /// Dispatched requests whose answer has not completed yet.
        var dispatched: [Int] = []
        /// Answers completed during the read burst under way.
        var batch: [Int] = []
        /// Answers completed outside a read burst, waiting in the handler's outbox.
        var outbox: [Int] = []
        var owed = 0
        var isReading = false
        var isClosing = false

        func streamWindow(_ id: Int) -> Int {
            streamWindows[id] ?? HTTP2ConnectionStateMachine.streamWindow
        }
    }

    static func run(_ input: [UInt8]) throws {
        var reader = FuzzReader(input)
        var machine = HTTP2ConnectionStateMachine()
        var model = Model()
        var step = 0
        while !reader.isAtEnd, step < 512 {
            step += 1
            let op = reader.byte()
            let streamID = 1 + 2 * Int(reader.byte() & 0x07)
            switch op % 11 {
            case 0: try headers(&reader, streamID: streamID, op: op, &machine, &model)
            case 1: try data(&reader, streamID: streamID, op: op, &machine, &model)
            case 2:
                machine.streamReset(HTTP2StreamID(streamID))
                if !model.isClosing {
                    model.isReading = true
                    model.pending[streamID] = nil
                }
            case 3:
                machine.otherFrameReceived()
                if !model.isClosing { model.isReading = true }
            case 4:
                machine.streamClosed(HTTP2StreamID(streamID))
                model.pending[streamID] = nil
            case 5: try answerCompleted(choice: Int(reader.byte()), &machine, &model)
            case 6:
                let batch = machine.readComplete()
                let expected = model.batch
                model.batch = []
                model.isReading = false
                try written(batch, expected: expected, event: "readComplete", &machine, &model)
            case 7:
                let answers = model.outbox.map { (HTTP2StreamID($0), response(for: $0)) }
                let batch = machine.outboxDrained(answers)
                let expected = model.outbox
                model.outbox = []
                try written(batch, expected: expected, event: "outboxDrained", &machine, &model)
            case 8, 9: try errorCaught(confined: op % 11 == 8, streamID: streamID, &machine, &model)
            case 10 where op & 0x80 == 0:
                // An answer completes off the event loop: the handler puts it in the outbox without
                // telling the machine.
                guard !model.dispatched.isEmpty else { break }
                model.outbox.append(model.dispatched.remove(at: Int(reader.byte()) % model.dispatched.count))
            default:
                // The handler has left the pipeline when the outbox drains: its answers are dropped.
                machine.answersDropped(count: model.outbox.count)
                model.owed -= model.outbox.count
                model.outbox = []
                return try checkInvariants(machine, model)
            }
            try checkInvariants(machine, model)
        }
    }

    private static func headers(
        _ reader: inout FuzzReader, streamID: Int, op: UInt8, _ machine: inout HTTP2ConnectionStateMachine,
        _ model: inout Model
    ) throws {
        let endStream = op & 0x80 != 0
        let method = ["POST", "GET", "PUT", ""][Int(reader.byte() & 0x03)]
        let path = String(decoding: reader.shortRun(), as: UTF8.self)
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: method)
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: path)
        var regular: [(name: String, value: String)] = []
        for _ in 0..<Int(reader.byte() & 0x03) {
            // NIOHPACK holds ASCII names only (it refuses others from the wire).
            let name = String(decoding: reader.bytes(Int(reader.byte() & 0x0F)).map { $0 & 0x7F }, as: UTF8.self)
            let value = String(decoding: reader.bytes(Int(reader.byte() & 0x1F)), as: UTF8.self)
            headers.add(name: name, value: value)
            regular.append((name.lowercased(), value))
        }
        let action = machine.headersReceived(headers, endStream: endStream, on: HTTP2StreamID(streamID))
        guard !model.isClosing else {
            return try require(isNone(action), "HEADERS after a connection error dispatched a request")
        }
        model.isReading = true
        if model.pending[streamID] == nil {
            model.pending[streamID] = SentRequest(method: method, path: path, headers: regular)
            model.streamWindows[streamID] = nil  // a new stream: its window starts whole
        }
        if endStream {
            try dispatched(action, streamID: streamID, &model)
        } else {
            try require(isNone(action), "HEADERS without END_STREAM dispatched a request")
        }
    }

    private static func data(
        _ reader: inout FuzzReader, streamID: Int, op: UInt8, _ machine: inout HTTP2ConnectionStateMachine,
        _ model: inout Model
    ) throws {
        let endStream = op & 0x80 != 0
        // A frame's payload plus padding (up to 255 bytes and the pad-length byte), within both windows.
        let wanted = reader.uint16() % (16_384 + 257)
        let length = min(wanted, model.connectionWindow, model.streamWindow(streamID))
        let payloadLength = max(0, length - Int(reader.byte()) % 257)
        // One byte value per frame, from the input: bodies made of several frames still differ by
        // frame, and a 16 KB frame costs a memset rather than 16,384 closure calls (under ASan, a
        // sequence of 512 of those passed libFuzzer's 10 s timeout on this shared machine).
        let payload = [UInt8](repeating: reader.byte(), count: payloadLength)
        var buffer = ByteBuffer(bytes: payload)
        let action = machine.dataReceived(
            &buffer, flowControlledLength: length, endStream: endStream, on: HTTP2StreamID(streamID))
        guard !model.isClosing else {
            try require(
                action.connectionWindowIncrement == nil && action.streamWindowIncrement == nil,
                "DATA after a connection error opened a window")
            return try require(isNone(action.request), "DATA after a connection error dispatched a request")
        }
        model.isReading = true
        model.connectionWindow -= length
        model.streamWindows[streamID] = model.streamWindow(streamID) - length
        if let increment = action.connectionWindowIncrement {
            try require(increment > 0, "connection WINDOW_UPDATE of \(increment)")
            model.connectionWindow += increment
            try require(model.connectionWindow <= Int(Int32.max), "connection window over 2^31-1")
        }
        if let increment = action.streamWindowIncrement {
            try require(increment > 0, "stream WINDOW_UPDATE of \(increment)")
            try require(model.pending[streamID] != nil, "WINDOW_UPDATE on stream \(streamID), which has no request")
            model.streamWindows[streamID] = model.streamWindow(streamID) + increment
            try require(model.streamWindow(streamID) <= Int(Int32.max), "stream window over 2^31-1")
        }
        if var request = model.pending[streamID] {
            request.body += payload.prefix(max(0, RequestBody.limit - request.body.count))
            model.pending[streamID] = request
        }
        if endStream {
            try dispatched(action.request, streamID: streamID, &model)
        } else {
            try require(isNone(action.request), "DATA without END_STREAM dispatched a request")
        }
    }

    /// The request action of a frame with END_STREAM on `streamID`.
    private static func dispatched(
        _ action: HTTP2ConnectionStateMachine.RequestAction, streamID: Int, _ model: inout Model
    ) throws {
        guard let sent = model.pending.removeValue(forKey: streamID) else {
            return try require(isNone(action), "END_STREAM on stream \(streamID), which has no request, dispatched one")
        }
        guard case .dispatch(let request) = action else {
            throw PropertyViolation("END_STREAM on stream \(streamID) did not dispatch its request")
        }
        try require(request.method == sent.method, "dispatched method \(request.method), sent \(sent.method)")
        try require(request.path == sent.path, "dispatched path \(request.path), sent \(sent.path)")
        try require(
            request.headers.map(\.name) == sent.headers.map(\.name)
                && request.headers.map(\.value) == sent.headers.map(\.value),
            "dispatched headers \(request.headers), sent \(sent.headers)")
        try require(
            request.body == sent.body, "dispatched a body of \(request.body.count) bytes, sent \(sent.body.count)")
        try require(request.body.count <= RequestBody.limit, "a body over RequestBody.limit")
        model.dispatched.append(streamID)
        model.owed += 1
    }

    private static func answerCompleted(
        choice: Int, _ machine: inout HTTP2ConnectionStateMachine, _ model: inout Model
    ) throws {
        // Only a dispatched request gets an answer (the handler completes nothing else).
        guard !model.dispatched.isEmpty else { return }
        let streamID = model.dispatched.remove(at: choice % model.dispatched.count)
        switch machine.answerCompleted(response(for: streamID), on: HTTP2StreamID(streamID)) {
        case .batched:
            try require(model.isReading, "an answer was batched outside a read burst")
            model.batch.append(streamID)
        case .outbox:
            try require(!model.isReading, "an answer went to the outbox during a read burst")
            model.outbox.append(streamID)
        }
    }

    private static func written(
        _ batch: HTTP2ConnectionStateMachine.WriteBatch?, expected: [Int], event: String,
        _ machine: inout HTTP2ConnectionStateMachine, _ model: inout Model
    ) throws {
        guard let batch else {
            return try require(expected.isEmpty, "\(event) wrote nothing with \(expected.count) answers to write")
        }
        let streams = batch.answers.map { Int($0.streamID) }
        try require(streams == expected, "\(event) wrote answers on streams \(streams), expected \(expected)")
        for answer in batch.answers {
            try require(
                answer.response.apnsID == response(for: Int(answer.streamID)).apnsID,
                "stream \(answer.streamID) got another stream's answer")
        }
        model.owed -= expected.count
        try require(
            batch.closeWhenWritten == (model.isClosing && model.owed == 0),
            "closeWhenWritten is \(batch.closeWhenWritten) with closing \(model.isClosing) and \(model.owed) owed")
    }

    private static func errorCaught(
        confined: Bool, streamID: Int, _ machine: inout HTTP2ConnectionStateMachine, _ model: inout Model
    ) throws {
        let error: any Error =
            confined
            ? NIOHTTP2Errors.missingPseudoHeader(":path")
            : NIOHTTP2Errors.excessiveContinuationFrames()
        // NIOHTTP2 writes its GOAWAY before it reports a connection error; a stream error comes alone.
        if !confined {
            machine.goAwayWritten(errorCode: .protocolError)
            model.goAwayWritten = true
        }
        let isConnectionError = !confined || model.goAwayWritten
        let action = machine.errorCaught(error)
        switch action {
        case .streamRefused:
            try require(!isConnectionError, "a connection error was taken as a stream error")
        case .none:
            try require(isConnectionError && model.isClosing, "errorCaught did nothing on a live connection")
        case .stopReadingAndClose:
            try require(
                isConnectionError && !model.isClosing && model.owed == 0, "closed now with \(model.owed) answers owed")
        case .stopReadingAndCloseWhenAnswered:
            try require(
                isConnectionError && !model.isClosing && model.owed > 0, "waits for answers with none owed")
        }
        if isConnectionError {
            model.isClosing = true
            model.pending = [:]
        }
    }

    private static func checkInvariants(_ machine: HTTP2ConnectionStateMachine, _ model: Model) throws {
        try require(
            machine.awaitingAnswers == model.owed, "machine owes \(machine.awaitingAnswers), model \(model.owed)")
        try require(machine.awaitingAnswers >= 0, "awaitingAnswers is negative")
        try require(
            machine.isClosing == model.isClosing, "isClosing is \(machine.isClosing), expected \(model.isClosing)")
        try require(
            Set(machine.streams.keys.map { Int($0) }) == Set(model.pending.keys),
            "streams \(machine.streams.keys.sorted()) pending, expected \(model.pending.keys.sorted())")
        guard !model.isClosing else { return }
        let window = HTTP2ConnectionStateMachine.connectionWindow
        try require(
            machine.unacknowledgedConnectionBytes + model.connectionWindow == window,
            "connection: \(machine.unacknowledgedConnectionBytes) unacknowledged + \(model.connectionWindow) left "
                + "is not \(window)")
        try require(
            model.connectionWindow > window / 2, "the peer's connection window ran down to \(model.connectionWindow)")
        for (id, pending) in machine.streams {
            let left = model.streamWindow(Int(id))
            try require(
                pending.unacknowledged + left == HTTP2ConnectionStateMachine.streamWindow,
                "stream \(id): \(pending.unacknowledged) unacknowledged + \(left) left")
            try require(left > 0, "the peer's window on stream \(id) ran dry")
        }
    }

    private static func response(for streamID: Int) -> APNsResponse {
        APNsResponse(status: 200, apnsID: "answer-\(streamID)")
    }

    private static func isNone(_ action: HTTP2ConnectionStateMachine.RequestAction) -> Bool {
        if case .none = action { return true }
        return false
    }
}
