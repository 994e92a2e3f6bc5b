import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Donated interactions over the app API: what a donation must hold (each refusal naming its
/// field), replacement by identifier, removal by identifiers, group or all — and an app reaches only
/// its own donations.
@Suite("Interaction routes")
struct InteractionRoutesTests {
    static let message =
        #"{"identifier":"i1","group_identifier":"g1","direction":"incoming","date_interval":{"start":"2026-11-27T08:00:00Z","end":"2026-11-27T08:00:05Z"},"intent":{"kind":"message","sender":{"handle":"ana@example.com","handle_type":"email","display_name":"Ana"},"recipients":[{"display_name":"Me","is_me":true}],"conversation_identifier":"c1"}}"#

    @Test("donate, list, replace and remove; refusals name their field; apps are kept apart")
    func donations() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await AppRoutesTests.credential(harness)
        let otherApp = "com.example.second"
        _ = try await harness.registry.createApp(
            bundleID: otherApp, teamID: TestHarness.teamID, name: "Second", entitlements: Entitlements())
        let other = try await harness.registry.createAppCredential(deviceID: device.deviceID, bundleID: otherApp)
        try await harness.makeApplication().test(.router) { client in
            func post(_ path: String, _ body: String) async throws -> TestResponse {
                try await client.execute(uri: path, method: .post, headers: bearer(credential), body: jsonBody(body))
            }
            func list(_ token: String? = nil) async throws -> [JSONValue] {
                let listed = try await client.execute(
                    uri: "/v1/app/interactions", method: .get, headers: bearer(token ?? credential))
                guard case .array(let items)? = listed.json["interactions"] else { return [] }
                return items
            }
            for (body, field) in [
                (#"{"intent":{"kind":"call"}}"#, "identifier"),
                (#"{"identifier":"","intent":{"kind":"call"}}"#, "identifier"),
                (#"{"identifier":"x"}"#, "intent"),
                (#"{"identifier":"x","intent":{"kind":"fax"}}"#, "intent.kind"),
                (#"{"identifier":"x","direction":"sideways","intent":{"kind":"call"}}"#, "direction"),
                (#"{"identifier":"x","intent":{"kind":"call","sender":{}}}"#, "intent.sender"),
                (
                    #"{"identifier":"x","intent":{"kind":"call","contacts":[{"handle_type":"fax"}]}}"#,
                    "intent.contacts[0].handle_type"
                ),
                (
                    #"{"identifier":"x","intent":{"kind":"message","recipients":[{"nick":"a"}]}}"#,
                    "intent.recipients[0].nick"
                ),
                (#"{"identifier":"x","intent":{"kind":"message","sender":{"is_me":"yes"}}}"#, "intent.sender.is_me"),
                (
                    #"{"identifier":"x","date_interval":{"start":"soon","end":"later"},"intent":{"kind":"call"}}"#,
                    "date_interval.start"
                ),
                (
                    #"{"identifier":"x","date_interval":{"start":"2026-11-27T09:00:00Z","end":"2026-11-27T08:00:00Z"},"intent":{"kind":"call"}}"#,
                    "date_interval.end"
                ),
            ] {
                let refused = try await post("/v1/app/interactions", body)
                #expect(refused.status == .badRequest, "\(body)")
                // The message starts with the field it names.
                #expect(
                    refused.json["error"]?["message"]?.stringValue?.hasPrefix("`\(field)`") == true,
                    "\(body) → \(refused.json)")
            }
            #expect(try await list().isEmpty)

            let donated = try await post("/v1/app/interactions", Self.message)
            #expect(donated.status == .created)
            #expect(donated.json["interaction"]?["direction"] == .string("incoming"))
            #expect(donated.json["interaction"]?["intent"]?["sender"]?["handle"] == .string("ana@example.com"))
            _ = try await post(
                "/v1/app/interactions",
                #"{"identifier":"i2","direction":"outgoing","intent":{"kind":"call","contacts":[{"handle":"+1 555 0100","handle_type":"phone"}]}}"#
            )
            _ = try await post(
                "/v1/app/interactions", #"{"identifier":"i3","group_identifier":"g1","intent":{"kind":"message"}}"#)
            // Again with the same identifier: replaced, not added.
            _ = try await post(
                "/v1/app/interactions", Self.message.replacingOccurrences(of: "incoming", with: "outgoing"))
            let mine = try await list()
            // (The harness's clock stands still: donated at one time, they list in the order first donated.)
            #expect(mine.map { $0["identifier"] } == [.string("i1"), .string("i2"), .string("i3")])
            #expect(mine.first?["direction"] == .string("outgoing"))
            // Another app sees none of them and removes none.
            #expect(try await list(other.credential).isEmpty)
            let foreign = try await client.execute(
                uri: "/v1/app/interactions", method: .delete, headers: bearer(other.credential))
            #expect(foreign.json["removed"] == .number(0))

            let both = try await post("/v1/app/interactions/remove", #"{"identifiers":["i2"],"group_identifier":"g1"}"#)
            #expect(both.status == .badRequest)
            #expect(
                try await post("/v1/app/interactions/remove", #"{"group_identifier":"g1"}"#).json["removed"]
                    == .number(2))
            #expect(try await list().map { $0["identifier"] } == [.string("i2")])
            #expect(
                try await post("/v1/app/interactions/remove", #"{"identifiers":["i2","nope"]}"#).json["removed"]
                    == .number(1))
            let anonymous = try await client.execute(uri: "/v1/app/interactions", method: .get)
            #expect(anonymous.status == .unauthorized)
        }
    }
}
