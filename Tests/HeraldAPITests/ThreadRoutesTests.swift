import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HeraldAPI

/// `GET /v1/devices/{id}/threads` and `/badges` on SQLiteStore (they read the user-side state).
@Suite("Threads and badges routes")
struct ThreadRoutesTests {
    static let otherApp = "com.example.photos"

    /// A decided notification of `app` with the `aps` keys given (JSON members), received at `seconds`.
    static func row(
        _ id: String, device: Device, app: String = TestHarness.bundleID, aps: String = "",
        _ disposition: Disposition = .alerted, badge: Bool = false, at seconds: Int
    ) -> StoredNotification {
        let members = [#""alert":{"body":"\#(id)"}"#, aps].filter { !$0.isEmpty }.joined(separator: ",")
        let decision = Decision(disposition: disposition, badge: badge, effectiveLevel: .active)
        return StoredNotification(
            seq: 0, id: id, deviceID: device.deviceID, bundleID: app, topic: app, pushType: .alert, priority: 10,
            collapseID: nil, expiration: nil, payload: #"{"aps":{\#(members)}}"#,
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(seconds)),
            decision: DecisionRecord(decision: decision, context: .init(audioRoute: .none))
        )
    }

    static func makeOtherApp(_ harness: TestHarness) async throws {
        _ = try await harness.registry.createApp(bundleID: otherApp, teamID: TestHarness.teamID)
    }

