import Foundation
import HeraldDelivery
import Hummingbird

/// The admin clock routes (`/v1/admin/clock`): read the server's time; on a server started with
/// `--clock manual`, set it or advance it. Moving it returns once the time-driven services (Focus
/// schedules, Scheduled Summary) have acted up to the new time. Any signed-in user reads it at
/// `GET /v1/clock` (the web page shows a manual clock's time, not the browser's).
struct ClockRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var routes: [APIRoute] {
        [
            APIRoute(.get, "/v1/admin/clock", authenticator.adminOnly(read)),
            APIRoute(.get, "/v1/clock", readForUser),
            APIRoute(.put, "/v1/admin/clock", authenticator.adminOnly(set)),
            APIRoute(.post, "/v1/admin/clock/advance", authenticator.adminOnly(advance)),
        ]
    }

    @Sendable func read(_ request: Request, context: APIRequestContext) async throws -> Response {
        JSONBody.response(ClockJSON(manual: dependencies.clockControl != nil, now: dependencies.now()))
    }

    @Sendable func readForUser(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try await authenticator.requireUser(request)
        return JSONBody.response(ClockJSON(manual: dependencies.clockControl != nil, now: dependencies.now()))
    }

    @Sendable func set(_ request: Request, context: APIRequestContext) async throws -> Response {
        let control = try requireManual()
        let body = try await JSONBody.decode(SetClockBody.self, from: request, context: context)
        guard let date = UserStateRoutes.parseTimestamp(body.now) else {
            throw APIError.invalidField(
                "now", "must be an ISO 8601 date-time with a time zone, like 2026-03-01T07:30:00Z.")
        }
        return try await move(control, .to(date), field: "now")
    }

    @Sendable func advance(_ request: Request, context: APIRequestContext) async throws -> Response {
        let control = try requireManual()
        let body = try await JSONBody.decode(AdvanceClockBody.self, from: request, context: context)
        guard body.seconds.isFinite else { throw APIError.invalidField("seconds", "must be a number of seconds.") }
        return try await move(control, .by(body.seconds), field: "seconds")
    }

    private func requireManual() throws -> any ClockControl {
        guard let control = dependencies.clockControl else {
            throw APIError.conflict(
                "clock_not_manual",
                "This server runs on the wall clock, which cannot be set or advanced: start it with "
                    + "`herald serve --clock manual` to move time by hand."
            )
        }
        return control
    }

    private func move(_ control: any ClockControl, _ movement: ClockMovement, field: String) async throws -> Response {
        do {
            let now = try await control.move(movement)
            return JSONBody.response(ClockJSON(manual: true, now: now))
        } catch ClockMoveError.backwards(let now) {
            throw APIError(
                .badRequest, code: "clock_backwards",
                message: "The clock only moves forward: it reads \(Timestamp.string(now)), and the Focus and Scheduled "
                    + "Summary services have already acted up to then (released what Focus modes held, delivered "
                    + "summaries), which an earlier time would contradict. Restart the server to start again from "
                    + "the wall-clock time."
            )
        } catch ClockMoveError.tooFar(let now, let limit) {
            let days = Int(limit / 86_400)
            throw APIError.invalidField(
                field,
                "must be at most \(Int(limit)) seconds (\(days) days) after the clock's time, \(Timestamp.string(now)): "
                    + "move it again for more."
            )
        }
    }
}

struct SetClockBody: Decodable {
    var now: String
}

struct AdvanceClockBody: Decodable {
    var seconds: Double
}

/// `{"mode": "manual"|"system", "now": "<ISO 8601 ms>"}`.
struct ClockJSON: Encodable {
    var mode: String
    var now: String

    init(manual: Bool, now: Date) {
        self.mode = manual ? "manual" : "system"
        self.now = Timestamp.string(now)
    }
}
