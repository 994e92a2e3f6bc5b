import Foundation
import Testing

@testable import HeraldCore

@Suite("APNs request rules")
struct PushValidatorTests {
    let fixture = Fixture()

    @Test("a well-formed alert push is accepted with its parsed payload")
    func acceptsAlert() throws {
        var auth = ProviderAuthState()
        let push = try fixture.validate(fixture.request(), auth: &auth).get()
        #expect(push.app.bundleID == "com.example.demo")
        #expect(push.token.deviceID == "device-1")
        #expect(push.priority == .immediately)
        #expect(push.payload.aps.alert?.body == "hello")
    }

    @Test("method, path and token shape are checked first")
    func methodAndPath() {
        #expect(fixture.reason(fixture.request(method: "GET")) == "MethodNotAllowed")
        var request = fixture.request()
        request.path = "/2/device/abcd"
        #expect(fixture.reason(request) == "BadPath")
        request.path = "/3/device/"
        #expect(fixture.reason(request) == "MissingDeviceToken")
        #expect(fixture.reason(fixture.request(token: "abc")) == "BadDeviceToken")
        #expect(fixture.reason(fixture.request(token: "zz" + String(repeating: "a", count: 62))) == "BadDeviceToken")
        #expect(fixture.reason(fixture.request(token: String(repeating: "12", count: 32))) == "BadDeviceToken")
    }

    @Test("a repeated header is refused")
    func duplicateHeaders() {
        #expect(
            fixture.reason(fixture.request(extraHeaders: [("apns-topic", "com.example.demo")])) == "DuplicateHeaders")
        // Short lists are compared pairwise, long ones through a set: both find the repeat anywhere.
        for count in [2, 5, 16, 17, 40] {
            var headers = (0..<count).map { (name: "x-h\($0)", value: "v") }
            #expect(!PushValidator.hasDuplicate(headers))
            headers.append((name: "x-h\(count / 2)", value: "again"))
            #expect(PushValidator.hasDuplicate(headers))
        }
        #expect(fixture.reason(fixture.request(token: "ab/cd")) == "BadPath")
    }

    @Test("apns-id must be a canonical UUID in either case")
    func messageID() {
        #expect(fixture.reason(fixture.request(extraHeaders: [("apns-id", "not-a-uuid")])) == "BadMessageId")
        #expect(
            fixture.reason(fixture.request(extraHeaders: [("apns-id", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")])) == nil)
    }

    @Test("topic, push type, priority, expiration and collapse id rules")
    func headerRules() {
        let auth = ("authorization", "bearer \(fixture.jwt())")
        #expect(fixture.reason(fixture.request(headers: [auth])) == "MissingTopic")
        #expect(
            fixture.reason(
                fixture.request(headers: [auth, ("apns-topic", "com.example.demo"), ("apns-push-type", "fax")]))
                == "InvalidPushType")
        #expect(fixture.reason(fixture.request(extraHeaders: [("apns-priority", "7")])) == "BadPriority")
        #expect(
            fixture.reason(
                fixture.request(
                    headers: [
                        auth, ("apns-topic", "com.example.demo"), ("apns-push-type", "background"),
                        ("apns-priority", "10"),
                    ],
                    body: #"{"aps":{"content-available":1}}"#)) == "BadPriority")
        #expect(
            fixture.reason(
                fixture.request(
                    headers: [auth, ("apns-topic", "com.example.demo"), ("apns-push-type", "background")],
                    body: #"{"aps":{"content-available":1}}"#)) == nil)
        #expect(fixture.reason(fixture.request(extraHeaders: [("apns-expiration", "soon")])) == "BadExpirationDate")
        #expect(fixture.reason(fixture.request(extraHeaders: [("apns-expiration", "-1")])) == "BadExpirationDate")
        #expect(
            fixture.reason(fixture.request(extraHeaders: [("apns-collapse-id", String(repeating: "x", count: 65))]))
                == "BadCollapseId")
        #expect(
            fixture.reason(fixture.request(extraHeaders: [("apns-collapse-id", String(repeating: "x", count: 64))]))
                == nil)
    }

    @Test("topics carry the suffix of their push type")
    func topicSuffixes() {
        let auth = ("authorization", "bearer \(fixture.jwt())")
        for type in PushType.allCases where type != .background {
            let good = fixture.request(headers: [
                auth, ("apns-topic", "com.example.demo" + type.topicSuffix), ("apns-push-type", type.rawValue),
            ])
            #expect(fixture.reason(good) == nil, "\(type)")
        }
        #expect(
            fixture.reason(
                fixture.request(headers: [auth, ("apns-topic", "com.example.demo"), ("apns-push-type", "voip")]))
                == "BadTopic")
        #expect(
            fixture.reason(
                fixture.request(headers: [auth, ("apns-topic", "com.unknown.app"), ("apns-push-type", "alert")]))
                == "BadTopic")
        #expect(
            fixture.reason(
                fixture.request(headers: [auth, ("apns-topic", "com.rival.app"), ("apns-push-type", "alert")]))
                == "TopicDisallowed")
    }

    @Test("device tokens must belong to the topic and still be registered")
    func deviceTokens() {
        #expect(fixture.reason(fixture.request(token: fixture.otherAppToken)) == "DeviceTokenNotForTopic")
        var auth = ProviderAuthState()
        let result = fixture.validate(fixture.request(token: fixture.goneToken), auth: &auth)
        #expect(result.failure == APNsFailure(.unregistered, timestamp: 1_799_000_000_500))
        #expect(fixture.reason(fixture.request(token: fixture.token.uppercased())) == nil)
    }

    @Test("payload size and shape")
    func payloads() {
        #expect(fixture.reason(fixture.request(body: "")) == "PayloadEmpty")
        let big = #"{"aps":{"alert":""# + String(repeating: "a", count: 4096 - 20) + #""}}"#
        #expect(big.utf8.count == 4096)
        #expect(fixture.reason(fixture.request(body: big)) == nil)
        let tooBig = #"{"aps":{"alert":""# + String(repeating: "a", count: 4097 - 20) + #""}}"#
        #expect(fixture.reason(fixture.request(body: tooBig)) == "PayloadTooLarge")
        let auth = ("authorization", "bearer \(fixture.jwt())")
        let voip = [auth, ("apns-topic", "com.example.demo.voip"), ("apns-push-type", "voip")]
        let voipBody = #"{"aps":{},"x":""# + String(repeating: "a", count: 5120 - 17) + #""}"#
        #expect(voipBody.utf8.count == 5120)
        #expect(fixture.reason(fixture.request(headers: voip, body: voipBody)) == nil)
        #expect(fixture.reason(fixture.request(headers: voip, body: voipBody + " ")) == "PayloadTooLarge")
        #expect(fixture.reason(fixture.request(body: "{not json")) == "BadPayload")
        #expect(fixture.reason(fixture.request(body: "[1,2]")) == "BadPayload")
        #expect(fixture.reason(fixture.request(body: #"{"aps":"x"}"#)) == "BadPayload")
        #expect(fixture.reason(fixture.request(body: #"{"hello":"world"}"#)) == "BadPayload")
        #expect(fixture.reason(fixture.request(headers: voip, body: #"{"caller":"Ann"}"#)) == nil)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
