import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import HeraldAPI

/// The user-side state routes run on SQLiteStore (the in-memory double has no policy state).
@Suite("User-side state routes")
struct UserStateRoutesTests {
    static func put(_ client: some TestClientProtocol, _ uri: String, _ token: String, _ body: String) async throws
        -> TestResponse
    {
        try await client.execute(uri: uri, method: .put, headers: bearer(token), body: jsonBody(body))
    }

    @Test("per-app settings: defaults, partial PUT, every field, validation naming the field, unknown app")
    func appSettings() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        let uri = "/v1/me/apps/\(TestHarness.bundleID)/settings"
        try await harness.makeApplication().test(.router) { client in
            let initial = try await client.execute(uri: uri, method: .get, headers: bearer(token))
            #expect(initial.status == .ok)
            #expect(initial.json["is_default"] == .bool(true))
            #expect(initial.json["authorization_status"] == .string("authorized"))
            #expect(initial.json["show_previews"]?.isNull == true)

            let changed = try await Self.put(
                client, uri, token,
                #"{"sound":"disabled","show_previews":"never","alert_style":"alert","scheduled_delivery":"enabled","car_play":"disabled"}"#
            )
            #expect(changed.status == .ok)
            #expect(changed.json["sound"] == .string("disabled"))
            #expect(changed.json["show_previews"] == .string("never"))
            #expect(changed.json["badge"] == .string("enabled"))
            let stored = try await harness.store.appSettings(userID: try #require(harness.store.users().first?.userID))
            #expect(stored[TestHarness.bundleID]?.sound == .disabled)
            #expect(stored[TestHarness.bundleID]?.alertStyle == .alert)
            #expect(stored[TestHarness.bundleID]?.showPreviews == .never)

            // null = back to the global default; other fields stay.
            let reset = try await Self.put(client, uri, token, #"{"show_previews":null}"#)
            #expect(reset.json["show_previews"]?.isNull == true)
            #expect(reset.json["sound"] == .string("disabled"))
            #expect(reset.json["is_default"] == .bool(false))

            for (body, field) in [
                (#"{"sound":"loud"}"#, "sound"), (#"{"badge":true}"#, "badge"), (#"{"volume":"x"}"#, "volume"),
                (#"{"authorization_status":"maybe"}"#, "authorization_status"),
            ] {
                let bad = try await Self.put(client, uri, token, body)
                #expect(bad.status == .badRequest, "\(body)")
                #expect(bad.errorCode == "invalid_field")
                #expect(bad.json["error"]?["message"]?.stringValue?.hasPrefix("`\(field)`") == true, "\(body)")
            }
            #expect(try await Self.put(client, uri, token, "[1]").status == .badRequest)
            let unknownApp = try await client.execute(
                uri: "/v1/me/apps/com.nope/settings", method: .get, headers: bearer(token))
            #expect(unknownApp.status == .notFound)
            #expect(unknownApp.errorCode == "app_not_found")
            #expect(try await client.execute(uri: uri, method: .get).status == .unauthorized)
            #expect(
                try await client.execute(uri: uri, method: .get, headers: bearer(TestHarness.adminToken)).status
                    == .unauthorized)
        }
    }

    @Test("preferences: defaults, IANA time zone and locale validated, announce, grouping")
    func preferences() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        try await harness.makeApplication().test(.router) { client in
            let initial = try await client.execute(uri: "/v1/me/preferences", method: .get, headers: bearer(token))
            #expect(initial.json["grouping"] == .string("automatic"))
            #expect(initial.json["show_previews"] == .string("when_unlocked"))
            #expect(initial.json["time_zone"] == .string("UTC"))

            let changed = try await Self.put(
                client, "/v1/me/preferences", token,
                #"{"time_zone":"Europe/Paris","grouping":"by_app","announce":{"enabled":true,"apps":["com.example.app"]},"locale":"ar"}"#
            )
            #expect(changed.status == .ok)
            #expect(changed.json["time_zone"] == .string("Europe/Paris"))
            #expect(changed.json["grouping"] == .string("by_app"))
            #expect(changed.json["announce"]?["enabled"] == .bool(true))
            #expect(changed.json["locale"] == .string("ar"))

            for (body, field) in [
                (#"{"time_zone":"Mars/Olympus"}"#, "time_zone"), (#"{"time_zone":"CEST"}"#, "time_zone"),
                (#"{"locale":"not a locale"}"#, "locale"), (#"{"grouping":"by_thread"}"#, "grouping"),
                (#"{"announce":{"enabled":"yes"}}"#, "announce.enabled"),
            ] {
                let bad = try await Self.put(client, "/v1/me/preferences", token, body)
                #expect(bad.status == .badRequest, "\(body)")
                #expect(
                    bad.json["error"]?["message"]?.stringValue?.hasPrefix("`\(field)`") == true, "\(body): \(bad.text)")
            }
        }
    }

    @Test("Focus: built-ins by default, custom modes added and deleted, manual on/off and the active one")
    func focusModes() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        try await harness.makeApplication().test(.router) { client in
            let list = try await client.execute(uri: "/v1/me/focus-modes", method: .get, headers: bearer(token))
            let ids = list.json["focus_modes"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids == ["do_not_disturb", "personal", "work", "sleep", "reading", "driving"])

            let missingName = try await Self.put(client, "/v1/me/focus-modes/gym", token, #"{"allowed_apps":[]}"#)
            #expect(missingName.errorCode == "missing_field")
            let gym = try await Self.put(
                client, "/v1/me/focus-modes/gym", token,
                #"""
                {"name":"Gym","filter_mode":"silence","silenced_apps":["com.example.app"],
                 "allowed_people":[{"type":"phone","value":"+1 (555) 010-0200"},{"type":"email","value":"Bob@Example.com"}],
                 "allows_time_sensitive":false,"schedules":[{"days":["mon","wed"],"start":"18:00","end":"19:30"}]}
                """#)
            #expect(gym.status == .created)
            #expect(gym.json["kind"] == .string("custom"))
            #expect(gym.json["filter_mode"] == .string("silence"))
            #expect(gym.json["allowed_people"]?[0]?["value"] == .string("bob@example.com"))
            #expect(gym.json["allowed_people"]?[1]?["value"] == .string("+15550100200"))
            #expect(gym.json["schedules"]?[0]?["days"] == .array([.string("mon"), .string("wed")]))

            let work = try await Self.put(
                client, "/v1/me/focus-modes/work", token, #"{"allowed_apps":["com.example.app"]}"#)
            #expect(work.status == .ok)
            #expect(work.json["built_in"] == .bool(true))
            #expect(work.json["name"] == .string("Work"))

            for (body, field) in [
                (#"{"schedules":[{"days":["mon"],"start":"25:00","end":"07:00"}]}"#, "schedules[0].start"),
                (#"{"schedules":[{"days":["someday"],"start":"22:00","end":"07:00"}]}"#, "schedules[0].days[0]"),
                (#"{"allowed_people":[{"type":"fax","value":"1"}]}"#, "allowed_people[0].type"),
                (#"{"allowed_people":[{"type":"email","value":"nobody"}]}"#, "allowed_people[0].value"),
                (#"{"filter_mode":"block"}"#, "filter_mode"),
            ] {
                let bad = try await Self.put(client, "/v1/me/focus-modes/work", token, body)
                #expect(bad.status == .badRequest, "\(body)")
                #expect(
                    bad.json["error"]?["message"]?.stringValue?.hasPrefix("`\(field)`") == true, "\(body): \(bad.text)")
            }
            #expect(
                try await Self.put(client, "/v1/me/focus-modes/Bad%20Id", token, #"{"name":"x"}"#).errorCode
                    == "invalid_parameter")

            // Manual on with an end time; the active Focus says why.
            let until = Date(timeIntervalSince1970: harness.clock.now().timeIntervalSince1970 + 3600)
            let untilText = until.formatted(.iso8601)
            let on = try await client.execute(
                uri: "/v1/me/focus-modes/work/on", method: .post, headers: bearer(token),
                body: jsonBody(#"{"until":"\#(untilText)"}"#)
            )
            #expect(on.status == .ok)
            #expect(on.json["active"] == .bool(true))
            #expect(on.json["manual"]?["state"] == .string("on"))
            let active = try await client.execute(uri: "/v1/me/focus", method: .get, headers: bearer(token))
            #expect(active.json["active"]?["id"] == .string("work"))
            #expect(active.json["active"]?["activation"] == .string("manual"))
            #expect(active.json["reason"]?.stringValue?.contains("Work Focus was turned on") == true)

            // Turning on another one turns the first off; off ends it.
            #expect(
                try await client.execute(uri: "/v1/me/focus-modes/sleep/on", method: .post, headers: bearer(token))
                    .status == .ok)
            #expect(
                try await client.execute(uri: "/v1/me/focus", method: .get, headers: bearer(token)).json["active"]?[
                    "id"] == .string("sleep"))
            #expect(
                try await client.execute(uri: "/v1/me/focus-modes/sleep/off", method: .post, headers: bearer(token))
                    .status == .ok)
            #expect(
                try await client.execute(uri: "/v1/me/focus", method: .get, headers: bearer(token)).json["active"]?
                    .isNull == true)

            let past = try await client.execute(
                uri: "/v1/me/focus-modes/work/on", method: .post, headers: bearer(token),
                body: jsonBody(#"{"until":"2000-01-01T00:00:00Z"}"#)
            )
            #expect(past.json["error"]?["message"]?.stringValue?.hasPrefix("`until`") == true)
            #expect(
                try await client.execute(uri: "/v1/me/focus-modes/nope/on", method: .post, headers: bearer(token))
                    .errorCode == "focus_not_found")

            #expect(
                try await client.execute(uri: "/v1/me/focus-modes/work", method: .delete, headers: bearer(token))
                    .errorCode == "focus_built_in")
            #expect(
                try await client.execute(uri: "/v1/me/focus-modes/gym", method: .delete, headers: bearer(token)).status
                    == .noContent)
            #expect(
                try await client.execute(uri: "/v1/me/focus-modes/gym", method: .delete, headers: bearer(token))
                    .errorCode == "focus_not_found")
        }
    }

    @Test("Scheduled Summary: times HH:MM (at most 12), the next time, the preview")
    func summary() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        try await harness.makeApplication().test(.router) { client in
            let off = try await client.execute(uri: "/v1/me/summary", method: .get, headers: bearer(token))
            #expect(off.json["enabled"] == .bool(false))
            #expect(off.json["next_delivery_at"]?.isNull == true)

            let set = try await Self.put(
                client, "/v1/me/summary", token, #"{"times":["18:00","08:00","08:00"],"apps":["com.example.app"]}"#)
            #expect(set.status == .ok)
            #expect(set.json["times"] == .array([.string("08:00"), .string("18:00")]))
            #expect(set.json["next_delivery_at"]?.stringValue != nil)

            let thirteen = (0..<13).map { #""\#(String(format: "%02d", $0)):00""# }.joined(separator: ",")
            let tooMany = try await Self.put(client, "/v1/me/summary", token, #"{"times":[\#(thirteen)]}"#)
            #expect(tooMany.status == .badRequest)
            #expect(tooMany.json["error"]?["message"]?.stringValue?.hasPrefix("`times`") == true)
            let badTime = try await Self.put(client, "/v1/me/summary", token, #"{"times":["8am"]}"#)
            #expect(badTime.json["error"]?["message"]?.stringValue?.hasPrefix("`times[0]`") == true)

            let next = try await client.execute(uri: "/v1/me/summary/next", method: .get, headers: bearer(token))
            #expect(next.status == .ok)
            #expect(next.json["count"] == .number(0))
            #expect(next.json["deliver_at"] == set.json["next_delivery_at"])
        }
    }

    @Test("the summary preview is the policy's: the user's notifications held for the summary, the top one featured")
    func summaryPreviewOfThePolicy() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        let (_, other) = try await harness.makeDevice(userName: "Bob", makeApp: false)
        let held = DecisionRecord(
            decision: Decision(disposition: .heldForSummary, effectiveLevel: .active), context: .init(audioRoute: .none)
        )
        for (deviceID, id) in [(device.deviceID, "n1"), (device.deviceID, "n2"), (other.deviceID, "bobs")] {
            try await harness.push(deviceID, id: id)
            _ = try await harness.store.updateDecision(
                deviceID: deviceID, id: id, decision: held, releasedAt: nil, at: harness.clock.now())
        }
        try await harness.push(device.deviceID, id: "alerted")
        try await harness.makeApplication().test(.router) { client in
            let set = try await Self.put(client, "/v1/me/summary", token, #"{"times":["08:00"]}"#)
            #expect(set.status == .ok)
            let next = try await client.execute(uri: "/v1/me/summary/next", method: .get, headers: bearer(token))
            #expect(next.json["count"] == .number(2))
            #expect(next.json["deliver_at"] == set.json["next_delivery_at"])
            let listed = next.json["apps"]?[0]?["notifications"]?.arrayValue ?? []
            #expect(Set(listed.compactMap { $0["id"]?.stringValue }) == ["n1", "n2"])
            #expect(listed.filter { $0["featured"] == .bool(true) }.count == 1)
        }
    }

    /// The canonical zone names of the system's tz database (`zone1970.tab`, third column).
    static func canonicalZones() throws -> [String] {
        let tab = try String(contentsOfFile: TimeZoneDatabase.directory + "/zone1970.tab", encoding: .utf8)
        return tab.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let columns = line.split(separator: "\t")
            return columns.count >= 3 ? String(columns[2]) : nil
        }
    }

    @Test(
        "every zone of the system's tz database is accepted (zone1970.tab and backward links), Asia/Kolkata included; non-zones are refused alike"
    )
    func everyTimeZoneOfTheDatabase() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        let zones = try Self.canonicalZones()
        #expect(zones.count > 300, "zone1970.tab lists \(zones.count) zones")
        #expect(zones.contains("Asia/Kolkata"))
        let links = ["Asia/Calcutta", "US/Eastern", "Europe/Kiev", "Etc/GMT+5", "America/Buenos_Aires", "Asia/Saigon"]
        let uri = "/v1/devices/\(device.deviceID)/state"
        try await harness.makeApplication().test(.router) { client in
            var refused: [String] = []
            for zone in zones + links {
                let answer = try await Self.put(client, uri, token, #"{"time_zone":"\#(zone)"}"#)
                if answer.status != .ok || answer.json["time_zone"] != .string(zone) {
                    refused.append("\(zone): \(answer.text)")
                }
            }
            #expect(refused.isEmpty, "\(refused.count) refused: \(refused.prefix(5))")
            let preferences = try await Self.put(client, "/v1/me/preferences", token, #"{"time_zone":"Asia/Kolkata"}"#)
            #expect(preferences.status == .ok)
            #expect(preferences.json["time_zone"] == .string("Asia/Kolkata"))
            #expect(
                try await harness.store.deviceState(deviceID: device.deviceID)?.timeZone.identifier == "Asia/Saigon")

            for bad in [
                "Nowhere", "Mars/Olympus", "CEST", "Asia", "Asia/", "/Asia/Kolkata", "../zoneinfo/Asia/Kolkata",
                "Asia//Kolkata", "zone1970.tab", "Asia/Kolkata ", "", "America/New York",
            ] {
                let answer = try await Self.put(client, uri, token, #"{"time_zone":"\#(bad)"}"#)
                #expect(answer.status == .badRequest, "\(bad)")
                #expect(
                    answer.json["error"]?["message"]?.stringValue?.hasPrefix("`time_zone` must be an IANA time zone")
                        == true, "\(bad): \(answer.text)")
            }
        }
    }

    @Test(
        "device state: defaults, partial PUT, validation, another user's device is 404, the stream gets `state`, the policy reads the new state"
    )
    func deviceState() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice(userName: "Alice")
        let (bobsToken, _) = try await harness.makeDevice(userName: "Bob", makeApp: false)
        // The policy caches the device's context: each write below must make it read the new state.
        let engine = harness.policy.engine
        #expect(try await engine.context(deviceID: device.deviceID).deviceState.isLocked == true)
        let uri = "/v1/devices/\(device.deviceID)/state"
        let session = harness.hub.subscribe(deviceID: device.deviceID)
        defer { session.finish() }
        try await harness.makeApplication().test(.router) { client in
            let initial = try await client.execute(uri: uri, method: .get, headers: bearer(token))
            #expect(initial.json["locked"] == .bool(true))
            #expect(initial.json["audio_route"] == .string("none"))

            let changed = try await Self.put(
                client, uri, token,
                #"{"locked":false,"ringer_silent":true,"audio_route":"car","foreground_app":{"bundle_id":"com.example.app","will_present":["banner","sound"]},"time_zone":"America/New_York","locale":"fr-CA"}"#
            )
            #expect(changed.status == .ok)
            #expect(changed.json["foreground_app"]?["will_present"] == .array([.string("banner"), .string("sound")]))
            let stored = try await harness.store.deviceState(deviceID: device.deviceID)
            #expect(stored?.isLocked == false)
            #expect(stored?.audioRoute == .car)
            #expect(stored?.foregroundApp?.willPresent == [.banner, .sound])
            #expect(stored?.timeZone.identifier == "America/New_York")
            #expect(try await engine.context(deviceID: device.deviceID).deviceState.audioRoute == .car)

            guard case .deviceState(let json) = await session.next() else {
                Issue.record("no state event")
                return
            }
            #expect(json["audio_route"] == .string("car"))

            let noDelegate = try await Self.put(
                client, uri, token, #"{"foreground_app":{"bundle_id":"com.example.app","will_present":null}}"#)
            #expect(noDelegate.json["foreground_app"]?["will_present"]?.isNull == true)
            #expect(noDelegate.json["audio_route"] == .string("car"))

            for (body, field) in [
                (#"{"audio_route":"bluetooth"}"#, "audio_route"), (#"{"locked":"yes"}"#, "locked"),
                (#"{"foreground_app":{"bundle_id":"a","will_present":["alert"]}}"#, "foreground_app.will_present[0]"),
                (#"{"time_zone":"Nowhere"}"#, "time_zone"),
            ] {
                let bad = try await Self.put(client, uri, token, body)
                #expect(bad.status == .badRequest, "\(body)")
                #expect(
                    bad.json["error"]?["message"]?.stringValue?.hasPrefix("`\(field)`") == true, "\(body): \(bad.text)")
            }

            let other = try await Self.put(client, uri, bobsToken, #"{"locked":false}"#)
            let none = try await Self.put(client, "/v1/devices/nope/state", bobsToken, #"{"locked":false}"#)
            #expect(other.status == .notFound)
            #expect(other.errorCode == "device_not_found")
            #expect(other.text == none.text)
            #expect(
                try await client.execute(uri: uri, method: .get, headers: bearer(bobsToken)).errorCode
                    == "device_not_found")

            #expect(try await engine.context(deviceID: device.deviceID).preferences.grouping != .off)
            _ = try await Self.put(client, "/v1/me/preferences", token, #"{"grouping":"off"}"#)
            #expect(try await engine.context(deviceID: device.deviceID).preferences.grouping == .off)
        }
    }

    @Test("a device's state reaches its streams as `event: state` (SSE) without moving the cursor")
    func stateOnStream() async throws {
        let harness = try TestHarness()
        let (_, device) = try await harness.makeDevice()
        let subscription = harness.hub.subscribe(deviceID: device.deviceID)
        let feed = LiveFeed(
            subscription: subscription, after: 0, store: harness.store, now: harness.clock.now,
            logger: harness.dependencies.logger)
        harness.hub.publishState(deviceID: device.deviceID, .object(["locked": .bool(false)]))
        harness.hub.publishState(deviceID: device.deviceID, .object(["locked": .bool(true)]))
        var iterator = feed.makeAsyncIterator()
        let output = try await iterator.next()
        // Only the latest state waits.
        #expect(output == .state(.object(["locked": .bool(true)])))
        subscription.finish()
        let block = String(buffer: try ServerSentEvents.encode(.state(.object(["locked": .bool(true)]))))
        #expect(block == "event: state\ndata: {\"locked\":true}\n\n")
    }
}
