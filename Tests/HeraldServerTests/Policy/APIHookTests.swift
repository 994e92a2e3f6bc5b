import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

@Suite("The JSON API's policy hooks drive the server's policy (real HTTP API, test clock)")
struct APIHookTests {
    @Test(
        "a manual Focus turned on and off over the API holds a push and then releases it; the decision endpoint explains both"
    )
    func manualFocusOverTheAPI() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)

        // Given the Work Focus turned on over the API
        _ = try await api.focusOn(id: "work")
        _ = try await herald.heldReevaluated(userID)

        // When a push arrives, it is held, and the decision endpoint says why
        let client = try herald.apnsClient()
        let held = try await herald.push(#"{"alert":{"body":"Standup moved"}}"#, client: client)
        try await client.shutdown()
        #expect(held.disposition == .heldForFocus)
        let heldJSON = try JSONDecoder().decode(JSONValue.self, from: try await api.decision(notificationID: held.id))
        let heldSentences = jsonItems(json(heldJSON, "reasons")).compactMap { json($0, "sentence")?.stringValue }
        #expect(heldSentences.contains("Held: the Work Focus is on and Demo is not an allowed app."))

        // When the Focus is turned off over the API, the push is released quietly (listed, no banner, no sound)
        _ = try await api.focusOff(id: "work")
        let changes = try await herald.heldReevaluated(userID)
        #expect(changes.first { $0.id == held.id }?.disposition == .listedSilently)
        let releasedJSON = try JSONDecoder().decode(
            JSONValue.self, from: try await api.decision(notificationID: held.id))
        #expect(json(releasedJSON, "disposition")?.stringValue == "listedSilently")
        #expect(json(releasedJSON, "decision", "banner")?.stringValue == "none")
        #expect(json(releasedJSON, "decision", "sound", "plays") == .bool(false))
        let lines = jsonItems(json(releasedJSON, "reasons")).map {
            (json($0, "code")?.stringValue, json($0, "sentence")?.stringValue)
        }
        #expect(
            lines.contains {
                $0 == "released-focus-ended"
                    && $1
                        == "Released quietly when the Work Focus ended or changed: listed without a banner or sound, as what a Focus held does not alert again."
            })
        try await api.shutdown()
        try await herald.stop()
    }
}
