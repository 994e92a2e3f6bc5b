/// One event of a `text/event-stream`.
public struct ServerSentEvent: Hashable, Sendable {
    /// The last event id at this event (`id:`), which a reconnect sends as `Last-Event-ID`.
    public var id: String?
    /// The event type (`event:`); `message` when the stream names none.
    public var event: String
    /// The data lines (`data:`), joined with line feeds.
    public var data: String

    /// An event from its parts.
    public init(id: String?, event: String = "message", data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// An incremental parser of `text/event-stream`, following the WHATWG HTML "event stream
/// interpretation": feed it bytes as they arrive, split anywhere, and take the complete events.
///
/// Lines end in CRLF, LF or CR; `:` starts a comment; one space after the field's colon is dropped;
/// `data:` lines accumulate; an empty line dispatches; `id:` persists across events; an event with no
/// data is not dispatched.
public struct ServerSentEventParser: Sendable {
    /// The id of the last complete event (`id:` persists across events); a reconnect resumes after it.
    /// An `id:` line of an event still arriving does not count until that event ends.
    public private(set) var lastEventID: String?
    /// The reconnection time the stream asked for with `retry:`, in milliseconds.
    public private(set) var retryMilliseconds: Int?
    /// Whether Herald's `: connected` comment arrived since the start (or `reset()`): the server
    /// writes it once the session is subscribed, so every later change reaches it.
    public private(set) var sawConnected = false

    private var idBuffer: String?
    private var line: [UInt8] = []
    private var previousWasCarriageReturn = false
    private var isAtStart = true
    private var eventType = ""
    private var data = ""
    private var hasData = false

    /// A parser at the start of a stream; `lastEventID` starts as the id a reconnect resumed from.
    public init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Consumes `bytes` and returns the events they completed, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if previousWasCarriageReturn {
                    previousWasCarriageReturn = false  // the LF of a CRLF
                } else {
                    endLine(into: &events)
                }
            case UInt8(ascii: "\r"):
                previousWasCarriageReturn = true
                endLine(into: &events)
            default:
                previousWasCarriageReturn = false
                line.append(byte)
            }
        }
        return events
    }

    /// Forgets a partly received event (after the connection dropped); keeps `lastEventID`.
    public mutating func reset() {
        idBuffer = lastEventID
        line = []
        previousWasCarriageReturn = false
        isAtStart = true
        eventType = ""
        data = ""
        hasData = false
        sawConnected = false
    }

    private static let connectedComment = Array(": connected".utf8)

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
        if isAtStart {
            isAtStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // byte order mark
        }
        guard !bytes.isEmpty else {
            dispatch(into: &events)
            return
        }
        if bytes.first == UInt8(ascii: ":") {  // a comment (keep-alive), or Herald's `: connected`
            if bytes.elementsEqual(Self.connectedComment) { sawConnected = true }
            return
        }

        let field: String
        let value: String
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            var rest = bytes[bytes.index(after: colon)...]
            if rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
            value = String(decoding: rest, as: UTF8.self)
        } else {
            field = String(decoding: bytes, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event":
            eventType = value
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.contains("\u{0}") { idBuffer = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                retryMilliseconds = Int(value)
            }
        default:
            break  // unknown fields are ignored
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            eventType = ""
            data = ""
            hasData = false
        }
        lastEventID = idBuffer
        guard hasData else { return }
        events.append(
            ServerSentEvent(
                id: lastEventID.flatMap { $0.isEmpty ? nil : $0 },
                event: eventType.isEmpty ? "message" : eventType,
                data: data
            ))
    }
}
