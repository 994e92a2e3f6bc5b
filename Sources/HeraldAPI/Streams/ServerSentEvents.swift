import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `GET /v1/devices/{device_id}/stream` as Server-Sent Events: `id: <cursor>`, `event:
/// notification|removed|summary`, `data: <one-line JSON>`, a comment line as heartbeat when idle.
///
/// The server answers most stream requests on the connection (`EventStreamHandler`, no task held
/// while idle); this route answers the rest — a refused one (with its JSON error), one requested
/// behind another request still in flight, and the router driven directly (tests) — and its
/// encoding (`write`) is the one both use.
struct ServerSentEvents: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    /// The response headers of every event stream Herald serves (proxies must not buffer it).
    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8",
        .cacheControl: "no-cache",
        HTTPField.Name("X-Accel-Buffering")!: "no",
    ]

    var routes: [APIRoute] {
        [APIRoute(.get, "/v1/devices/{device_id}/stream", stream)]
    }

    @Sendable func stream(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
        let dependencies = self.dependencies
        let cursor = try await CursorParameter.start(
            headers: request.headers, uri: request.uri, store: dependencies.store)
        var logger = context.logger
        logger[metadataKey: "device.id"] = .string(device.deviceID)
        let headers = Self.headers
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { [logger] writer in
                // Subscribe before the feed reads the backlog, so nothing committed in between is missed.
                let subscription = dependencies.hub.subscribe(deviceID: device.deviceID)
                defer { subscription.finish() }
                let feed = LiveFeed(
                    subscription: subscription, after: cursor, store: dependencies.store,
                    now: dependencies.now, logger: logger
                )
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                try await withTaskCancellationOrGracefulShutdownHandler {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            while true {
                                try await Task.sleep(for: dependencies.heartbeatInterval)
                                subscription.requestHeartbeat()
                            }
                        }
                        for try await output in feed {
                            try await Self.write(output) { try await writer.write($0) }
                        }
                        group.cancelAll()
                    }
                } onCancelOrGracefulShutdown: {
                    subscription.finish()
                }
                try await writer.finish(nil)
            })
    }

    /// Writes `value` in decimal digits (no string made per event).
    static func writeDecimal(_ value: Int64, to buffer: inout ByteBuffer) {
        guard value > 0 else {
            buffer.writeString(String(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 24 digits, more than an Int64 has
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[23 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: raw[(24 - count)...]))
        }
    }

    /// The most bytes of events handed to the connection at once. Each write waits until the
    /// connection takes more (its buffer is under NIO's 64 KiB high-water mark), so a session whose
    /// client never reads holds at most about this much encoded output besides that buffer: one
    /// block of every queued change at once had cost ~300 KB a stalled session (docs/reliability.md).
    static let writeChunkBytes = 8 << 10

    /// Writes one feed output: changes in blocks of about `chunkBytes`, each encoded just before it
    /// is written; anything else as one block.
    static func write(
        _ output: LiveFeedOutput, chunkBytes: Int = writeChunkBytes,
        to write: (ByteBuffer) async throws -> Void
    ) async throws {
        guard case .changes(let changes) = output else {
            try await write(try encode(output))
            return
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(min(changes.count * 1536, chunkBytes + 4096))
        for change in changes {
            appendEvent(change, to: &buffer)
            if buffer.readableBytes >= chunkBytes {
                try await write(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(chunkBytes + 4096)
            }
        }
        if buffer.readableBytes > 0 { try await write(buffer) }
    }

    /// One change as an event: `id:`, `event: notification|removed`, `data:`.
    static func appendEvent(_ change: LiveChange, to buffer: inout ByteBuffer) {
        let json = NotificationJSON(change.notification).jsonBytes
        buffer.writeStaticString("id: ")
        Self.writeDecimal(change.cursor, to: &buffer)
        buffer.writeStaticString(change.isRemoval ? "\nevent: removed\ndata: " : "\nevent: notification\ndata: ")
        buffer.writeBytes(json)
        buffer.writeStaticString("\n\n")
    }

    /// The bytes of one feed output: a block of events, or a heartbeat comment.
    static func encode(_ output: LiveFeedOutput) throws -> ByteBuffer {
        switch output {
        case .heartbeat:
            return ByteBuffer(string: ": heartbeat\n\n")
        case .badge(let badge):
            // Not a change of the list either: no `id:` (GET …/badges has the current value).
            var buffer = ByteBuffer(string: "event: badge\ndata: ")
            buffer.writeBytes(try JSONBody.encode(badge))
            buffer.writeString("\n\n")
            return buffer
        case .named(let name, let json):
            // Outside the change feed too: no `id:`.
            var buffer = ByteBuffer(string: "event: \(name)\ndata: ")
            buffer.writeBytes(try JSONBody.encode(json))
            buffer.writeString("\n\n")
            return buffer
        case .state(let state):
            // Not a change of the list: no `id:`, so a client's Last-Event-ID stays where it was.
            var buffer = ByteBuffer(string: "event: state\ndata: ")
            buffer.writeBytes(try JSONBody.encode(state))
            buffer.writeString("\n\n")
            return buffer
        case .summary(let summary):
            var buffer = ByteBuffer(string: "id: \(summary.cursor)\nevent: summary\ndata: ")
            buffer.writeBytes(SummaryEventJSON.bytes(summary))
            buffer.writeString("\n\n")
            return buffer
        case .changes(let changes):
            var buffer = ByteBuffer()
            buffer.reserveCapacity(changes.count * 1536)
            for change in changes {
                appendEvent(change, to: &buffer)
            }
            return buffer
        }
    }
}
