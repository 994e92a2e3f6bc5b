import AsyncHTTPClient
import Foundation
import HeraldCore
import NIOCore
import NIOHTTP1

struct TimedOut: Error {}

/// Runs `operation`, failing with `TimedOut` after `seconds` so a broken stream fails a test
/// instead of hanging it. A guard against a hang, not a speed check: alone these streams answer in
/// milliseconds, but the whole suite starts at once on 2 cores, and there (with one more busy process
/// beside it) a stream test's first events took more than 10 s.
func withTimeout<T: Sendable>(_ seconds: Double = 60, _ operation: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// One Server-Sent Event as a client parses it.
struct ServerSentEvent: Hashable {
    var id: String?
    var event: String?
    var data: String?
    var comments: [String] = []

    /// The data as JSON.
    var json: JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data((data ?? "").utf8))) ?? .null
    }
}

/// A streaming SSE client over AsyncHTTPClient.
struct ServerSentEventsClient {
    let response: HTTPClientResponse
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var pending = ""

    /// Opens `path` on the local server.
    static func connect(port: Int, path: String, headers: [(String, String)] = []) async throws
        -> ServerSentEventsClient
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return ServerSentEventsClient(response: response, iterator: response.body.makeAsyncIterator())
    }

    private init(response: HTTPClientResponse, iterator: HTTPClientResponse.Body.AsyncIterator) {
        self.response = response
        self.iterator = iterator
    }

    /// The next event block (comment-only blocks included); nil when the stream ends.
    mutating func nextBlock() async throws -> ServerSentEvent? {
        while true {
            if let range = pending.range(of: "\n\n") {
                let block = String(pending[..<range.lowerBound])
                pending = String(pending[range.upperBound...])
                return Self.parse(block)
            }
            guard let buffer = try await iterator.next() else { return nil }
            pending += String(buffer: buffer)
        }
    }

    /// The next event that has data (comments skipped).
    mutating func nextEvent() async throws -> ServerSentEvent? {
        while let block = try await nextBlock() {
            if block.data != nil { return block }
        }
        return nil
    }

    /// The next `count` events with data.
    mutating func events(_ count: Int) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        while events.count < count, let event = try await nextEvent() { events.append(event) }
        return events
    }

    static func parse(_ block: String) -> ServerSentEvent {
        var event = ServerSentEvent()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                event.comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                continue
            }
            let (field, value) =
                line.firstIndex(of: ":").map {
                    (String(line[..<$0]), String(line[line.index(after: $0)...]).trimmingPrefix(" "))
                } ?? (String(line), "")
            switch field {
            case "id": event.id = String(value)
            case "event": event.event = String(value)
            case "data": event.data = (event.data.map { $0 + "\n" } ?? "") + value
            default: break
            }
        }
        return event
    }
}
