import HeraldCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The state of one HTTP/2 connection of the APNs endpoint, without its I/O: the request being
/// received on each stream, the receive windows, the answers of the read burst under way, the answers
/// still owed, and whether a connection error is closing the connection.
///
/// `HTTP2ConnectionHandler` turns each thing that happens to the connection into one event — a frame
/// read (HEADERS, DATA, RST_STREAM, any other), a `StreamClosedEvent`, an answer completed on the event
/// loop, the end of a read burst, an outbox drain, an error — and does what the event returns: send a
/// WINDOW_UPDATE, dispatch a request, write a batch of answers with one flush (and close the connection
/// once they are written), stop reading and close now or by the deadline. It decides nothing itself.
///
/// A struct kept in a stored property of the handler and changed in place by its mutating events: the
/// pending requests are modified where the dictionary stores them (through its index), never copied
/// out and written back, and the actions are plain values (no allocation, closure or existential per
/// frame).
package struct HTTP2ConnectionStateMachine {
    package init() {}

    /// A request being received on one stream.
    package struct PendingRequest {
        package var method = ""
        package var path = ""
        package var headers: [(name: String, value: String)] = []
        package var body: [UInt8] = []
        /// Flow-controlled bytes received on the stream since its window was last opened again.
        package var unacknowledged = 0
    }

    /// An answer and the stream it answers.
    package typealias Answer = (streamID: HTTP2StreamID, response: APNsResponse)

    /// What to do with a request after a frame of its stream.
    package enum RequestAction {
        case none
        /// The request is complete (END_STREAM): hand it to the push handler, or answer `503 Shutdown`
        /// when the listener is quiescing. Either way an answer is now owed.
        case dispatch(APNsRequest)
    }

    /// What to do after a DATA frame, in this order.
    package struct DataAction {
        /// Send WINDOW_UPDATE on the connection (stream 0) with this increment, and flush.
        package var connectionWindowIncrement: Int?
        /// Send WINDOW_UPDATE on the frame's stream with this increment, and flush.
        package var streamWindowIncrement: Int?
        package var request: RequestAction
    }

    /// Where an answer completed on the event loop goes.
    package enum AnswerAction {
        /// It joined the answers of the read burst under way, written when the burst ends.
        case batched
        /// No read burst is under way: it goes to the outbox, drained in a later event-loop turn.
        case outbox
    }

    /// Answers to write together and flush once.
    package struct WriteBatch {
        package var answers: [Answer]
        /// Close the connection once they are written: a connection error was waiting for them.
        package var closeWhenWritten: Bool
    }

    /// What to do about an error of the HTTP/2 layer.
    package enum ErrorAction {
        /// It concerned one stream, which NIOHTTP2 has reset: the connection goes on.
        case streamRefused
        /// The connection is already closing.
        case none
        /// Stop reading and close the connection now: no answer is owed.
        case stopReadingAndClose
        /// Stop reading; close once the answers owed are written (`WriteBatch.closeWhenWritten`), or at
        /// the deadline, whichever comes first.
        case stopReadingAndCloseWhenAnswered
    }

    /// The connection's initial receive window (RFC 9113 §6.9.2; SETTINGS don't change it).
    package static let connectionWindow = 65_535
    /// The stream window the listener advertises (`SETTINGS_INITIAL_WINDOW_SIZE`).
    package static let streamWindow = 1 << 20

    package private(set) var streams: [HTTP2StreamID: PendingRequest] = [:]
    /// Flow-controlled bytes received on the connection since its window was last opened again.
    package private(set) var unacknowledgedConnectionBytes = 0
    /// Answers completed during the read burst under way; written and flushed at its end.
    package private(set) var readBatch: [Answer] = []
    /// Whether a read burst is under way (from its first frame to channelReadComplete).
    package private(set) var isReading = false
    /// Requests dispatched whose answers are not written yet.
    package private(set) var awaitingAnswers = 0
    /// Set by a connection error: frames are ignored, and the connection closes once the answers owed
    /// are written.
    package private(set) var isClosing = false
    /// Set once NIOHTTP2 wrote a GOAWAY with an error code: the error it reports next is a connection
    /// error (`ProtocolErrors`).
    package private(set) var goAwayWithErrorWritten = false

    // MARK: Frames

    /// A HEADERS frame: starts the stream's request (a later header block, trailers, adds nothing).
    package mutating func headersReceived(_ headers: HPACKHeaders, endStream: Bool, on streamID: HTTP2StreamID)
        -> RequestAction
    {
        guard frameArrived() else { return .none }
        if streams[streamID] == nil {
            var request = PendingRequest()
            for (name, value, _) in headers {
                switch name {
                case ":method": request.method = value
                case ":path": request.path = value
                case ":scheme", ":authority": break
                // HTTP/2 header names are lowercase (NIOHTTP2 refuses others); lowercasing is for a peer
                // that got through anyway.
                default:
                    let isLowercase = !name.utf8.contains { $0 >= 0x41 && $0 <= 0x5A }
                    request.headers.append((name: isLowercase ? name : name.lowercased(), value: value))
                }
            }
            streams[streamID] = request
        }
        return endStream ? dispatch(streamID) : .none
    }

    /// A DATA frame: `flowControlledLength` bytes count against the windows (payload and padding); the
    /// payload in `buffer` is added to the stream's body, up to `RequestBody.limit`.
    ///
    /// The connection's window is opened again once half of it is used, a stream's once half of the
    /// stream window is; a stream that has gone (reset, dispatched, never started) gets no WINDOW_UPDATE.
    package mutating func dataReceived(
        _ buffer: inout ByteBuffer, flowControlledLength: Int, endStream: Bool, on streamID: HTTP2StreamID
    ) -> DataAction {
        var action = DataAction(request: .none)
        guard frameArrived() else { return action }
        if flowControlledLength > 0 {
            unacknowledgedConnectionBytes += flowControlledLength
            if unacknowledgedConnectionBytes >= Self.connectionWindow / 2 {
                action.connectionWindowIncrement = unacknowledgedConnectionBytes
                unacknowledgedConnectionBytes = 0
            }
        }
        if let index = streams.index(forKey: streamID) {
            if flowControlledLength > 0 {
                streams.values[index].unacknowledged += flowControlledLength
                if streams.values[index].unacknowledged >= Self.streamWindow / 2 {
                    action.streamWindowIncrement = streams.values[index].unacknowledged
                    streams.values[index].unacknowledged = 0
                }
            }
            RequestBody.append(&buffer, to: &streams.values[index].body)
        }
        if endStream { action.request = dispatch(streamID) }
        return action
    }

    /// An RST_STREAM frame: the stream's request is dropped.
    package mutating func streamReset(_ streamID: HTTP2StreamID) {
        guard frameArrived() else { return }
        streams[streamID] = nil
    }

    /// Any other frame (SETTINGS, PING, WINDOW_UPDATE, …; NIOHTTP2 has dealt with it).
    package mutating func otherFrameReceived() {
        _ = frameArrived()
    }

    /// Counts a frame into the read burst; false while the connection is closing (the frame is ignored).
    private mutating func frameArrived() -> Bool {
        guard !isClosing else { return false }
        isReading = true
        return true
    }

    private mutating func dispatch(_ streamID: HTTP2StreamID) -> RequestAction {
        guard let pending = streams.removeValue(forKey: streamID) else { return .none }
        awaitingAnswers += 1
        return .dispatch(
            APNsRequest(method: pending.method, path: pending.path, headers: pending.headers, body: pending.body))
    }

    // MARK: Events

    /// A `StreamClosedEvent`: NIOHTTP2 closed the stream (it reset a request it refused mid-way, say);
    /// nothing of it stays.
    package mutating func streamClosed(_ streamID: HTTP2StreamID) {
        streams[streamID] = nil
    }

    /// An answer completed on the event loop (or refused: `503 Shutdown`).
    package mutating func answerCompleted(_ response: APNsResponse, on streamID: HTTP2StreamID) -> AnswerAction {
        guard isReading else { return .outbox }
        readBatch.append((streamID, response))
        return .batched
    }

    /// The read burst ended (channelReadComplete): its answers are written.
    package mutating func readComplete() -> WriteBatch? {
        isReading = false
        guard !readBatch.isEmpty else { return nil }
        let answers = readBatch
        readBatch = []
        return answersWritten(answers)
    }

    /// The outbox was emptied (answers completed off the event loop, or after the read burst that took
    /// their requests): they are written.
    package mutating func outboxDrained(_ answers: [Answer]) -> WriteBatch? {
        guard !answers.isEmpty else { return nil }
        return answersWritten(answers)
    }

    /// Answers that can't be written (the handler left the pipeline) are no longer owed.
    package mutating func answersDropped(count: Int) {
        awaitingAnswers -= count
    }

    private mutating func answersWritten(_ answers: [Answer]) -> WriteBatch {
        awaitingAnswers -= answers.count
        return WriteBatch(answers: answers, closeWhenWritten: isClosing && awaitingAnswers == 0)
    }

    /// NIOHTTP2 wrote a GOAWAY (it is about to report the connection error it answered, or the listener
    /// is quiescing: `.noError`, which is no error).
    package mutating func goAwayWritten(errorCode: HTTP2ErrorCode) {
        if errorCode != .noError { goAwayWithErrorWritten = true }
    }

    /// An error from the HTTP/2 layer (NIOHTTP2 has already reset the stream, or sent GOAWAY).
    ///
    /// An error confined to one stream (`ProtocolErrors`: NIOHTTP2's, with no GOAWAY written) changes
    /// nothing — the `StreamClosedEvent` that follows drops that stream's request; any other one stops
    /// the connection: pending requests are dropped, later frames ignored, and it closes once the
    /// answers owed are written.
    package mutating func errorCaught(_ error: any Error) -> ErrorAction {
        if ProtocolErrors.isConfinedToOneStream(error, goAwayWritten: goAwayWithErrorWritten) { return .streamRefused }
        guard !isClosing else { return .none }
        isClosing = true
        streams = [:]
        return awaitingAnswers == 0 ? .stopReadingAndClose : .stopReadingAndCloseWhenAnswered
    }
}
