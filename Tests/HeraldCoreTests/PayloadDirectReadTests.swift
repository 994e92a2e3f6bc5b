import Foundation
import Testing

@testable import HeraldCore

/// `NotificationPayload(json:)` reads `aps` and its `alert` straight from the bytes
/// (`NotificationPayload.read`); the payload it makes must be the one the parsed tree makes
/// (`init(jsonValue:)`), and what one refuses the other refuses.
@Suite("A payload read straight from its bytes")
struct PayloadDirectReadTests {
    /// Both readings of `text`: the payload (or nil when refused), and whether the direct one was taken.
    func both(_ text: String, requiresAPS: Bool = false) -> (json: NotificationPayload?, tree: NotificationPayload?) {
        let bytes = Array(text.utf8)
        let json = try? NotificationPayload(json: bytes, requiresAPS: requiresAPS)
        let tree = (try? JSONParser.parse(bytes)).flatMap {
            try? NotificationPayload(jsonValue: $0, requiresAPS: requiresAPS)
        }
        return (json, tree)
    }

    @Test("a push's payload is read directly, into the value the tree gives")
    func directly() throws {
        let text = #"""
            {"aps":{"alert":{"title":"Herald","subtitle":"Benchmark","body":"A push","title-loc-args":["a",1],
             "action-loc-key":7},"badge":"3","sound":{"name":"ping","critical":1,"volume":0.5},"thread-id":"t",
             "category":"message","content-available":1,"mutable-content":true,"target-content-id":"x",
             "interruption-level":"time-sensitive","relevance-score":0.25,"filter-criteria":"work",
             "content-state":{"n":1},"unknown":[1,{"deep":null}]},"bench":"x","n":{"a":[true,false]}}
            """#
        let direct = try #require(NotificationPayload.read(Array(text.utf8), requiresAPS: true))
        let (json, tree) = both(text, requiresAPS: true)
        #expect(direct == tree && json == tree)
        #expect(direct.aps.alert?.title == "Herald" && direct.aps.alert?.titleLocArgs == ["a", "1"])
        #expect(direct.aps.alert?.actionLocKey == "7" && direct.aps.badge == 3 && direct.aps.sound?.isCritical == true)
        #expect(direct.aps.interruptionLevel == .timeSensitive && direct.aps.liveActivity["content-state"] != nil)
        #expect(direct.custom["bench"] == .string("x") && direct.custom["aps"] == nil)
        #expect(
            NotificationPayload.read(Array(#"{"aps":{"alert":"hi"}}"#.utf8), requiresAPS: true)?.aps.alert?.body == "hi"
        )
    }

    @Test("a key given twice: the last counts, as in the tree, also when an earlier value was invalid")
    func repeatedKeys() throws {
        for text in [
            #"{"aps":{"badge":1,"badge":2}}"#, #"{"aps":{"badge":"x","badge":2}}"#, #"{"aps":{"badge":2,"badge":"x"}}"#,
            #"{"aps":{"alert":{"title":"a"},"alert":"b"}}"#, #"{"aps":{"alert":"b","alert":{"title":"a"}}}"#,
            #"{"aps":{"alert":{"title":"a","title":"b"}}}"#, #"{"aps":5,"aps":{"alert":"b"}}"#,
            #"{"aps":{"alert":"b"},"aps":5}"#, #"{"aps":{"alert":"a"},"aps":{"badge":1}}"#, #"{"k":1,"k":{"x":2}}"#,
            #"{"\u0061ps":{"alert":"escaped key"}}"#,
        ] {
            let (json, tree) = both(text)
            #expect(json == tree, "\(text)")
        }
        #expect(both(#"{"aps":{"badge":"x","badge":2}}"#).json?.aps.badge == 2)
        #expect(both(#"{"aps":{"badge":2,"badge":"x"}}"#).json == nil)
        #expect(both(#"{"aps":{"alert":"a"},"aps":{"badge":1}}"#).json?.aps.alert == nil)
    }

    @Test("what the tree refuses is refused, with the tree's reason")
    func refusals() {
        for text in [
            "", " ", "[]", "null", #"{"aps":[]}"#, #"{"aps":{"alert":3}}"#, #"{"aps":{"sound":1}}"#, #"{"aps":{}} x"#,
            #"{"aps":{"badge":-1}}"#, #"{"aps":{"alert":{"title":{}}}}"#, #"{"aps":{"alert":{"loc-args":"x"}}}"#,
            #"{"aps":{"badge":1,}}"#, #"{"aps" {}}"#, #"{"aps":{"thread-id":"\ud800"}}"#,
            String(repeating: #"{"a":"#, count: 70) + "1" + String(repeating: "}", count: 70),
        ] {
            let (json, tree) = both(text)
            #expect(json == nil && tree == nil, "\(text)")
        }
        #expect(both(#"{"x":1}"#, requiresAPS: true).json == nil && both(#"{"x":1}"#).json?.custom["x"] == .number(1))
        #expect(throws: PayloadError("`badge` must be a non-negative number.")) {
            try NotificationPayload(json: Array(#"{"aps":{"badge":-1}}"#.utf8))
        }
        do {
            _ = try NotificationPayload(json: Array(#"{"aps":{"badge"}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.message == "The payload is not valid JSON: Expected ':' at byte 15.")
        }
    }

    @Test("random payloads: the same value as the tree's, or refused by both")
    func randomPayloads() {
        var generator = SplitMix64(seed: 0x4845_5241_4C44)  // the same inputs on every run
        let keys = [
            "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
            "interruption-level", "relevance-score", "filter-criteria", "target-content-id", "content-state", "other",
        ]
        let alertKeys = ["title", "subtitle", "body", "loc-key", "loc-args", "title-loc-args", "action-loc-key", "x"]
        let values = [
            #""text""#, "1", "0.5", "-1", "true", "null", "[]", #"["a",2]"#, "{}", #"{"name":"n","critical":1}"#,
            #""\u00e9\n""#, "1e3", #"{"volume":2}"#, #""active""#,
        ]
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &generator)] }
        var same = 0
        for _ in 0..<3000 {
            var members: [String] = []
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let key = pick(keys)
                if key == "alert", Bool.random(using: &generator) {
                    let fields = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                        "\"\(pick(alertKeys))\":\(pick(values))"
                    }
                    members.append("\"alert\":{\(fields.joined(separator: ","))}")
                } else {
                    members.append("\"\(key)\":\(pick(values))")
                }
            }
            var root = ["\"aps\":{\(members.joined(separator: ","))}"]
            if Bool.random(using: &generator) { root.append("\"custom\":\(pick(values))") }
            if Int.random(in: 0..<10, using: &generator) == 0 { root.append("\"aps\":\(pick(values))") }
            root.shuffle(using: &generator)
            let text = "{" + root.joined(separator: ",") + "}"
            let requiresAPS = Bool.random(using: &generator)
            let (json, tree) = both(text, requiresAPS: requiresAPS)
            #expect(json == tree, "\(text)")
            if json != nil { same += 1 }
        }
        #expect(same > 500)  // the inputs are mostly valid payloads, not only refusals
    }
}
