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

@Suite("Categories, localizations, admin lists and decisions")
struct AppResourceRoutesTests {
    static let admin = bearer(TestHarness.adminToken)

    @Test("categories: canonical JSON stored, validation naming the field, list, delete, admin only")
    func categories() async throws {
        let harness = try TestHarness()
        _ = try await harness.makeDevice()
        let base = "/v1/admin/apps/\(TestHarness.bundleID)/categories"
        try await harness.makeApplication().test(.router) { client in
            let body = #"""
                {"actions":[{"identifier":"REPLY","title":"Reply","options":["authenticationRequired"],
                  "icon":{"system_image_name":"arrowshape.turn.up.left"},"text_input":{"button_title":"Send","placeholder":"Message"}},
                  {"identifier":"DELETE","title":"Delete","options":["destructive"]}],
                 "intent_identifiers":["INSendMessageIntent"],"hidden_previews_body_placeholder":"%u new messages",
                 "category_summary_format":"%u more messages from %@","options":["hidden_previews_show_title","allow_in_car_play"]}
                """#
            let created = try await client.execute(
                uri: "\(base)/MESSAGE", method: .put, headers: Self.admin, body: jsonBody(body))
            #expect(created.status == .created)
            #expect(created.json["identifier"] == .string("MESSAGE"))
            #expect(created.json["actions"]?[0]?["options"] == .array([.string("authentication_required")]))
            #expect(created.json["actions"]?[0]?["text_input"]?["button_title"] == .string("Send"))
            #expect(created.json["actions"]?[1]?["icon"]?.isNull == true)
            #expect(
                created.json["options"]
                    == .array([.string("allow_in_car_play"), .string("hidden_previews_show_title")]))
            let record = try await harness.store.category(bundleID: TestHarness.bundleID, identifier: "MESSAGE")
            #expect(record?.json.contains(#""hidden_previews_body_placeholder":"%u new messages""#) == true)

            let replaced = try await client.execute(
                uri: "\(base)/MESSAGE", method: .put, headers: Self.admin, body: jsonBody("{}"))
            #expect(replaced.status == .ok)
            #expect(replaced.json["actions"] == .array([]))

            for (payload, field) in [
                (#"{"actions":[{"identifier":"A","title":"A","options":["sticky"]}]}"#, "actions[0].options[0]"),
                (#"{"actions":[{"title":"A"}]}"#, "actions[0].identifier"),
                (#"{"actions":[{"identifier":"A","title":""}]}"#, "actions[0].title"),
                (
                    #"{"actions":[{"identifier":"A","title":"A","icon":{"system_image_name":"a","template_image_name":"b"}}]}"#,
                    "actions[0].icon"
                ),
                (
                    #"{"actions":[{"identifier":"A","title":"A","text_input":{}}]}"#,
                    "actions[0].text_input.button_title"
                ),
                (#"{"options":["hidden_previews_show_body"]}"#, "options[0]"),
                (#"{"identifier":"OTHER"}"#, "identifier"),
            ] {
                let bad = try await client.execute(
                    uri: "\(base)/MESSAGE", method: .put, headers: Self.admin, body: jsonBody(payload))
                #expect(bad.status == .badRequest, "\(payload)")
                #expect(
                    bad.json["error"]?["message"]?.stringValue?.hasPrefix("`\(field)`") == true,
                    "\(payload): \(bad.text)")
            }

            let list = try await client.execute(uri: base, method: .get, headers: Self.admin)
            #expect(list.json["categories"]?.arrayValue?.count == 1)
            #expect(try await client.execute(uri: base, method: .get, headers: bearer("user")).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/v1/admin/apps/com.nope/categories", method: .get, headers: Self.admin)
                    .errorCode == "app_not_found")
            #expect(
                try await client.execute(uri: "\(base)/MESSAGE", method: .delete, headers: Self.admin).status
                    == .noContent)
            #expect(
                try await client.execute(uri: "\(base)/MESSAGE", method: .delete, headers: Self.admin).errorCode
                    == "category_not_found")
        }
    }

    @Test("icons: an image sniffed from its bytes, served to a signed-in user, refused when not an image")
    func icons() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        let base = "/v1/admin/apps/\(TestHarness.bundleID)/icon"
        // A 1 × 1 PNG.
        let png = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
        try await harness.makeApplication().test(.router) { client in
            // Until one is set: the generated default, the app's initial.
            let generated = try await client.execute(
                uri: "/v1/apps/\(TestHarness.bundleID)/icon", method: .get, headers: bearer(token))
            #expect(generated.status == .ok)
            #expect(generated.headers[.contentType] == "image/svg+xml")
            let svg = String(buffer: generated.body)
            #expect(svg.hasPrefix("<svg") && svg.contains(">A</text>") && svg.contains("hsl("))
            let unknownApp = try await client.execute(
                uri: "/v1/apps/com.example.unknown/icon", method: .get, headers: bearer(token))
            #expect(unknownApp.status == .notFound)

            let put = try await client.execute(
                uri: base, method: .put, headers: Self.admin, body: ByteBuffer(bytes: png))
            #expect(put.status == .ok)
            #expect(put.json["icon"]?["type"] == .string("image/png"))
            #expect(put.json["icon"]?["size"] == .number(Double(png.count)))

            for uri in [
                "/v1/apps/\(TestHarness.bundleID)/icon?access_token=\(token)", "/v1/apps/\(TestHarness.bundleID)/icon",
            ] {
                let served = try await client.execute(
                    uri: uri, method: .get, headers: uri.contains("access_token") ? [:] : bearer(token))
                #expect(served.status == .ok)
                #expect(served.headers[.contentType] == "image/png")
                #expect(Data(served.body.readableBytesView) == png)
            }
            // Only a signed-in user reads it; only the admin sets it.
            let anonymous = try await client.execute(uri: "/v1/apps/\(TestHarness.bundleID)/icon", method: .get)
            #expect(anonymous.status == .unauthorized)
            let byUser = try await client.execute(
                uri: base, method: .put, headers: bearer(token), body: ByteBuffer(bytes: png))
            #expect(byUser.status == .unauthorized)

            // Not an image (or not one an icon may be): refused, the icon kept.
            for body in [Data("<svg/>".utf8), Data(), Data("RIFF\0\0\0\0WAVEfmt ".utf8)] {
                let bad = try await client.execute(
                    uri: base, method: .put, headers: Self.admin, body: ByteBuffer(bytes: body))
                #expect(bad.status == .badRequest)
                #expect(bad.json["error"]?["code"] == .string("invalid_icon"))
            }
            let tooLarge = try await client.execute(
                uri: base, method: .put, headers: Self.admin,
                body: ByteBuffer(bytes: png + Data(count: 1024 * 1024)))
            #expect(tooLarge.status == .contentTooLarge)
            #expect(try await harness.store.appIcon(bundleID: TestHarness.bundleID)?.data == png)

            let unknown = try await client.execute(
                uri: "/v1/admin/apps/com.example.unknown/icon", method: .put, headers: Self.admin,
                body: ByteBuffer(bytes: png))
            #expect(unknown.status == .notFound)

            let deleted = try await client.execute(uri: base, method: .delete, headers: Self.admin)
            #expect(deleted.status == .noContent)
            let again = try await client.execute(uri: base, method: .delete, headers: Self.admin)
            #expect(again.status == .notFound)
            #expect(try await harness.store.appIcon(bundleID: TestHarness.bundleID) == nil)
            let defaultAgain = try await client.execute(
                uri: "/v1/apps/\(TestHarness.bundleID)/icon", method: .get, headers: bearer(token))
            #expect(defaultAgain.headers[.contentType] == "image/svg+xml")
        }
    }

    @Test("localization files: parsed before they are stored, the parser's message on a bad file, listed")
    func localizations() async throws {
        let harness = try TestHarness()
        _ = try await harness.makeDevice()
        let base = "/v1/admin/apps/\(TestHarness.bundleID)/localizations"
        try await harness.makeApplication().test(.router) { client in
            let strings = #""GREETING" = "Hello %@";"# + "\n"
            let created = try await client.execute(
                uri: "\(base)/en/Localizable.strings", method: .put, headers: Self.admin,
                body: ByteBuffer(string: strings))
            #expect(created.status == .created)
            #expect(created.json["kind"] == .string("strings"))
            #expect(created.json["size"] == .number(Double(strings.utf8.count)))
            let again = try await client.execute(
                uri: "\(base)/en/Localizable.strings", method: .put, headers: Self.admin,
                body: ByteBuffer(string: strings))
            #expect(again.status == .ok)

            let catalog =
                #"{"sourceLanguage":"en","strings":{"GREETING":{"localizations":{"fr":{"stringUnit":{"state":"translated","value":"Bonjour %@"}}}}},"version":"1.0"}"#
            let uploaded = try await client.execute(
                uri: "\(base)/en/Localizable.xcstrings", method: .put, headers: Self.admin,
                body: ByteBuffer(string: catalog))
            #expect(uploaded.status == .created, "\(uploaded.text)")

            let bad = try await client.execute(
                uri: "\(base)/fr/Localizable.strings", method: .put, headers: Self.admin,
                body: ByteBuffer(string: #""GREETING" = "Bonjour"#))
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_localization_file")
            #expect(bad.json["error"]?["message"]?.stringValue?.contains("invalid .strings file") == true)
            let badPlist = try await client.execute(
                uri: "\(base)/fr/Localizable.stringsdict", method: .put, headers: Self.admin,
                body: ByteBuffer(string: "<plist><dict>"))
            #expect(badPlist.errorCode == "invalid_localization_file")
            let badName = try await client.execute(
                uri: "\(base)/fr/Localizable.txt", method: .put, headers: Self.admin, body: ByteBuffer(string: "x"))
            #expect(badName.errorCode == "invalid_parameter")
            let badLocale = try await client.execute(
                uri: "\(base)/not%20a%20locale/Localizable.strings", method: .put, headers: Self.admin,
                body: ByteBuffer(string: strings))
            #expect(badLocale.errorCode == "invalid_parameter")
            let empty = try await client.execute(
                uri: "\(base)/fr/Localizable.strings", method: .put, headers: Self.admin)
            #expect(empty.errorCode == "invalid_localization_file")

            let list = try await client.execute(uri: base, method: .get, headers: Self.admin)
            #expect(
                list.json["files"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                    "Localizable.strings", "Localizable.xcstrings",
                ])
            #expect(
                try await client.execute(uri: "\(base)/en/Localizable.strings", method: .delete, headers: Self.admin)
                    .status == .noContent)
            #expect(
                try await client.execute(
                    uri: "/v1/admin/apps/com.nope/localizations/en/Localizable.strings", method: .put,
                    headers: Self.admin, body: ByteBuffer(string: strings)
                ).errorCode == "app_not_found")
        }
    }

    @Test("admin lists of apps, users (no tokens) and devices (of one user)", arguments: StoreKind.allCases)
    func adminLists(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, alices) = try await harness.makeDevice(userName: "Alice")
        _ = try await harness.makeDevice(userName: "Bob", makeApp: false)
        try await harness.makeApplication().test(.router) { client in
            let apps = try await client.execute(uri: "/v1/admin/apps", method: .get, headers: Self.admin)
            #expect(apps.json["apps"]?[0]?["bundle_id"] == .string(TestHarness.bundleID))
            let users = try await client.execute(uri: "/v1/admin/users", method: .get, headers: Self.admin)
            #expect(users.json["users"]?.arrayValue?.count == 2)
            #expect(users.json["users"]?[0]?["token"] == nil)
            let devices = try await client.execute(uri: "/v1/admin/devices", method: .get, headers: Self.admin)
            #expect(devices.json["devices"]?.arrayValue?.count == 2)
            let mine = try await client.execute(
                uri: "/v1/admin/devices?user_id=\(alices.userID)", method: .get, headers: Self.admin)
            #expect(mine.json["devices"]?.arrayValue?.compactMap { $0["device_id"]?.stringValue } == [alices.deviceID])
            #expect(try await client.execute(uri: "/v1/admin/users", method: .get).status == .unauthorized)
        }
    }

    @Test(
        "decision: the stored decision's reasons as sentences, naming the Focus it records; another user's notification is 404"
    )
    func decision() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice(userName: "Alice")
        let (bobsToken, _) = try await harness.makeDevice(userName: "Bob", makeApp: false)
        try await harness.push(device.deviceID, id: "n1")
        try await harness.push(device.deviceID, id: "n2")
        let decision = Decision(
            disposition: .heldForFocus, effectiveLevel: .active, focusID: "work", reasons: [.focusHeld]
        )
        _ = try await harness.store.updateDecision(
            deviceID: device.deviceID, id: "n1",
            decision: DecisionRecord(
                decision: decision,
                context: .init(focus: .init(id: "work", name: "Work", kind: .work), audioRoute: .none)),
            releasedAt: nil, at: harness.clock.now()
        )
        try await harness.makeApplication().test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/notifications/n1/decision", method: .get, headers: bearer(token))
            #expect(response.status == .ok)
            #expect(response.json["disposition"] == .string("heldForFocus"))
            #expect(response.json["decision"]?["focus_id"] == .string("work"))
            #expect(response.json["reasons"]?[0]?["code"] == .string(ReasonCode.focusHeld.rawValue))
            #expect(
                response.json["reasons"]?[0]?["sentence"]
                    == .string("Held: the Work Focus is on and \(TestHarness.bundleID) is not an allowed app."))

            // The decision's `context` names the Focus that was on, as it was named then.
            let gym = DecisionRecord.FocusRef(id: "gym", name: "Gym", kind: .custom)
            _ = try await harness.store.updateDecision(
                deviceID: device.deviceID, id: "n1",
                decision: DecisionRecord(decision: decision, context: .init(focus: gym, audioRoute: .none)),
                releasedAt: nil, at: harness.clock.now()
            )
            let named = try await client.execute(
                uri: "/v1/notifications/N1/decision", method: .get, headers: bearer(token))
            #expect(
                named.json["reasons"]?[0]?["sentence"]
                    == .string("Held: the Gym Focus is on and \(TestHarness.bundleID) is not an allowed app."))

            let undecided = try await client.execute(
                uri: "/v1/notifications/n2/decision", method: .get, headers: bearer(token))
            #expect(undecided.json["decided"] == .bool(false))
            #expect(undecided.json["reasons"] == .array([]))

            let other = try await client.execute(
                uri: "/v1/notifications/n1/decision", method: .get, headers: bearer(bobsToken))
            let none = try await client.execute(
                uri: "/v1/notifications/nope/decision", method: .get, headers: bearer(bobsToken))
            #expect(other.status == .notFound)
            #expect(other.errorCode == "notification_not_found")
            #expect(other.text == none.text)
            #expect(
                try await client.execute(
                    uri: "/v1/notifications/n1/decision?device_id=\(device.deviceID)", method: .get,
                    headers: bearer(bobsToken)
                ).errorCode == "device_not_found")
            #expect(
                try await client.execute(uri: "/v1/notifications/n1/decision", method: .get).status == .unauthorized)
        }
    }
}
