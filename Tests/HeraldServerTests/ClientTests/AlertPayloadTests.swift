import Foundation
import HeraldClient
import HeraldCore
import Testing

extension ClientTests {
    @Suite("Payloads built from herald push's options")
    struct AlertPayloadTests {
        @Test func titleAndBodyMakeAnAlertDictionary() {
            let payload = AlertPayload(title: "Hello", body: "World").encoded()
            #expect(String(decoding: payload, as: UTF8.self) == #"{"aps":{"alert":{"body":"World","title":"Hello"}}}"#)
        }

        @Test func everyOptionLandsOnItsAPSKey() throws {
            let payload = AlertPayload(
                title: "T", subtitle: "S", body: "B", interruptionLevel: .timeSensitive,
                threadID: "chat-1", category: "MESSAGE", badge: 3, sound: "ping.caf"
            )
            // APNs (and Herald's parser) read it back as the same parts.
            let parsed = try NotificationPayload(json: payload.encoded())
            #expect(parsed.aps.alert == Alert(title: "T", subtitle: "S", body: "B"))
            #expect(parsed.aps.interruptionLevel == .timeSensitive)
            #expect(parsed.aps.threadID == "chat-1")
            #expect(parsed.aps.category == "MESSAGE")
            #expect(parsed.aps.badge == 3)
            #expect(parsed.aps.sound == Sound(name: "ping.caf"))
            #expect(parsed.custom.isEmpty)
        }

        @Test func aCriticalSoundIsTheCriticalAlertDictionary() throws {
            let payload = AlertPayload(title: "Fire", interruptionLevel: .critical, sound: "default").encoded()
            let parsed = try NotificationPayload(json: payload)
            #expect(parsed.aps.sound == Sound(name: "default", isCritical: true, volume: 1))
            #expect(
                String(decoding: payload, as: UTF8.self).contains(
                    #""sound":{"critical":1,"name":"default","volume":1}"#))
        }

        @Test func badgeZeroIsKeptBecauseItClearsTheBadge() throws {
            let parsed = try NotificationPayload(json: AlertPayload(badge: 0).encoded())
            #expect(parsed.aps.badge == 0)
        }

        @Test func aBackgroundPushIsContentAvailableOnly() {
            let payload = AlertPayload(isContentAvailable: true).encoded()
            #expect(String(decoding: payload, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
        }

        @Test func noOptionsGiveAnEmptyAPSDictionary() {
            #expect(String(decoding: AlertPayload().encoded(), as: UTF8.self) == #"{"aps":{}}"#)
        }

        @Test func textIsEscapedAsJSON() throws {
            let payload = AlertPayload(title: #"He said "hi" \ / ü 🎉"#, body: "line 1\nline 2")
            let parsed = try NotificationPayload(json: payload.encoded())
            #expect(parsed.aps.alert?.title == #"He said "hi" \ / ü 🎉"#)
            #expect(parsed.aps.alert?.body == "line 1\nline 2")
        }
    }
}
