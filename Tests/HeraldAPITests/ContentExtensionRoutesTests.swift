import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Content extensions: an app's web extension for its categories, set by the admin, read by the page")
struct ContentExtensionRoutesTests {
    static let admin = bearer(TestHarness.adminToken)
    static let body = #"""
        {"categories":["invite","event"],"html":"<!doctype html><p id=\"x\">Invite</p><script>1</script>",
         "initial_content_size_ratio":0.5,"default_content_hidden":true,"user_interaction_enabled":true,
         "media_play_pause_button":"overlay"}
        """#

    @Test("set with Apple's options (defaults filled in), read by the admin and by a signed-in user, removed")
    func setReadRemove() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        let base = "/v1/admin/apps/\(TestHarness.bundleID)/content-extension"
        try await harness.makeApplication().test(.router) { client in
            let missing = try await client.execute(
                uri: "/v1/apps/\(TestHarness.bundleID)/content-extension", method: .get, headers: bearer(token))
            #expect(missing.status == .notFound)
            #expect(missing.json["error"]?["code"] == .string("content_extension_not_found"))

            let put = try await client.execute(uri: base, method: .put, headers: Self.admin, body: jsonBody(Self.body))
            #expect(put.status == .ok)
            #expect(put.json["categories"] == .array([.string("invite"), .string("event")]))
            #expect(put.json["initial_content_size_ratio"] == .number(0.5))
            #expect(put.json["default_content_hidden"] == .bool(true))
            #expect(put.json["overrides_default_title"] == .bool(false))
            #expect(put.json["user_interaction_enabled"] == .bool(true))
            #expect(put.json["media_play_pause_button"] == .string("overlay"))
            #expect(put.json["html"]?.stringValue?.contains("<p id=\"x\">Invite</p>") == true)

            for (uri, headers) in [
                (base, Self.admin), ("/v1/apps/\(TestHarness.bundleID)/content-extension", bearer(token)),
                ("/v1/apps/\(TestHarness.bundleID)/content-extension?access_token=\(token)", HTTPFields()),
            ] {
                let read = try await client.execute(uri: uri, method: .get, headers: headers)
                #expect(read.status == .ok, "\(uri)")
                // A signed-in user also gets the frame's address (the admin, who manages it, does not).
                guard case .object(var object) = read.json else { continue }
                #expect((object.removeValue(forKey: "frame_url") != nil) == !uri.hasPrefix("/v1/admin"), "\(uri)")
                #expect(JSONValue.object(object) == put.json, "\(uri)")
            }
            let anonymous = try await client.execute(
                uri: "/v1/apps/\(TestHarness.bundleID)/content-extension", method: .get)
            #expect(anonymous.status == .unauthorized)

            // The list: each app's options and frame, not its HTML; only for a signed-in user.
            let list = try await client.execute(uri: "/v1/content-extensions", method: .get, headers: bearer(token))
            #expect(list.status == .ok)
            guard case .array(let listed)? = list.json["content_extensions"], listed.count == 1,
                case .object(var entry) = listed[0], case .object(var expected) = put.json
            else {
                Issue.record("the list: \(list.json)")
                return
            }
            #expect(
                entry.removeValue(forKey: "frame_url")?.stringValue?.hasPrefix("/v1/content-extension-frames/") == true)
            expected["html"] = nil
            #expect(entry == expected)
            let listAnonymous = try await client.execute(uri: "/v1/content-extensions", method: .get)
            #expect(listAnonymous.status == .unauthorized)
            let byUser = try await client.execute(
                uri: base, method: .put, headers: bearer(token), body: jsonBody(Self.body))
            #expect(byUser.status == .unauthorized)

            // A minimal one: the defaults.
            let minimal = try await client.execute(
                uri: base, method: .put, headers: Self.admin,
                body: jsonBody(#"{"categories":["a"],"html":"<p>A</p>","initial_content_size_ratio":1}"#))
            #expect(minimal.json["media_play_pause_button"] == .string("none"))
            #expect(minimal.json["default_content_hidden"] == .bool(false))

            let deleted = try await client.execute(uri: base, method: .delete, headers: Self.admin)
            #expect(deleted.status == .noContent)
            let emptyList = try await client.execute(
                uri: "/v1/content-extensions", method: .get, headers: bearer(token))
            #expect(emptyList.json["content_extensions"] == .array([]))
            let again = try await client.execute(uri: base, method: .delete, headers: Self.admin)
            #expect(again.status == .notFound)
            let unknownApp = try await client.execute(
                uri: "/v1/admin/apps/com.example.unknown/content-extension", method: .put, headers: Self.admin,
                body: jsonBody(Self.body))
            #expect(unknownApp.status == .notFound)
        }
    }

    @Test("a bad body is refused naming the field, and changes nothing")
    func refusals() async throws {
        let harness = try TestHarness()
        _ = try await harness.makeDevice()
        let base = "/v1/admin/apps/\(TestHarness.bundleID)/content-extension"
        try await harness.makeApplication().test(.router) { client in
            for (body, field) in [
                (#"{"html":"<p/>","initial_content_size_ratio":1}"#, "categories"),
                (#"{"categories":[],"html":"<p/>","initial_content_size_ratio":1}"#, "categories"),
                (#"{"categories":["a","a"],"html":"<p/>","initial_content_size_ratio":1}"#, "categories"),
                (#"{"categories":[""],"html":"<p/>","initial_content_size_ratio":1}"#, "categories[0]"),
                (#"{"categories":["a"],"initial_content_size_ratio":1}"#, "html"),
                (#"{"categories":["a"],"html":"","initial_content_size_ratio":1}"#, "html"),
                (#"{"categories":["a"],"html":"<p/>"}"#, "initial_content_size_ratio"),
                (#"{"categories":["a"],"html":"<p/>","initial_content_size_ratio":0}"#, "initial_content_size_ratio"),
                (#"{"categories":["a"],"html":"<p/>","initial_content_size_ratio":"1"}"#, "initial_content_size_ratio"),
                (
                    #"{"categories":["a"],"html":"<p/>","initial_content_size_ratio":1,"media_play_pause_button":"big"}"#,
                    "media_play_pause_button"
                ),
                (#"{"categories":["a"],"html":"<p/>","initial_content_size_ratio":1,"sticky":true}"#, "sticky"),
            ] {
                let refused = try await client.execute(
                    uri: base, method: .put, headers: Self.admin, body: jsonBody(body))
                #expect(refused.status == .badRequest, "\(body)")
                #expect(
                    refused.json["error"]?["message"]?.stringValue?.contains("`\(field)`") == true,
                    "\(body): \(refused.json)")
            }
            #expect(try await harness.store.contentExtension(bundleID: TestHarness.bundleID) == nil)
        }
    }

    @Test("the frame: the app's HTML after the bridge, sandboxed by its own policy, for a ticket of 10 minutes only")
    func frame() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        try await harness.makeApplication().test(.router) { client in
            _ = try await client.execute(
                uri: "/v1/admin/apps/\(TestHarness.bundleID)/content-extension", method: .put, headers: Self.admin,
                body: jsonBody(Self.body))
            let read = try await client.execute(
                uri: "/v1/apps/\(TestHarness.bundleID)/content-extension", method: .get, headers: bearer(token))
            let frameURL = try #require(read.json["frame_url"]?.stringValue)
            #expect(frameURL.hasPrefix("/v1/content-extension-frames/\(TestHarness.bundleID)?expires="))
            #expect(!frameURL.contains(token))

            let frame = try await client.execute(uri: frameURL, method: .get)
            #expect(frame.status == .ok)
            #expect(frame.headers[.contentType] == "text/html; charset=utf-8")
            let policy = frame.headers[.contentSecurityPolicy] ?? ""
            #expect(policy.hasPrefix("sandbox allow-scripts;") && policy.contains("default-src 'none'"))
            let document = String(buffer: frame.body)
            // The doctype stays first; the bridge comes before the app's own script.
            #expect(document.hasPrefix("<!doctype html><script>(() => {"))
            let bridge = try #require(document.range(of: "window.herald = {"))
            let appScript = try #require(document.range(of: "<p id=\"x\">Invite</p><script>1</script>"))
            #expect(bridge.upperBound < appScript.lowerBound)

            // A changed signature, another app's ticket, an expired or far-future one: refused.
            let tampered = frameURL.dropLast() + (frameURL.hasSuffix("A") ? "B" : "A")
            let expires = Int64(harness.clock.now().timeIntervalSince1970)
            for uri in [
                String(tampered), frameURL.replacingOccurrences(of: TestHarness.bundleID, with: "com.example.other"),
                "/v1/content-extension-frames/\(TestHarness.bundleID)",
                "/v1/content-extension-frames/\(TestHarness.bundleID)?expires=\(expires - 1)&signature=x",
                "/v1/content-extension-frames/\(TestHarness.bundleID)?expires=\(expires + 86_400)&signature=x",
            ] {
                let refused = try await client.execute(uri: uri, method: .get)
                #expect(refused.status == .forbidden, "\(uri)")
                #expect(refused.json["error"]?["code"] == .string("invalid_frame_ticket"))
            }
            // Ten minutes later the address has expired.
            harness.clock.advance(by: 601)
            let expired = try await client.execute(uri: frameURL, method: .get)
            #expect(expired.status == .forbidden)
        }
    }
}
