import Foundation
import HeraldAPI
import Testing

/// The JSON request bodies as the routes read them (`RequestBodyParsing`).
@Suite struct RequestBodyTests {
    /// Found by the api-request-body fuzz target: with invalid UTF-8 in two members, the answer was
    /// `invalid_json` or `invalid_field` (`show_previews` must be an array) depending on the order in
    /// which Foundation's decoder visited the object's members, which changes from run to run.
    @Test func aMalformedBodyGetsTheSameErrorEveryTime() throws {
        func bytes(_ parts: [UInt8]...) -> Data { Data(parts.joined()) }
        let preferences = bytes(
            Array(#"{"show_previews":""#.utf8), [0xFF, 0xFF], Array(#"","announce":{"a"#.utf8), [0xAA],
            Array(#"":1}}"#.utf8))
        let deviceState = bytes(
            Array(#"{"locale":""#.utf8), [0xC3], Array(#"","time_zone":""#.utf8), [0xFF], Array(#""}"#.utf8))
        for (kind, body) in [("preferences", preferences), ("device-state", deviceState)] {
            for _ in 0..<20 {
                #expect(throws: APIError.invalidJSON("The request body is not valid JSON.")) {
                    try RequestBodyParsing.parse(kind: kind, body: body)
                }
            }
        }
    }

    @Test func bodiesThatAreNotObjectsOrNotJSONAreInvalidJSON() throws {
        for body in ["[1]", "\"x\"", "{", "{\"a\":1e999}", ""] {
            #expect(throws: APIError.self, "\(body)") {
                try RequestBodyParsing.parse(kind: "preferences", body: Data(body.utf8))
            }
        }
        // `POST …/focus/{id}/on` takes no body at all.
        _ = try RequestBodyParsing.parse(kind: "focus-on", body: Data())
    }
}