    static func get(_ client: some TestClientProtocol, _ uri: String, _ token: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: bearer(token))
    }

    /// `bundle/thread:newest,others…` per group.
    static func shape(_ response: TestResponse) -> [String] {
        (response.json["threads"]?.arrayValue ?? []).map { group in
            let app = group["bundle_id"]?.stringValue ?? "?"
            let thread = group["thread_id"]?.stringValue ?? "-"
            let newest = group["notification"]?["id"]?.stringValue ?? "?"
            let others = (group["other_ids"]?.arrayValue ?? []).compactMap(\.stringValue)
            return "\(app)/\(thread):" + ([newest] + others).joined(separator: ",")
        }
    }

    @Test("automatic grouping: per app and thread, newest group first, only what the device shows, summary lines")
    func automaticGrouping() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        try await Self.makeOtherApp(harness)
        try await harness.store.upsertCategory(
            bundleID: TestHarness.bundleID, identifier: "MESSAGE",
            json: #"{"identifier":"MESSAGE","category_summary_format":"%u more messages from %@"}"#
        )
        let chat = #""thread-id":"chat-1","category":"MESSAGE""#
        _ = try await harness.store.insert([
            Self.row("m1", device: device, aps: chat + #","summary-arg":"Ana""#, at: 1),
            Self.row("m2", device: device, aps: chat + #","summary-arg":"Bo""#, at: 2),
            Self.row("p1", device: device, app: Self.otherApp, at: 3),
            Self.row("m3", device: device, aps: chat + #","summary-arg":"Ana","summary-arg-count":2"#, at: 4),
            Self.row("n1", device: device, aps: #""thread-id":"chat-2""#, at: 5),
            Self.row("p2", device: device, app: Self.otherApp, aps: #""thread-id":"""#, at: 6),
            // Not shown: dismissed, removed, not delivered, held.
            Self.row("gone", device: device, aps: chat, at: 7),
            Self.row("away", device: device, aps: chat, at: 8),
            Self.row("denied", device: device, aps: chat, .notDelivered, at: 9),
            Self.row("held", device: device, aps: chat, .heldForFocus, at: 10),
        ])
        _ = try await harness.store.dismiss(deviceID: device.deviceID, id: "gone", at: harness.clock.now())
        _ = try await harness.store.remove(deviceID: device.deviceID, id: "away", at: harness.clock.now())
        _ = try await harness.store.markRead(deviceID: device.deviceID, id: "m1", at: harness.clock.now())

        try await harness.makeApplication().test(.router) { client in
            let response = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads", token)
            #expect(response.status == .ok)
            #expect(
                Self.shape(response) == [
                    "\(Self.otherApp)/-:p2,p1", "\(TestHarness.bundleID)/chat-2:n1",
                    "\(TestHarness.bundleID)/chat-1:m3,m2,m1",
                ])
            #expect(response.json["total"]?.numberValue == 3)
            let threads = try #require(response.json["threads"]?.arrayValue)
            // The app's category format: %u = the others (1 each), %@ = their summary arguments.
            #expect(threads[2]["summary"] == .string("2 more messages from Bo and Ana"))
            #expect(threads[2]["count"]?.numberValue == 3)
            #expect(threads[2]["grouping"] == .string("automatic"))
            #expect(threads[2]["notification"]?["read_at"]?.isNull == true)
            // No category: Apple's default. A group of one: no summary line.
            #expect(threads[0]["summary"] == .string("1 more notification"))
            #expect(threads[1]["summary"]?.isNull == true)
            #expect(threads[1]["summary_count"]?.numberValue == 0)

            // The limit counts groups.
            let first = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads?limit=1", token)
            #expect(Self.shape(first) == ["\(Self.otherApp)/-:p2,p1"])
            #expect(first.json["total"]?.numberValue == 3)
            for bad in ["0", "501", "x"] {
                let refused = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads?limit=\(bad)", token)
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(refused.errorCode == "invalid_parameter")
            }
        }
    }

    @Test("grouping by app (user preference) and off (the app's own setting, over the API)")
    func groupingPreferences() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        try await Self.makeOtherApp(harness)
        _ = try await harness.store.insert([
            Self.row("a1", device: device, aps: #""thread-id":"x""#, at: 1),
            Self.row("a2", device: device, aps: #""thread-id":"y""#, at: 2),
            Self.row("b1", device: device, app: Self.otherApp, aps: #""thread-id":"x""#, at: 3),
            Self.row("b2", device: device, app: Self.otherApp, aps: #""thread-id":"x""#, at: 4),
        ])
        try await harness.makeApplication().test(.router) { client in
            let preferences = try await client.execute(
                uri: "/v1/me/preferences", method: .put, headers: bearer(token),
                body: jsonBody(#"{"grouping":"by_app"}"#)
            )
            #expect(preferences.status == .ok)
            let byApp = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads", token)
            #expect(Self.shape(byApp) == ["\(Self.otherApp)/-:b2,b1", "\(TestHarness.bundleID)/-:a2,a1"])
            #expect(byApp.json["threads"]?[0]?["grouping"] == .string("by_app"))

            let settings = try await client.execute(
                uri: "/v1/me/apps/\(Self.otherApp)/settings", method: .put, headers: bearer(token),
                body: jsonBody(#"{"grouping":"off"}"#)
            )
            #expect(settings.status == .ok)
            #expect(settings.json["grouping"] == .string("off"))
            let mixed = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads", token)
            #expect(
                Self.shape(mixed) == [
                    "\(Self.otherApp)/x:b2", "\(Self.otherApp)/x:b1", "\(TestHarness.bundleID)/-:a2,a1",
                ])
            let bad = try await client.execute(
                uri: "/v1/me/apps/\(Self.otherApp)/settings", method: .put, headers: bearer(token),
                body: jsonBody(#"{"grouping":"sometimes"}"#)
            )
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_field")
        }
    }

    @Test("summary lines pluralized by CLDR: a Russian stringsdict format, Arabic default in the device's locale")
    func pluralizedSummaries() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        try await Self.makeOtherApp(harness)
        try await harness.store.upsertCategory(
            bundleID: TestHarness.bundleID, identifier: "MESSAGE",
            json: #"{"identifier":"MESSAGE","category_summary_format":"MORE_MESSAGES"}"#
        )
        try await harness.store.putLocalizationFile(
            bundleID: TestHarness.bundleID, locale: "ru", kind: .stringsdict, name: "Localizable.stringsdict",
            data: Self.russianStringsdict
        )
        try await harness.store.setPreferences(UserPreferences(locale: "ru-RU"), userID: device.userID)
        var rows = (1...6).map {
            Self.row(
                "m\($0)", device: device, aps: #""thread-id":"c","category":"MESSAGE","summary-arg":"Ана""#, at: $0)
        }
        rows += (1...3).map { Self.row("p\($0)", device: device, app: Self.otherApp, at: 10 + $0) }
        _ = try await harness.store.insert(rows)
        try await harness.makeApplication().test(.router) { client in
            let russian = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads", token)
            let threads = try #require(russian.json["threads"]?.arrayValue)
            #expect(threads[1]["summary"] == .string("ещё 5 сообщений от Ана"))
            #expect(threads[0]["summary"] == .string("ещё 2 уведомления"))
            // The device's locale wins over the user's.
            try await harness.store.setDeviceState(DeviceState(locale: "ar"), deviceID: device.deviceID)
            let arabic = try await Self.get(client, "/v1/devices/\(device.deviceID)/threads", token)
            #expect(arabic.json["threads"]?[0]?["summary"] == .string("إشعاران آخران"))
        }
    }

    @Test("badges: the latest applied badge per app, 0 cleared, the total; another user's device is not found")
    func badges() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        let (strangerToken, _) = try await harness.makeDevice(userName: "Eve")
        try await Self.makeOtherApp(harness)
        _ = try await harness.store.insert([
            Self.row("a1", device: device, aps: #""badge":4"#, badge: true, at: 1),
            Self.row("a2", device: device, aps: #""badge":9"#, badge: false, at: 2),
            Self.row("b1", device: device, app: Self.otherApp, aps: #""badge":2"#, badge: true, at: 3),
        ])
        try await harness.makeApplication().test(.router) { client in
            let uri = "/v1/devices/\(device.deviceID)/badges"
            let response = try await Self.get(client, uri, token)
            #expect(response.status == .ok)
            #expect(response.json["total"]?.numberValue == 6)
            #expect(
                response.json["apps"]
                    == .array([
                        .object(["bundle_id": .string(TestHarness.bundleID), "badge": .number(4)]),
                        .object(["bundle_id": .string(Self.otherApp), "badge": .number(2)]),
                    ]))
            _ = try await harness.store.insert([Self.row("a3", device: device, aps: #""badge":0"#, badge: true, at: 4)])
            let cleared = try await Self.get(client, uri, token)
            #expect(cleared.json["total"]?.numberValue == 2)
            #expect(cleared.json["apps"]?.arrayValue?.count == 1)

            for path in ["badges", "threads"] {
                let stranger = try await Self.get(client, "/v1/devices/\(device.deviceID)/\(path)", strangerToken)
                #expect(stranger.status == .notFound)
                #expect(stranger.errorCode == "device_not_found")
                #expect(
                    try await client.execute(uri: "/v1/devices/\(device.deviceID)/\(path)", method: .get).status
                        == .unauthorized)
            }
        }
    }

    static let russianStringsdict = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>MORE_MESSAGES</key>
        \t<dict>
        \t\t<key>NSStringLocalizedFormatKey</key>
        \t\t<string>%#@messages@ от %@</string>
        \t\t<key>messages</key>
        \t\t<dict>
        \t\t\t<key>NSStringFormatSpecTypeKey</key>
        \t\t\t<string>NSStringPluralRuleType</string>
        \t\t\t<key>NSStringFormatValueTypeKey</key>
        \t\t\t<string>u</string>
        \t\t\t<key>one</key>
        \t\t\t<string>ещё %u сообщение</string>
        \t\t\t<key>few</key>
        \t\t\t<string>ещё %u сообщения</string>
        \t\t\t<key>many</key>
        \t\t\t<string>ещё %u сообщений</string>
        \t\t\t<key>other</key>
        \t\t\t<string>ещё %u сообщения</string>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """.utf8)
}
