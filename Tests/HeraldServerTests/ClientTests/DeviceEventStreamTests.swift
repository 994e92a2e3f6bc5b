import Foundation
import HeraldClient
import Testing

/// A device stream served by Python: the first connection sends two events and drops; later
/// connections send the Last-Event-ID they received as a third event and stay open.
private let sseServer = #"""
    import http.server, sys, time
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            if self.path != "/v1/devices/dev%201/stream":
                self.send_response(404); self.send_header("content-type", "application/json"); self.end_headers()
                self.wfile.write(b'{"error":{"code":"device_not_found","message":"No such device."}}'); return
            if self.headers.get("authorization") != "Bearer user-token":
                self.send_response(401); self.send_header("content-type", "application/json"); self.end_headers()
                self.wfile.write(b'{"error":{"code":"unauthorized","message":"Bad token."}}'); return
            self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
            last = self.headers.get("last-event-id")
            if last in (None, "0"):
                self.wfile.write(b": hello\n\nid: 1\nevent: notification\ndata: {\"n\":1}\n\nid: 2\nevent: notif")
                self.wfile.flush(); time.sleep(0.05)
                self.wfile.write(b"ication\ndata: {\"n\":2}\n\nid: 3\ndata: cut off mid-ev"); self.wfile.flush()
                return  # drop the connection mid-event
            self.wfile.write(("id: 9\nevent: resumed\ndata: " + last + "\n\n").encode()); self.wfile.flush()
            time.sleep(30)
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H); s.daemon_threads = True
    print(s.server_address[1], flush=True); s.serve_forever()
    """#

extension ClientTests {
    @Suite("The device event stream", .enabled(if: isInstalled("python3"), "needs python3"))
    struct DeviceEventStreamTests {
        @Test func afterADropItReconnectsAndResumesFromTheLastEventID() async throws {
            let server = try MockServer("python3", script: sseServer)
            defer { server.stop() }
            let client = try HeraldAPIClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, bearerToken: "user-token")
            let statuses = StatusLog()

            var received: [ServerSentEvent] = []
            let events = client.events(
                deviceID: "dev 1", cursor: "0",
                reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), maximumAttempts: 3),
                onStatus: statuses.append
            )
            for try await event in events {
                received.append(event)
                if received.count == 3 { break }
            }
            try await client.shutdown()

            #expect(
                received == [
                    ServerSentEvent(id: "1", event: "notification", data: #"{"n":1}"#),
                    ServerSentEvent(id: "2", event: "notification", data: #"{"n":2}"#),
                    // The half-sent event 3 was dropped; the reconnect said Last-Event-ID: 2.
                    ServerSentEvent(id: "9", event: "resumed", data: "2"),
                ])
            let log = await statuses.all()
            #expect(log.first == .connected(lastEventID: "0"))
            #expect(log.contains { if case .disconnected = $0 { true } else { false } })
            #expect(log.last == .connected(lastEventID: "2"))
        }

        @Test func aRefusedTokenEndsTheStreamAtOnceWithTheAPIError() async throws {
            let server = try MockServer("python3", script: sseServer)
            defer { server.stop() }
            let client = try HeraldAPIClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, bearerToken: "wrong")
            let error = await #expect(throws: HeraldAPIError.self) {
                for try await _ in client.events(deviceID: "dev 1") {}
            }
            try await client.shutdown()
            #expect(error?.status == 401)
            #expect(error?.code == "unauthorized")
            #expect(error?.jsonLine == #"{"error":{"code":"unauthorized","message":"Bad token."}}"#)
        }

        @Test func anUnreachableServerIsRetriedThenReported() async throws {
            // Port 9 (discard) is closed on a test machine: every attempt is refused.
            let client = try HeraldAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, bearerToken: "t")
            let statuses = StatusLog()
            await #expect(throws: (any Error).self) {
                let events = client.events(
                    deviceID: "d", reconnect: ReconnectPolicy(initialDelay: .milliseconds(1), maximumAttempts: 2),
                    onStatus: statuses.append
                )
                for try await _ in events {}
            }
            try await client.shutdown()
            // Two "disconnected, retrying" before giving up on the third failure.
            #expect(await statuses.all().count == 2)
        }
    }
}

/// Collects stream statuses from the callback (which may run on any thread).
private struct StatusLog {
    private let stream: AsyncStream<DeviceEventStream.Status>
    private let continuation: AsyncStream<DeviceEventStream.Status>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: DeviceEventStream.Status.self)
    }

    var append: @Sendable (DeviceEventStream.Status) -> Void {
        { [continuation] in continuation.yield($0) }
    }

    /// Every status so far; ends the log.
    func all() async -> [DeviceEventStream.Status] {
        continuation.finish()
        return await stream.reduce(into: []) { $0.append($1) }
    }
}
