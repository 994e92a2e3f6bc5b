import Foundation
import HeraldCore
import Testing

@Suite("Payload model")
struct PayloadTests {
    func parse(_ json: String) throws -> NotificationPayload {
        try NotificationPayload(json: Array(json.utf8))
    }

    @Test("alert as a string is the body")
    func alertString() throws {
        #expect(try parse(#"{"aps":{"alert":"Hi"}}"#).aps.alert?.body == "Hi")
    }

    @Test("alert dictionary with localization keys")
    func alertDictionary() throws {
        let payload = try parse(
            #"""
            {"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L","title-loc-key":"TK",
            "title-loc-args":["a"],"subtitle-loc-key":"SK","subtitle-loc-args":["b"],"loc-key":"K","loc-args":["c",2],
            "action-loc-key":"V"}}}
            """#)
        let alert = try #require(payload.aps.alert)
        #expect(alert.title == "T" && alert.subtitle == "S" && alert.body == "B" && alert.launchImage == "L")
        #expect(alert.titleLocKey == "TK" && alert.titleLocArgs == ["a"] && alert.subtitleLocKey == "SK")
        #expect(alert.subtitleLocArgs == ["b"] && alert.locKey == "K" && alert.locArgs == ["c", "2"])
        #expect(alert.actionLocKey == "V")
    }

    @Test("numbers arrive as doubles, strings or booleans")
    func lenientNumbers() throws {
        let payload = try parse(
            #"{"aps":{"badge":"1","mutable-content":1.0,"content-available":true,"relevance-score":"0.5"}}"#)
        #expect(payload.aps.badge == 1)
        #expect(payload.aps.mutableContent)
        #expect(payload.aps.contentAvailable)
        #expect(payload.aps.relevanceScore == 0.5)
    }

    @Test("sound as a name or a critical dictionary")
    func sounds() throws {
        #expect(try parse(#"{"aps":{"sound":"default"}}"#).aps.sound == Sound(name: "default"))
        let critical = try parse(#"{"aps":{"sound":{"critical":1,"name":"alarm.caf","volume":0.8}}}"#).aps.sound
        #expect(critical == Sound(name: "alarm.caf", isCritical: true, volume: 0.8))
        #expect(throws: PayloadError.self) { try parse(#"{"aps":{"sound":{"volume":2}}}"#) }
    }

    @Test("levels, thread, category and custom keys are kept")
    func otherKeys() throws {
        let payload = try parse(
            #"""
            {"aps":{"interruption-level":"time-sensitive","thread-id":"t1","category":"MSG","target-content-id":"x",
            "filter-criteria":"work","unknown-aps-key":5,"content-state":{"score":1}},"custom":{"a":[1,2]}}
            """#)
        #expect(payload.aps.interruptionLevel == .timeSensitive)
        #expect(payload.aps.threadID == "t1" && payload.aps.category == "MSG")
        #expect(payload.aps.targetContentID == "x" && payload.aps.filterCriteria == "work")
        #expect(payload.aps.liveActivity["content-state"] == .object(["score": .number(1)]))
        #expect(payload.custom["custom"] == .object(["a": .array([.number(1), .number(2)])]))
    }

    @Test("an unknown level is kept raw and not interpreted")
    func unknownLevel() throws {
        let payload = try parse(#"{"aps":{"interruption-level":"urgent"}}"#)
        #expect(payload.aps.interruptionLevel == nil)
        #expect(payload.aps.interruptionLevelRaw == "urgent")
    }

    @Test("wrong shapes are refused")
    func strictShapes() {
        for body in [
            #"{"aps":{"alert":5}}"#, #"{"aps":{"badge":-1}}"#, #"{"aps":{"badge":"x"}}"#,
            #"{"aps":{"thread-id":{}}}"#, #"{"aps":[]}"#, "null", "[]", "{",
        ] {
            #expect(throws: PayloadError.self, "\(body)") { try parse(body) }
        }
    }
}

@Suite("Small rules")
struct SmallRuleTests {
    @Test("rate limiter allows the rate per second per key")
    func rateLimiter() {
        var limiter = RateLimiter(perSecond: 2)
        let start = Date(timeIntervalSince1970: 0)
        var answers: [Bool] = []
        for (key, offset) in [("a", 0.0), ("a", 0), ("a", 0), ("b", 0), ("a", 0.5)] {
            answers.append(limiter.allow(key, now: start.addingTimeInterval(offset)))
        }
        #expect(answers == [true, true, false, true, true])
        var off = RateLimiter(perSecond: 0)
        var allowed = 0
        for _ in 0..<100 where off.allow("a", now: start) { allowed += 1 }
        #expect(allowed == 100)
    }

    @Test("generated apns-ids are lowercase canonical UUIDs")
    func generatedIDs() {
        var generator = SystemRandomNumberGenerator()
        let id = APNsID.make(using: &generator)
        #expect(APNsID.isValid(id))
        #expect(id == id.lowercased())
        #expect(DeviceTokenFormat.make(using: &generator).count == 64)
        let earlier = APNsID.makeTimeOrdered(at: Date(timeIntervalSince1970: 1_800_000_000), using: &generator)
        let later = APNsID.makeTimeOrdered(at: Date(timeIntervalSince1970: 1_800_000_000.002), using: &generator)
        #expect(APNsID.isValid(earlier) && earlier == earlier.lowercased())
        #expect(earlier < later)
        #expect(Array(earlier)[14] == "7")

        // The layout, from known words: byte i of the first word (least significant first), then
        // of the second; version and variant bits set; the milliseconds first, big-endian.
        struct Words: RandomNumberGenerator {
            var words: [UInt64] = [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210]
            mutating func next() -> UInt64 { words.removeFirst() }
        }
        var words = Words()
        #expect(APNsID.make(using: &words) == "efcdab89-6745-4301-9032-547698badcfe")
        words = Words()
        #expect(
            APNsID.makeTimeOrdered(at: Date(timeIntervalSince1970: 1_800_000_000), using: &words)
                == "01a3185c-5000-7301-9032-547698badcfe")
    }

    @Test("failure bodies carry a timestamp only on 410")
    func failureBodies() {
        #expect(APNsFailure(.badTopic).jsonBody == #"{"reason":"BadTopic"}"#)
        #expect(APNsFailure(.unregistered, timestamp: 5).jsonBody == #"{"reason":"Unregistered","timestamp":5}"#)
    }
}
