import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldStore
import Testing

@Suite("The push console: pushes handed to the APNs endpoint, and their delivery log (in-process server, test clock)")
struct PushConsoleTests {
    static let alert = #"{"aps":{"alert":{"title":"Console","body":"Hello"},"sound":"default"}}"#

    /// The console's answer as a tuple to compare with the APNs client's.
    static func answer(_ data: Data) throws -> (status: Int, reason: String?, apnsID: String?, uniqueID: String?) {
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        return (
            try #require(Self.number(json(value, "status"))), json(value, "reason")?.stringValue,
            json(value, "apns_id")?.stringValue, json(value, "apns_unique_id")?.stringValue
        )
    }

    static func number(_ value: JSONValue?) -> Int? {
        if case .number(let number)? = value { return Int(number) }
        return nil
    }

    @Test("a console push gets the APNs endpoint's answer, refusals with APNs's reasons; its body is checked first")
    func answersAreTheEndpoints() async throws {
        let herald = try await PolicyHerald.start()
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
        let client = try herald.apnsClient()
        let token = try #require(try herald.application.demoProviderToken())
        func console(
            deviceToken: String? = nil, headers: [String: String], payload: String = Self.alert, bearer: Bool = true
        ) async throws -> (status: Int, reason: String?, apnsID: String?, uniqueID: String?) {
            var all = headers
            if bearer { all["authorization"] = "bearer \(token)" }
            return try Self.answer(
                try await api.send(
                    "POST", path: "/v1/console/push",
                    body: .object([
                        "device_token": .string(deviceToken ?? herald.demo.deviceToken),
                        "headers": .object(all.mapValues(JSONValue.string)), "payload": .string(payload),
                    ])))
        }
        let topic = herald.demo.topic

        // Accepted: the apns-id given comes back, with a unique id, and the push is stored.
        let id = "8F6C5A4E-1D2B-4C3A-9E8F-7A6B5C4D3E2F"
        let accepted = try await console(headers: ["apns-topic": topic, "apns-push-type": "alert", "apns-id": id])
        #expect(accepted.status == 200 && accepted.reason == nil)
        #expect(accepted.apnsID == id)
        #expect(accepted.uniqueID != nil)
        let row = try await herald.store.notification(deviceID: herald.demo.deviceID, id: id.lowercased())
        #expect(row?.payload == Self.alert)

        // Refusals, each the same as the APNs client gets over the endpoint.
        let badToken = try await console(deviceToken: "abc", headers: ["apns-topic": topic])
        let overEndpoint = try await client.send(
            APNsPush(deviceToken: "abc", topic: topic, payload: Data(Self.alert.utf8)))
        #expect(badToken.status == 400 && badToken.reason == "BadDeviceToken")
        #expect((badToken.status, badToken.reason) == (overEndpoint.status, overEndpoint.reason))
        let badJSON = try await console(headers: ["apns-topic": topic], payload: "{\"aps\":")
        let badJSONOverEndpoint = try await client.send(
            APNsPush(deviceToken: herald.demo.deviceToken, topic: topic, payload: Data("{\"aps\":".utf8)))
        #expect(badJSON.status == 400)
        #expect((badJSON.status, badJSON.reason) == (badJSONOverEndpoint.status, badJSONOverEndpoint.reason))
        #expect(try await console(headers: [:]).reason == "MissingTopic")
        let otherTopic = try await console(headers: ["apns-topic": "com.example.other"])
        let otherTopicOverEndpoint = try await client.send(
            APNsPush(deviceToken: herald.demo.deviceToken, topic: "com.example.other", payload: Data(Self.alert.utf8)))
        #expect(otherTopic.status != 200)
        #expect(
            (otherTopic.status, otherTopic.reason) == (otherTopicOverEndpoint.status, otherTopicOverEndpoint.reason))
        let unauthenticated = try await console(headers: ["apns-topic": topic], bearer: false)
        #expect(unauthenticated.status == 403 && unauthenticated.reason == "MissingProviderToken")
        let forged = try await console(
            headers: ["apns-topic": topic, "authorization": "bearer e30.e30.c2ln"], bearer: false)
        #expect(forged.status == 403 && forged.reason == "InvalidProviderToken")

