import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import HeraldAPI

/// A manual clock for the routes: moves the harness's clock forward, refuses backwards and far moves
/// as the server's `ClockController` does, and records what it was asked.
final class FakeClockControl: ClockControl {
    let clock: TestClock
    let moves = HeraldMutex<[ClockMovement]>([])

    init(clock: TestClock) {
        self.clock = clock
    }

    func move(_ movement: ClockMovement) async throws -> Date {
        moves.withLock { $0.append(movement) }
        let now = clock.now()
        let target: Date
        switch movement {
        case .to(let date): target = date
        case .by(let seconds): target = now.addingTimeInterval(seconds)
        }
        guard target >= now else { throw ClockMoveError.backwards(now: now) }
        guard target.timeIntervalSince(now) <= 366 * 86_400 else {
            throw ClockMoveError.tooFar(now: now, limit: 366 * 86_400)
        }
        clock.advance(by: target.timeIntervalSince(now))
        return clock.now()
    }
}

@Suite("Admin clock routes")
struct ClockRoutesTests {
    static func manual(_ harness: TestHarness) -> (APIApplication, FakeClockControl) {
        let control = FakeClockControl(clock: harness.clock)
        var dependencies = harness.dependencies
        dependencies.clockControl = control
        return (makeAPIApplication(dependencies, host: "127.0.0.1", port: 0), control)
    }

