import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The app API (`/v1/app/…`) behind an app credential: what it accepts, what it refuses (each with
/// its code, changing nothing), and that an app reaches only its own requests and notifications.
@Suite("The app API")
struct AppRoutesTests {
    static let admin = bearer(TestHarness.adminToken)

    /// A device and a credential of the harness's app on it.
    static func credential(_ harness: TestHarness) async throws -> (credential: String, device: Device) {
        let (_, device) = try await harness.makeDevice()
        let created = try await harness.registry.createAppCredential(
            deviceID: device.deviceID, bundleID: TestHarness.bundleID)
        return (created.credential, device)
    }

    @Test("credentials: issued by the admin only, for a device and an app that exist")
    func credentials() async throws {
        let harness = try TestHarness()
        let (_, device) = try await harness.makeDevice()
        try await harness.makeApplication().test(.router) { client in
            let body = #"{"device_id":"\#(device.deviceID)","bundle_id":"\#(TestHarness.bundleID)"}"#
            let created = try await client.execute(
                uri: "/v1/admin/app-credentials", method: .post, headers: Self.admin, body: jsonBody(body))
            #expect(created.status == .created)
            #expect(created.json["device_id"] == .string(device.deviceID))
            #expect(created.json["user_id"] == .string(device.userID))
            guard case .string(let credential)? = created.json["credential"] else {
                Issue.record("no credential")
                return
            }
            let listed = try await client.execute(uri: "/v1/app/requests", method: .get, headers: bearer(credential))
            #expect(listed.status == .ok)
            #expect(listed.json["requests"] == .array([]))

            let noAdmin = try await client.execute(
                uri: "/v1/admin/app-credentials", method: .post, headers: bearer(credential), body: jsonBody(body))
            #expect(noAdmin.status == .unauthorized)
            for (payload, code) in [
                (#"{"device_id":"nope","bundle_id":"\#(TestHarness.bundleID)"}"#, "device_not_found"),
                (#"{"device_id":"\#(device.deviceID)","bundle_id":"com.example.none"}"#, "app_not_found"),
                (#"{"device_id":"\#(device.deviceID)"}"#, "missing_field"),
            ] {
                let refused = try await client.execute(
                    uri: "/v1/admin/app-credentials", method: .post, headers: Self.admin, body: jsonBody(payload))
                #expect(refused.json["error"]?["code"] == .string(code), "\(payload)")
            }
            // No credential, a user's token, or a made-up one: 401.
            let (userToken, _) = try await harness.makeDevice(userName: "Bob", makeApp: false)
            for headers in [HTTPFields(), bearer(userToken), bearer("made-up")] {
                let refused = try await client.execute(uri: "/v1/app/requests", method: .get, headers: headers)
                #expect(refused.status == .unauthorized)
            }
        }
    }

    @Test("add: delivered at once without a trigger, decided and listed like a push")
    func addWithoutTrigger() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await Self.credential(harness)
        try await harness.makeApplication().test(.router) { client in
            let body = #"""
                {"identifier":"hello","content":{"title":"Hi","body":"There","badge":3,"sound":{"name":null},
                 "thread_identifier":"t1","interruption_level":"time-sensitive","relevance_score":0.5,
                 "user_info":{"order":42}},"trigger":null}
                """#
            let added = try await client.execute(
                uri: "/v1/app/requests", method: .post, headers: bearer(credential), body: jsonBody(body))
            #expect(added.status == .created)
            #expect(added.json["delivered"] == .bool(true))
            #expect(added.json["notification"]?["source"] == .string("local"))
            let id = LocalNotificationID.make(bundleID: TestHarness.bundleID, identifier: "hello")
            let row = try #require(try await harness.store.notification(deviceID: device.deviceID, id: id))
            let payload = try JSONParser.parse(Array(row.payload.utf8))
            #expect(payload["order"] == .number(42))
            #expect(payload["aps"]?["alert"]?["title"] == .string("Hi"))
            #expect(payload["aps"]?["sound"] == .string("default"))
            #expect(payload["aps"]?["thread-id"] == .string("t1"))
            #expect(payload["aps"]?["interruption-level"] == .string("time-sensitive"))
            #expect(row.decision != nil)
            // Without the entitlement, time-sensitive is treated as active: the policy's rule applies.
            #expect(row.decision?.decision.reasons.contains(.timeSensitiveNotEntitled) == true)

            let delivered = try await client.execute(
                uri: "/v1/app/notifications", method: .get, headers: bearer(credential))
            #expect(delivered.json["notifications"]?[0]?["identifier"] == .string("hello"))
            #expect(delivered.json["notifications"]?[0]?["notification"]?["id"] == .string(id))
            // The user's list shows it too.
            #expect(try await harness.store.appBadges(deviceID: device.deviceID).map(\.badge) == [3])
        }
    }

    @Test("add with a trigger: pending, listed, removed")
    func addWithTrigger() async throws {
        let harness = try TestHarness()
        let (credential, _) = try await Self.credential(harness)
        try await harness.makeApplication().test(.router) { client in
            for (identifier, trigger) in [
                ("soon", #"{"type":"time_interval","time_interval":90,"repeats":false}"#),
                ("daily", #"{"type":"calendar","date_components":{"hour":8,"minute":30},"repeats":true}"#),
            ] {
                let body = #"{"identifier":"\#(identifier)","content":{"body":"x"},"trigger":\#(trigger)}"#
                let added = try await client.execute(
                    uri: "/v1/app/requests", method: .post, headers: bearer(credential), body: jsonBody(body))
                #expect(added.status == .created)
                #expect(added.json["delivered"] == .bool(false))
            }
            let listed = try await client.execute(uri: "/v1/app/requests", method: .get, headers: bearer(credential))
            #expect(listed.json["requests"]?[0]?["identifier"] == .string("soon"))
            #expect(
                listed.json["requests"]?[0]?["next_trigger_date"]
                    == .string(
                        harness.clock.manual.now.addingTimeInterval(90).formatted(
                            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))))
            #expect(listed.json["requests"]?[1]?["trigger"]?["date_components"]?["hour"] == .number(8))
            #expect(listed.json["requests"]?[1]?["content"]?["body"] == .string("x"))

            let removed = try await client.execute(
                uri: "/v1/app/requests/remove", method: .post, headers: bearer(credential),
                body: jsonBody(#"{"identifiers":["soon","unknown"]}"#))
            #expect(removed.json["removed"] == .array([.string("soon")]))
            let all = try await client.execute(uri: "/v1/app/requests", method: .delete, headers: bearer(credential))
            #expect(all.json["removed"] == .array([.string("daily")]))
        }
    }

    @Test("refusals: each with its code and Apple's message, nothing added")
    func refusals() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await Self.credential(harness)
        try await harness.makeApplication().test(.router) { client in
            for (body, code, words) in [
                (
                    #"{"identifier":"a","content":{"body":"x"},"trigger":{"type":"time_interval","time_interval":30,"repeats":true}}"#,
                    "invalid_trigger", "time interval must be at least 60 if repeating"
                ),
                (
                    #"{"identifier":"a","content":{"body":"x"},"trigger":{"type":"time_interval","time_interval":0}}"#,
                    "invalid_trigger", "time interval must be greater than 0"
                ),
                // A fire date this far off did not fit the store's milliseconds: the server trapped.
                (
                    #"{"identifier":"a","content":{"body":"x"},"trigger":{"type":"time_interval","time_interval":1e20}}"#,
                    "invalid_trigger", "at most 100 years"
                ),
                (
                    #"{"identifier":"a","content":{"body":"x"},"trigger":{"type":"calendar","date_components":{"hour":"8"}}}"#,
                    "invalid_field", "trigger.date_components.hour"
                ),
                (
                    #"{"identifier":"a","content":{"body":"x"},"trigger":{"type":"location","region":{"identifier":"r","latitude":1,"longitude":2,"radius":-1}}}"#,
                    "invalid_field", "more than 0 meters"
                ),
                (#"{"identifier":"a","content":{"title":""}}"#, "notification_invalid_no_content", "nothing to show"),
                (
                    #"{"identifier":"a","content":{"body":"x","user_info":{"aps":{}}}}"#, "invalid_field",
                    "user_info.aps"
                ),
                (#"{"identifier":"a","content":{"body":"x","relevance_score":2}}"#, "invalid_field", "relevance_score"),
                (#"{"identifier":"a","content":{"body":"x","badge":-1}}"#, "invalid_field", "badge"),
                (
                    #"{"identifier":"a","content":{"body":"x","interruption_level":"urgent"}}"#, "invalid_field",
                    "interruption_level"
                ),
                (#"{"identifier":"","content":{"body":"x"}}"#, "invalid_field", "identifier"),
                (#"{"content":{"body":"x"}}"#, "missing_field", "identifier"),
                (#"{"identifier":"a","content":{"body":"x"},"extra":1}"#, "invalid_field", "extra"),
            ] {
                let refused = try await client.execute(
                    uri: "/v1/app/requests", method: .post, headers: bearer(credential), body: jsonBody(body))
                #expect(refused.status == .badRequest, "\(body)")
                #expect(refused.json["error"]?["code"] == .string(code), "\(body)")
                guard case .string(let message)? = refused.json["error"]?["message"] else { continue }
                #expect(message.contains(words), "\(message)")
            }
            // Denied by the person: 403, nothing stored.
            try await harness.store.setAppSettings(
                AppNotificationSettings(authorizationStatus: .denied), userID: device.userID,
                bundleID: TestHarness.bundleID)
            await harness.policy.userStateChanged(userID: device.userID)
            let denied = try await client.execute(
                uri: "/v1/app/requests", method: .post, headers: bearer(credential),
                body: jsonBody(#"{"identifier":"a","content":{"body":"x"}}"#))
            #expect(denied.status == .forbidden)
            #expect(denied.json["error"]?["code"] == .string("notifications_not_allowed"))
            #expect(
                try await harness.store.appNotifications(deviceID: device.deviceID, bundleID: TestHarness.bundleID)
                    .isEmpty)
            #expect(
                try await harness.store.localRequests(deviceID: device.deviceID, bundleID: TestHarness.bundleID).isEmpty
            )

            let badge = try await client.execute(
                uri: "/v1/app/badge", method: .put, headers: bearer(credential), body: jsonBody(#"{"count":-2}"#))
            #expect(badge.json["error"]?["code"] == .string("badge_input_invalid"))
        }
    }

    @Test("categories are replaced as a set; settings show the person's choices")
    func categoriesAndSettings() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await Self.credential(harness)
        try await harness.store.upsertCategory(
            bundleID: TestHarness.bundleID, identifier: "OLD", json: #"{"identifier":"OLD"}"#)
        try await harness.makeApplication().test(.router) { client in
            let body = #"""
                {"categories":[{"identifier":"update-actions","actions":[
                  {"identifier":"like-action","title":"Like","icon":{"system_image_name":"hand.thumbsup"}},
                  {"identifier":"comment-action","title":"Comment","icon":{"template_image_name":"text.bubble"},
                   "text_input":{"button_title":"Post","placeholder":"Type here…"}}]}]}
                """#
            let put = try await client.execute(
                uri: "/v1/app/categories", method: .put, headers: bearer(credential), body: jsonBody(body))
            #expect(put.status == .ok)
            let got = try await client.execute(uri: "/v1/app/categories", method: .get, headers: bearer(credential))
            #expect(got.json["categories"]?[0]?["identifier"] == .string("update-actions"))
            #expect(got.json["categories"]?[0]?["actions"]?[1]?["text_input"]?["button_title"] == .string("Post"))
            #expect(got.json["categories"]?[1] == nil)
            // What the API writes (null icon and text input included) is accepted back as it is.
            let roundTrip = try await client.execute(
                uri: "/v1/app/categories", method: .put, headers: bearer(credential),
                body: jsonBody(String(decoding: try JSONEncoder().encode(got.json), as: UTF8.self)))
            #expect(roundTrip.status == .ok)
            #expect(roundTrip.json["categories"] == got.json["categories"])
            let repeated = try await client.execute(
                uri: "/v1/app/categories", method: .put, headers: bearer(credential),
                body: jsonBody(#"{"categories":[{"identifier":"A"},{"identifier":"A"}]}"#))
            #expect(repeated.json["error"]?["code"] == .string("invalid_field"))
            #expect(
                try await harness.store.categories(bundleID: TestHarness.bundleID).map(\.identifier) == [
                    "update-actions"
                ])

            let settings = try await client.execute(uri: "/v1/app/settings", method: .get, headers: bearer(credential))
            #expect(settings.json["settings"]?["authorization_status"] == .string("authorized"))
            #expect(settings.json["settings"]?["is_default"] == .bool(true))
            #expect(settings.json["effective_show_previews"] == .string("when_unlocked"))
            try await harness.store.setAppSettings(
                AppNotificationSettings(authorizationStatus: .provisional, showPreviews: .never),
                userID: device.userID, bundleID: TestHarness.bundleID)
            let changed = try await client.execute(uri: "/v1/app/settings", method: .get, headers: bearer(credential))
            #expect(changed.json["settings"]?["authorization_status"] == .string("provisional"))
            #expect(changed.json["effective_show_previews"] == .string("never"))
        }
    }

    @Test("an app's credential reaches only its own notifications on its own device")
    func isolation() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await Self.credential(harness)
        let otherApp = "com.example.second"
        _ = try await harness.registry.createApp(
            bundleID: otherApp, teamID: TestHarness.teamID, name: "Second", entitlements: Entitlements())
        let other = try await harness.registry.createAppCredential(deviceID: device.deviceID, bundleID: otherApp)
        try await harness.makeApplication().test(.router) { client in
            for token in [credential, other.credential] {
                _ = try await client.execute(
                    uri: "/v1/app/requests", method: .post, headers: bearer(token),
                    body: jsonBody(#"{"identifier":"same","content":{"body":"x"}}"#))
            }
            let removed = try await client.execute(
                uri: "/v1/app/notifications", method: .delete, headers: bearer(other.credential))
            #expect(removed.json["removed"] == .array([.string("same")]))
            let mine = try await client.execute(uri: "/v1/app/notifications", method: .get, headers: bearer(credential))
            #expect(mine.json["notifications"]?[0]?["identifier"] == .string("same"))
            #expect(mine.json["notifications"]?[1] == nil)
        }
    }

    @Test("authorization: provisional quietly, a request the person answers once, the stored answer after")
    func authorization() async throws {
        let harness = try TestHarness()
        let (ownerToken, device) = try await harness.makeDevice()
        let credential = try await harness.registry.createAppCredential(
            deviceID: device.deviceID, bundleID: TestHarness.bundleID
        ).credential
        let (userToken, _) = try await harness.makeDevice(userName: "Bob", makeApp: false)
        try await harness.makeApplication().test(.router) { client in
            let ask = { (body: String) in
                try await client.execute(
                    uri: "/v1/app/authorization", method: .post, headers: bearer(credential), body: jsonBody(body))
            }
            // Nothing answered yet: a request, pending (wait 0: answer at once with 202).
            let first = try await ask(#"{"options":["alert","sound","criticalAlert"],"wait":0}"#)
            #expect(first.status == .accepted)
            #expect(first.json["granted"]?.isNull == true)
            #expect(first.json["authorization_status"] == .string("not_determined"))
            guard case .string(let requestID)? = first.json["request"]?["id"] else {
                Issue.record("no request id")
                return
            }
            #expect(
                first.json["request"]?["options"]
                    == .array([.string("sound"), .string("alert"), .string("critical_alert")]))
            // Asking again joins the same request.
            let again = try await ask(#"{"options":["badge"],"wait":0}"#)
            #expect(again.json["request"]?["id"] == .string(requestID))
            // Until answered, nothing is delivered: the app's settings say not determined.
            let stored = try await harness.store.appSettings(userID: device.userID)[TestHarness.bundleID]
            #expect(stored?.authorizationStatus == .notDetermined)

            // The device lists it; only its owner sees it.
            let listed = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/authorization-requests", method: .get, headers: bearer(ownerToken))
            #expect(listed.json["requests"]?[0]?["id"] == .string(requestID))
            let stranger = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/authorization-requests", method: .get, headers: bearer(userToken))
            #expect(stranger.status == .notFound)
            let answerURI = "/v1/devices/\(device.deviceID)/authorization-requests/\(requestID)"
            let strangerAnswer = try await client.execute(
                uri: answerURI, method: .post, headers: bearer(userToken), body: jsonBody(#"{"allow":true}"#))
            #expect(strangerAnswer.status == .notFound)

            let answered = try await client.execute(
                uri: answerURI, method: .post, headers: bearer(ownerToken), body: jsonBody(#"{"allow":true}"#))
            #expect(answered.status == .ok)
            #expect(answered.json["request"]?["granted"] == .bool(true))
            #expect(answered.json["settings"]?["authorization_status"] == .string("authorized"))
            #expect(answered.json["settings"]?["sound"] == .string("enabled"))
            #expect(answered.json["settings"]?["badge"] == .string("not_supported"))
            #expect(answered.json["settings"]?["critical_alerts"] == .string("not_supported"))  // not entitled
            let twice = try await client.execute(
                uri: answerURI, method: .post, headers: bearer(ownerToken), body: jsonBody(#"{"allow":false}"#))
            #expect(twice.status == .conflict)

            // Answered: the stored answer at once, no new request.
            let later = try await ask(#"{"options":["alert"]}"#)
            #expect(later.status == .ok)
            #expect(later.json["granted"] == .bool(true))
            #expect(later.json["authorization_status"] == .string("authorized"))
            let none = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/authorization-requests", method: .get, headers: bearer(ownerToken))
            #expect(none.json["requests"] == .array([]))

            let bad = try await ask(#"{"options":["loud"]}"#)
            #expect(bad.json["error"]?["code"] == .string("invalid_field"))
        }
    }

    @Test("authorization: provisional is granted quietly, without a request")
    func provisionalAuthorization() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await Self.credential(harness)
        try await harness.makeApplication().test(.router) { client in
            let answer = try await client.execute(
                uri: "/v1/app/authorization", method: .post, headers: bearer(credential),
                body: jsonBody(#"{"options":["alert","provisional"]}"#))
            #expect(answer.status == .ok)
            #expect(answer.json["granted"] == .bool(true))
            #expect(answer.json["authorization_status"] == .string("provisional"))
            #expect(try await harness.store.pendingAuthorizationRequests(deviceID: device.deviceID).isEmpty)
        }
    }
}