        // The console's own checks: a user token, and a body it can hand on.
        let anonymous = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: "nobody")
        await #expect(throws: HeraldAPIError.self) {
            try await anonymous.send(
                "POST", path: "/v1/console/push",
                body: JSONValue.object(["device_token": JSONValue.string("abc"), "payload": JSONValue.string("{}")]))
        }
        for (body, field) in [
            (JSONValue.object(["payload": .string("{}")]), "device_token"),
            (.object(["device_token": .string("ab/../c"), "payload": .string("{}")]), "device_token"),
            (.object(["device_token": .string("abc")]), "payload"),
            (
                .object([
                    "device_token": .string("abc"), "payload": .string("{}"),
                    "headers": .object(["apns topic": .string("x")]),
                ]), "headers"
            ),
            (
                .object([
                    "device_token": .string("abc"), "payload": .string("{}"),
                    "headers": .object(["apns-topic": .string("x\r\ny: z")]),
                ]), "headers.apns-topic"
            ),
        ] {
            do {
                try await api.send("POST", path: "/v1/console/push", body: body)
                Issue.record("accepted \(body)")
            } catch let error as HeraldAPIError {
                #expect(error.status == 400)
                let answer = try JSONDecoder().decode(JSONValue.self, from: error.body)
                #expect(json(answer, "error", "message")?.stringValue?.hasPrefix("`\(field)`") == true, "\(body)")
            }
        }
        try await client.shutdown()
        try await anonymous.shutdown()
        try await api.shutdown()
        try await herald.stop()
    }

    @Test("the delivery log shows a console push on the user's devices past delivery: decided, read, dismissed")
    func deliveryLog() async throws {
        let herald = try await PolicyHerald.start()
        try await herald.unlockDevice()
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
        let token = try #require(try herald.application.demoProviderToken())
        let id = "1E2D3C4B-5A69-4788-97A6-B5C4D3E2F100"
        let sent = try Self.answer(
            try await api.send(
                "POST", path: "/v1/console/push",
                body: .object([
                    "device_token": .string(herald.demo.deviceToken),
                    "headers": .object([
                        "apns-topic": .string(herald.demo.topic), "apns-id": .string(id),
                        "authorization": .string("bearer \(token)"),
                    ]),
                    "payload": .string(Self.alert),
                ])))
        #expect(sent.status == 200)

        func log() async throws -> JSONValue {
            try JSONDecoder().decode(JSONValue.self, from: try await api.send("GET", path: "/v1/console/pushes/\(id)"))
        }
        let first = try await log()
        #expect(json(first, "apns_id")?.stringValue == id.lowercased())
        let deliveries = jsonItems(json(first, "deliveries"))
        #expect(deliveries.count == 1)
        let delivery = try #require(deliveries.first)
        #expect(json(delivery, "device_id")?.stringValue == herald.demo.deviceID)
        #expect(json(delivery, "notification", "id")?.stringValue == id.lowercased())
        #expect(json(delivery, "decision", "disposition")?.stringValue == "alerted")
        #expect(
            jsonItems(json(delivery, "events")).compactMap { json($0, "event")?.stringValue } == [
                "received", "decided",
            ])
        #expect(json(jsonItems(json(delivery, "events"))[1], "detail")?.stringValue == "active, alerted")

        // Read, then dismissed: the log goes on.
        try await api.send("POST", path: "/v1/devices/\(herald.demo.deviceID)/notifications/\(id)/read")
        herald.clock.advance(by: 5)
        try await api.send("POST", path: "/v1/devices/\(herald.demo.deviceID)/notifications/\(id)/dismiss")
        let later = try await log()
        let events = jsonItems(json(jsonItems(json(later, "deliveries")).first, "events"))
        #expect(events.compactMap { json($0, "event")?.stringValue } == ["received", "decided", "read", "dismissed"])

        // Another user sees nothing of it; the user's devices list the demo device's token.
        let other = try await herald.application.registry.createUser(name: "Other")
        let otherAPI = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: other.token)
        let theirs = try JSONDecoder().decode(
            JSONValue.self, from: try await otherAPI.send("GET", path: "/v1/console/pushes/\(id)"))
        #expect(jsonItems(json(theirs, "deliveries")).isEmpty)
        let devices = try JSONDecoder().decode(JSONValue.self, from: try await api.send("GET", path: "/v1/me/devices"))
        let device = try #require(jsonItems(json(devices, "devices")).first)
        #expect(json(device, "device_id")?.stringValue == herald.demo.deviceID)
        #expect(
            jsonItems(json(device, "tokens")).compactMap { json($0, "token")?.stringValue } == [herald.demo.deviceToken]
        )
        #expect(
            jsonItems(json(device, "tokens")).first.flatMap { json($0, "bundle_id")?.stringValue } == herald.demo.topic)
        #expect(jsonItems(json(try await otherAPI.send("GET", path: "/v1/me/devices").asJSON(), "devices")).isEmpty)
        try await otherAPI.shutdown()
        try await api.shutdown()
        try await herald.stop()
    }
}

extension Data {
    fileprivate func asJSON() throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: self) }
}