    @Test("on the wall clock: GET reads `system`; PUT and advance answer 409 clock_not_manual, saying how to start")
    func wallClock() async throws {
        let harness = try TestHarness()
        try await harness.makeApplication().test(.router) { client in
            let read = try await admin(client, .get, "/v1/admin/clock")
            #expect(read.status == .ok)
            #expect(read.json == .object(["mode": .string("system"), "now": .string("2025-06-15T15:06:40.250Z")]))
            for (method, uri, body) in [
                (HTTPRequest.Method.put, "/v1/admin/clock", #"{"now":"2030-01-01T00:00:00Z"}"#),
                (.post, "/v1/admin/clock/advance", #"{"seconds":60}"#),
                (.post, "/v1/admin/clock/advance", "not json"),
            ] {
                let refused = try await admin(client, method, uri, body)
                #expect(refused.status == .conflict, "\(method) \(uri)")
                #expect(refused.errorCode == "clock_not_manual")
                #expect(
                    refused.json["error"]?["message"]?.stringValue?.contains("`herald serve --clock manual`") == true)
            }
        }
        #expect(harness.clock.now() == Date(timeIntervalSince1970: 1_750_000_000.250))
    }

    @Test("on a manual clock: GET, PUT to a time (Z or an offset), advance by seconds; each answers the new time")
    func manualClock() async throws {
        let harness = try TestHarness()
        let (application, control) = Self.manual(harness)
        try await application.test(.router) { client in
            let read = try await admin(client, .get, "/v1/admin/clock")
            #expect(read.json == .object(["mode": .string("manual"), "now": .string("2025-06-15T15:06:40.250Z")]))

            let advanced = try await admin(client, .post, "/v1/admin/clock/advance", #"{"seconds":5400}"#)
            #expect(advanced.status == .ok)
            #expect(advanced.json == .object(["mode": .string("manual"), "now": .string("2025-06-15T16:36:40.250Z")]))

            let set = try await admin(client, .put, "/v1/admin/clock", #"{"now":"2025-06-16T07:00:00Z"}"#)
            #expect(set.status == .ok)
            #expect(set.json["now"] == .string("2025-06-16T07:00:00.000Z"))

            let offset = try await admin(client, .put, "/v1/admin/clock", #"{"now":"2025-06-16T13:30:00.500+05:30"}"#)
            #expect(offset.status == .ok, "\(offset.json)")
            #expect(offset.json["now"] == .string("2025-06-16T08:00:00.500Z"))

            let again = try await admin(client, .get, "/v1/admin/clock")
            #expect(again.json["now"] == .string("2025-06-16T08:00:00.500Z"))
        }
        #expect(
            control.moves.withLock { $0 } == [
                .by(5400), .to(Date(timeIntervalSince1970: 1_750_057_200)),
                .to(Date(timeIntervalSince1970: 1_750_060_800.5)),
            ])
    }

    @Test("a signed-in user reads the clock (GET /v1/clock) but cannot move it")
    func userReadsTheClock() async throws {
        let harness = try TestHarness()
        let (token, _) = try await harness.makeDevice()
        let (application, control) = Self.manual(harness)
        try await application.test(.router) { client in
            let read = try await client.execute(uri: "/v1/clock", method: .get, headers: bearer(token))
            #expect(read.status == .ok)
            #expect(read.json == .object(["mode": .string("manual"), "now": .string("2025-06-15T15:06:40.250Z")]))
            let byQuery = try await client.execute(uri: "/v1/clock?access_token=\(token)", method: .get)
            #expect(byQuery.status == .ok)
            let anonymous = try await client.execute(uri: "/v1/clock", method: .get)
            #expect(anonymous.status == .unauthorized)
            let move = try await client.execute(
                uri: "/v1/admin/clock/advance", method: .post, headers: bearer(token),
                body: jsonBody(#"{"seconds":60}"#))
            #expect(move.status == .unauthorized)
        }
        #expect(control.moves.withLock { $0 }.isEmpty)
    }

    @Test("backwards answers 400 clock_backwards saying why; bad bodies name the field; too far names the limit")
    func refusals() async throws {
        let harness = try TestHarness()
        let (application, _) = Self.manual(harness)
        try await application.test(.router) { client in
            for (method, uri, body) in [
                (HTTPRequest.Method.put, "/v1/admin/clock", #"{"now":"2025-06-15T15:06:40.249Z"}"#),
                (.post, "/v1/admin/clock/advance", #"{"seconds":-1}"#),
            ] {
                let backwards = try await admin(client, method, uri, body)
                #expect(backwards.status == .badRequest)
                #expect(backwards.errorCode == "clock_backwards")
                let message = backwards.json["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains("only moves forward"), "\(message)")
                #expect(message.contains("2025-06-15T15:06:40.250Z"), "\(message)")
                #expect(message.contains("already acted"), "\(message)")
            }
            let cases: [(HTTPRequest.Method, String, String, String, String)] = [
                (.put, "/v1/admin/clock", #"{"now":"tomorrow"}"#, "invalid_field", "`now`"),
                (.put, "/v1/admin/clock", #"{"now":"2025-06-16T07:00:00"}"#, "invalid_field", "`now`"),
                (.put, "/v1/admin/clock", #"{}"#, "missing_field", "`now`"),
                (.post, "/v1/admin/clock/advance", #"{"seconds":"1h"}"#, "invalid_field", "`seconds`"),
                (.post, "/v1/admin/clock/advance", #"{}"#, "missing_field", "`seconds`"),
                (.post, "/v1/admin/clock/advance", "", "invalid_json", "JSON"),
                (
                    .post, "/v1/admin/clock/advance", #"{"seconds":31708800}"#, "invalid_field",
                    "31622400 seconds (366 days)"
                ),
                (.put, "/v1/admin/clock", #"{"now":"2027-01-01T00:00:00Z"}"#, "invalid_field", "`now` must be at most"),
            ]
            for (method, uri, body, code, mention) in cases {
                let response = try await admin(client, method, uri, body)
                #expect(response.status == .badRequest, "\(uri) \(body)")
                #expect(response.errorCode == code, "\(uri) \(body)")
                let message = response.json["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains(mention), "\(uri) \(body): \(message)")
            }
            let unchanged = try await admin(client, .get, "/v1/admin/clock")
            #expect(unchanged.json["now"] == .string("2025-06-15T15:06:40.250Z"))
        }
    }
}
