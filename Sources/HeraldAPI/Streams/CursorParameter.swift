import HTTPTypes
import HeraldStore
import Hummingbird
import HummingbirdCore

/// Cursors as clients send them: opaque strings (today the decimal change sequence).
package enum CursorParameter {
    /// The cursor in `value`; nil when absent or empty; 400 naming `name` when it is not a cursor.
    package static func parse(_ value: String?, name: String) throws -> Int64? {
        guard let value, !value.isEmpty else { return nil }
        guard let cursor = Int64(value), cursor >= 0 else {
            throw APIError.invalidParameter(name, "must be a cursor Herald returned.")
        }
        return cursor
    }

    /// Where a stream resumes: `Last-Event-ID` (an EventSource reconnecting) over `?cursor=` (the
    /// URL it first opened); nil when the client gave neither (the stream starts at the end of
    /// the feed: only new changes).
    static func resume(headers: HTTPFields, uri: URI) throws -> Int64? {
        if let lastEventID = try parse(headers[.lastEventID], name: "Last-Event-ID") {
            return lastEventID
        }
        return try parse(uri.queryParameters.get("cursor"), name: "cursor")
    }

    /// Where a stream starts: after the client's cursor, else after the end of the feed now. The
    /// feed reads the store after it before going live, so nothing committed meanwhile is missed.
    static func start(headers: HTTPFields, uri: URI, store: any HeraldStore) async throws -> Int64 {
        if let cursor = try resume(headers: headers, uri: uri) { return cursor }
        return try await store.latestCursor()
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`, sent by an EventSource that reconnects.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
