import HTTPTypes
import Hummingbird
import HummingbirdCore

/// Cursors as clients send them: opaque strings (today the decimal change sequence).
enum StreamCursor {
    /// The cursor in `value`; nil when absent or empty; 400 naming `name` when it is not a cursor.
    static func parse(_ value: String?, name: String) throws -> Int64? {
        guard let value, !value.isEmpty else { return nil }
        guard let cursor = Int64(value), cursor >= 0 else {
            throw APIError.invalidParameter(name, "must be a cursor Herald returned.")
        }
        return cursor
    }

    /// Where a stream starts: `Last-Event-ID` (an EventSource reconnecting) over `?cursor=` (the
    /// URL it first opened), else the beginning of the feed.
    static func resume(headers: HTTPFields, uri: URI) throws -> Int64 {
        if let lastEventID = try parse(headers[.lastEventID], name: "Last-Event-ID") {
            return lastEventID
        }
        return try parse(uri.queryParameters.get("cursor"), name: "cursor") ?? 0
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`, sent by an EventSource that reconnects.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
