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

/// `willPresent` over the app API: questions go to the app's connection that answers them, the
/// answer (`POST /v1/app/will-present/{id}`) reaches the waiting delivery, and every refusal has its
/// code. The whole path through a real server and `UNUserNotificationCenter` is in HeraldServerTests
/// (`ForegroundAppTests`).
@Suite("willPresent questions and answers")
struct WillPresentRoutesTests {
    static func question(_ deviceID: String, bundleID: String = TestHarness.bundleID) -> WillPresentQuestion {
        WillPresentQuestion(
            deviceID: deviceID, bundleID: bundleID, identifier: "reminder", isLocal: true,
            trigger: #"{"type":"time_interval","interval":60,"repeats":false}"#,
            payload: #"{"aps":{"alert":{"title":"Hi"}}}"#, date: Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test("a question goes to the app's newest answering connection; only that app's answer counts")
    func questionsAndAnswers() async throws {
        let harness = try TestHarness()
        let (credential, device) = try await AppRoutesTests.credential(harness)
        let otherApp = "com.example.second"
        _ = try await harness.registry.createApp(
            bundleID: otherApp, teamID: TestHarness.teamID, name: "Second", entitlements: Entitlements())
        let other = try await harness.registry.createAppCredential(deviceID: device.deviceID, bundleID: otherApp)
        let apps = harness.hub.apps

        // Nobody answers: no question, no answer, at once.
        #expect(!apps.answersWillPresent(deviceID: device.deviceID, bundleID: TestHarness.bundleID))
        #expect(await apps.ask(Self.question(device.deviceID)) == nil)
        // A connection that does not answer them (a plain `GET /v1/app/stream`) is not asked either.
        let plain = apps.register(deviceID: device.deviceID, bundleID: TestHarness.bundleID)
        #expect(!apps.answersWillPresent(deviceID: device.deviceID, bundleID: TestHarness.bundleID))
        let older = apps.register(deviceID: device.deviceID, bundleID: TestHarness.bundleID, answersWillPresent: true)
        let newer = apps.register(deviceID: device.deviceID, bundleID: TestHarness.bundleID, answersWillPresent: true)
        #expect(apps.answersWillPresent(deviceID: device.deviceID, bundleID: TestHarness.bundleID))
        #expect(!apps.answersWillPresent(deviceID: device.deviceID, bundleID: otherApp))

        let asking = Task { await apps.ask(Self.question(device.deviceID)) }
        await newer.wait(timeout: .seconds(60))
        let questions = newer.takeQuestions()
        #expect(questions.count == 1)
        #expect(older.takeQuestions().isEmpty)
        #expect(plain.takeQuestions().isEmpty)
        let id = try #require(questions.first?.id)
        #expect(questions.first?.question.identifier == "reminder")

        try await harness.makeApplication().test(.router) { client in
            func answer(_ token: String, _ id: String, _ body: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/v1/app/will-present/\(id)", method: .post, headers: bearer(token), body: jsonBody(body))
            }
            // Refused, each with its code; the question still waits.
            for (body, code) in [
                (#"{"options":["banner","shout"]}"#, "invalid_field"), (#"{}"#, "missing_field"),
                (#"{"options":"banner"}"#, "invalid_field"), (#"{"options":[],"extra":1}"#, "invalid_field"),
            ] {
                let refused = try await answer(credential, id, body)
                #expect(refused.status == .badRequest, "\(body)")
                #expect(refused.json["error"]?["code"] == .string(code), "\(body)")
            }
            // Another app (same device) cannot answer it; nor can nobody.
            let foreign = try await answer(other.credential, id, #"{"options":["banner"]}"#)
            #expect(foreign.status == .notFound)
            #expect(foreign.json["error"]?["code"] == .string("question_not_found"))
            let anonymous = try await client.execute(
                uri: "/v1/app/will-present/\(id)", method: .post, body: jsonBody(#"{"options":[]}"#))
            #expect(anonymous.status == .unauthorized)

            let answered = try await answer(credential, id, #"{"options":["banner","sound","list"]}"#)
            #expect(answered.status == .noContent)
            #expect(await asking.value == [.banner, .sound, .list])
            // Answered once: a second answer finds nothing.
            #expect(try await answer(credential, id, #"{"options":[]}"#).status == .notFound)
            #expect(try await answer(credential, "made-up", #"{"options":[]}"#).status == .notFound)

            // The stream's parameter: true or false only.
            let bad = try await client.execute(
                uri: "/v1/app/stream?will_present=maybe", method: .get, headers: bearer(credential))
            #expect(bad.status == .badRequest)
            #expect(bad.json["error"]?["code"] == .string("invalid_field"))
        }

        // A connection that ends leaves its questions without an answer at once.
        let abandoned = Task { await apps.ask(Self.question(device.deviceID)) }
        await newer.wait(timeout: .seconds(60))
        #expect(newer.takeQuestions().count == 1)
        newer.cancel()
        #expect(await abandoned.value == nil)
        // The older connection is asked now.
        let next = Task { await apps.ask(Self.question(device.deviceID)) }
        await older.wait(timeout: .seconds(60))
        let again = try #require(older.takeQuestions().first)
        #expect(apps.answer(id: again.id, deviceID: device.deviceID, bundleID: TestHarness.bundleID, options: []))
        #expect(await next.value == [])
        older.cancel()
        plain.cancel()
    }

    @Test("a question nobody answers in time gets no answer")
    func timeout() async throws {
        let apps = AppConnections(willPresentTimeout: .milliseconds(100))
        let connection = apps.register(deviceID: "d", bundleID: "b", answersWillPresent: true)
        let question = Self.question("d", bundleID: "b")
        #expect(await apps.ask(question) == nil)
        let late = try #require(connection.takeQuestions().first)
        #expect(!apps.answer(id: late.id, deviceID: "d", bundleID: "b", options: [.banner]))
        connection.cancel()
    }
}
