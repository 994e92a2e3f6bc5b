import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import HeraldAPI

/// A change that applies a badge is followed on the live streams by a `badge` event (no cursor)
/// when the device's badges changed.
@Suite("Badges on the live streams")
struct BadgeStreamTests {
    /// Commits decided notifications and publishes them, as the push pipeline does.
    static func push(_ harness: TestHarness, _ rows: [StoredNotification]) async throws {
        harness.hub.publish(try await harness.store.insert(rows))
    }

    static func waitForSession(_ harness: TestHarness, _ deviceID: String) async throws {
        while !harness.hub.hasSession(deviceID: deviceID) { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("SSE: `event: badge` after a change of the badges, none when a push keeps them; 0 clears")
    func serverSentEvents() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        let app = TestHarness.bundleID
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            try await withTimeout {
                var stream = try await ServerSentEventsClient.connect(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?access_token=\(token)")
                try await Self.waitForSession(harness, device.deviceID)
                try await Self.push(
                    harness, [ThreadRoutesTests.row("a1", device: device, aps: #""badge":4"#, badge: true, at: 1)])
                #expect(try await stream.nextEvent()?.event == "notification")
                let first = try await stream.nextEvent()
                #expect(first?.event == "badge")
                #expect(first?.id == nil)
                #expect(first?.json["badge_total"]?.numberValue == 4)
                #expect(first?.json["apps"] == .array([.object(["bundle_id": .string(app), "badge": .number(4)])]))
                #expect(first?.json["changed"] == .array([.object(["bundle_id": .string(app), "badge": .number(4)])]))

                // The same badge again, and a push whose decision does not apply its badge: no event.
                try await Self.push(
                    harness, [ThreadRoutesTests.row("a2", device: device, aps: #""badge":4"#, badge: true, at: 2)])
                try await Self.push(
                    harness, [ThreadRoutesTests.row("a3", device: device, aps: #""badge":8"#, badge: false, at: 3)])
                try await Self.push(
                    harness, [ThreadRoutesTests.row("a4", device: device, aps: #""badge":0"#, badge: true, at: 4)])
                var events: [String] = []
                var cleared: ServerSentEvent?
                while cleared == nil, let event = try await stream.nextEvent() {
                    events.append(event.event == "badge" ? "badge" : event.json["id"]?.stringValue ?? "?")
                    if event.event == "badge" { cleared = event }
                }
                #expect(events == ["a2", "a3", "a4", "badge"])
                #expect(cleared?.json["badge_total"]?.numberValue == 0)
                #expect(cleared?.json["apps"] == .array([]))
                #expect(
                    cleared?.json["changed"] == .array([.object(["bundle_id": .string(app), "badge": .number(0)])]))
            }
        }
    }

    @Test("a row applies the badge its decision applies, read as the payload parser reads it")
    func appliedBadge() throws {
        let device = Device(deviceID: "d1", userID: "u1", name: "phone", createdAt: Date(timeIntervalSince1970: 0))
        let row = { (aps: String, badge: Bool) in
            ThreadRoutesTests.row("r", device: device, aps: aps, badge: badge, at: 0)
        }
        #expect(BadgeWatch.appliedBadge(row(#""badge":4"#, true)) == 4)
        #expect(BadgeWatch.appliedBadge(row(#""badge":"7""#, true)) == 7)
        #expect(BadgeWatch.appliedBadge(row(#""badge":0"#, true)) == 0)
        #expect(BadgeWatch.appliedBadge(row(#""badge":4"#, false)) == nil)
        #expect(BadgeWatch.appliedBadge(row(#""thread-id":"badge""#, true)) == nil)
        var removed = row(#""badge":4"#, true)
        removed.removedAt = Date(timeIntervalSince1970: 1)
        #expect(BadgeWatch.appliedBadge(removed) == nil)
        var undecided = row(#""badge":4"#, true)
        undecided.decision = nil
        #expect(BadgeWatch.appliedBadge(undecided) == nil)
    }

    @Test("WebSocket: a message of type `badge` after the notification that set it")
    func webSocket() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let received = HeraldMutex<[JSONValue]>([])
            try await withTimeout {
                async let push: Void = {
                    try await Self.waitForSession(harness, device.deviceID)
                    try await Self.push(
                        harness, [ThreadRoutesTests.row("w1", device: device, aps: #""badge":2"#, badge: true, at: 1)])
                }()
                try await WebSocketStreamTests.session(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
                ) { message in
                    received.withLock { $0.append(message) }
                    return message["type"] != .string("badge")
                }
                try await push
            }
            let messages = received.withLock { $0 }
            #expect(messages.map { $0["type"]?.stringValue } == ["notification", "badge"])
            #expect(messages.last?["badge"]?["badge_total"]?.numberValue == 2)
            #expect(messages.last?["cursor"] == nil)
        }
    }
}
