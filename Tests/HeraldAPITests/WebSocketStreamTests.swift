import AsyncHTTPClient
import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@Suite("WebSocket stream")
struct WebSocketStreamTests {
    static let logger: Logger = {
        var logger = Logger(label: "ws-client")
        logger.logLevel = .critical
        return logger
    }()

    /// Connects, calls `onMessage` for each message (as JSON) until it returns false, then closes.
    static func session(
        port: Int, path: String, onMessage: @escaping @Sendable (JSONValue) async throws -> Bool
    ) async throws {
        try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)", logger: logger) { inbound, _, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                let json = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
                if try await !onMessage(json) { return }
            }
        }
    }

    @Test(
        "the same path upgrades to a WebSocket: backlog, live changes, resume with ?cursor=",
        arguments: StoreKind.allCases)
    func backlogLiveAndResume(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        try await harness.push(device.deviceID, id: "n1")
        try await harness.push(device.deviceID, id: "n2")
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let path = "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
            let received = HeraldMutex<[JSONValue]>([])
            try await withTimeout {
                try await Self.session(port: port, path: path + "&cursor=0") { message in
                    let count = received.withLock {
                        $0.append(message)
                        return $0.count
                    }
                    if count == 2 {
                        try await harness.push(device.deviceID, id: "n3")
                        _ = try await harness.store.remove(deviceID: device.deviceID, id: "n1", at: harness.clock.now())
                            .map { harness.hub.publish([$0]) }
                    }
                    return count < 4
                }
            }
            let messages = received.withLock { $0 }
            #expect(
                messages.map { $0["type"]?.stringValue } == ["notification", "notification", "notification", "removed"])
            #expect(messages.map { $0["cursor"]?.stringValue } == ["1", "2", "3", "4"])
            #expect(messages.map { $0["notification"]?["id"]?.stringValue } == ["n1", "n2", "n3", "n1"])
            #expect(messages[0]["notification"]?["payload"]?["aps"]?["badge"] == .number(3))

            // Resume after 2: exactly what came after it.
            try await harness.push(device.deviceID, id: "n4")
            let resumed = HeraldMutex<[String]>([])
            try await withTimeout {
                try await Self.session(port: port, path: path + "&cursor=2") { message in
                    resumed.withLock {
                        $0.append(message["cursor"]?.stringValue ?? "?")
                        return $0.count
                    } < 3
                }
            }
            #expect(resumed.withLock { $0 } == ["3", "4", "5"])

            // The SSE route still answers on the same path without the upgrade.
            let ids = try await withTimeout {
                var stream = try await ServerSentEventsClient.connect(port: port, path: path + "&cursor=4")
                return try await stream.events(1).compactMap(\.id)
            }
            #expect(ids == ["5"])
        }
    }

    @Test("a Scheduled Summary is a summary message with its cursor, live and once on resume")
    func summaryMessage() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        let decision = DecisionRecord(
            decision: Decision(disposition: .heldForSummary, effectiveLevel: .active, reasons: [.summaryHeld]),
            context: .init(audioRoute: .none)
        )
        _ = try await harness.store.insert(
            ["a", "b"].map { id in
                StoredNotification(
                    seq: 0, id: id, deviceID: device.deviceID, bundleID: TestHarness.bundleID,
                    topic: TestHarness.bundleID,
                    pushType: .alert, priority: 10, collapseID: nil, expiration: nil,
                    payload: #"{"aps":{"alert":{"title":"T","body":"\#(id)"}}}"#, receivedAt: harness.clock.now(),
                    decision: decision
                )
            })
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let path = "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
            let received = HeraldMutex<[JSONValue]>([])
            try await withTimeout {
                try await Self.session(port: port, path: path + "&cursor=0") { message in
                    let count = received.withLock {
                        $0.append(message)
                        return $0.count
                    }
                    if count == 2 {
                        // The summary time comes while the session is live
                        let now = harness.clock.now()
                        let candidates = try await harness.store.summaryCandidates([(device.userID, now)])
                        let part = DeviceSummary(
                            deviceID: device.deviceID,
                            apps: [SummaryAppGroup(bundleID: TestHarness.bundleID, ids: ["b", "a"])], featured: ["b"]
                        )
                        let release = SummaryRelease(
                            userID: device.userID, slot: now, digest: "{}", devices: [part], horizon: candidates.horizon
                        )
                        for event in try await harness.store.releaseSummaries([release], at: now)[0] ?? [] {
                            harness.hub.publishSummary(deviceID: event.deviceID, seq: event.seq)
                        }
                    }
                    return count < 3
                }
            }
            let messages = received.withLock { $0 }
            #expect(messages.map { $0["type"]?.stringValue } == ["notification", "notification", "summary"])
            let summary = messages[2]
            #expect(summary["cursor"]?.stringValue == "3" && summary["summary"]?["cursor"]?.stringValue == "3")
            let items = summary["summary"]?["apps"]?[0]?["notifications"]?.arrayValue ?? []
            #expect(items.map { $0["id"]?.stringValue } == ["b", "a"])
            #expect(items.map { $0["featured"] } == [.bool(true), .bool(false)])
            #expect(items.allSatisfy { $0["notification"]?["disposition"]?.stringValue == "listedSilently" })

            // A session resuming from before the summary gets it, once, first
            let resumed = HeraldMutex<[JSONValue]>([])
            try await withTimeout {
                try await Self.session(port: port, path: path + "&cursor=2") { message in
                    resumed.withLock { $0.append(message) }
                    return false
                }
            }
            #expect(resumed.withLock { $0.first?["type"]?.stringValue } == "summary")
            #expect(resumed.withLock { $0.first?["cursor"]?.stringValue } == "3")
        }
    }

    @Test(
        "a refused upgrade answers the JSON error: 401 without a valid token, 404 for another user's device",
        arguments: StoreKind.allCases)
    func refusedUpgradeAnswersJSONErrors(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice(userName: "Alice")
        let (bobsToken, _) = try await harness.makeDevice(userName: "Bob", makeApp: false)
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let stream = "/v1/devices/\(device.deviceID)/stream"
            let cases: [(String, Int, String)] = [
                (stream, 401, "unauthorized"),
                ("\(stream)?access_token=wrong", 401, "unauthorized"),
                ("\(stream)?access_token=\(bobsToken)", 404, "device_not_found"),
                ("/v1/devices/no-such-device/stream?access_token=\(bobsToken)", 404, "device_not_found"),
                ("\(stream)?access_token=\(token)&cursor=oops", 400, "invalid_parameter"),
                ("/healthz", 404, "not_found"),
            ]
            for (path, status, code) in cases {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                request.headers.add(name: "Connection", value: "Upgrade")
                request.headers.add(name: "Upgrade", value: "websocket")
                request.headers.add(name: "Sec-WebSocket-Version", value: "13")
                request.headers.add(name: "Sec-WebSocket-Key", value: "dGhlIHNhbXBsZSBub25jZQ==")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1 << 16)
                let json = try JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))
                #expect(Int(response.status.code) == status, "\(path)")
                #expect(json["error"]?["code"] == .string(code), "\(path)")
                #expect(response.headers.first(name: "content-type")?.hasPrefix("application/json") == true)
            }
            // The WebSocket client sees the refusal as a failed handshake.
            await #expect(throws: (any Error).self) {
                try await withTimeout {
                    try await Self.session(port: port, path: "\(stream)?access_token=\(bobsToken)") { _ in false }
                }
            }
            #expect(harness.hub.sessionCount == 0)
        }
    }
}
