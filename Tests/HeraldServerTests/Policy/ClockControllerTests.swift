import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

/// `herald serve --clock manual`: the admin clock routes move a `ManualClock` through a
/// `ClockController`, and the time-driven services follow it at once.
@Suite("Manual clock moved by the admin: the services follow it")
struct ClockControllerTests {
    static let kolkata = TimeZone(identifier: "Asia/Kolkata")!
    /// Monday 2 March 2026, 22:30 in Kolkata (17:00 UTC).
    static let mondayNight = Date(timeIntervalSince1970: 1_772_470_800)
    static let alert = #"{"alert":{"title":"Hello","body":"World"}}"#

    /// `hour:minute` of the day after `mondayNight` (Tuesday), in Kolkata.
    static func tuesday(_ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = kolkata
        return calendar.date(from: DateComponents(year: 2026, month: 3, day: 3, hour: hour, minute: minute))!
    }

    /// A Herald whose manual clock starts at `mondayNight`, far from the wall clock; the user lives
    /// in Kolkata.
    static func start() async throws -> (PolicyHerald, ClockController, String) {
        let herald = try await PolicyHerald.start(at: mondayNight)
        let control = try #require(herald.application.timeControl)
        let userID = try await herald.userID()
        try await herald.store.setPreferences(UserPreferences(timeZone: kolkata), userID: userID)
        return (herald, control, userID)
    }

    @Test(
        "one move across a Focus schedule's end releases what it held at the end (07:00), not at the move's end; one ending there too"
    )
    func focusEndsDuringAMove() async throws {
        let (herald, control, userID) = try await Self.start()
        #expect(Self.tuesday(7) == Self.mondayNight.addingTimeInterval(8.5 * 3600))
        let sleep = FocusMode(
            id: "sleep", name: "Sleep", kind: .sleep,
            schedules: [FocusSchedule(days: .everyDay, start: TimeOfDay(hour: 22), end: TimeOfDay(hour: 7))]
        )
        try await herald.store.upsertFocusMode(sleep, userID: userID)
        try await herald.userStateChanged(userID)
        // Provider tokens are signed with the wall clock, days away from this clock: still accepted.
        let held = try await Self.push(herald)
        #expect(held.disposition == .heldForFocus)
        #expect(held.receivedAt == Self.mondayNight)

        let now = try await control.move(.by(12 * 3600))

        // Read at once, no waiting for events: the move returned after the Focus service acted.
        #expect(now == Self.tuesday(10, 30))
        #expect(herald.clock.now == Self.tuesday(10, 30))
        let released = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: held.id))
        #expect(released.disposition == .listedSilently)  // released quietly
        #expect(released.releasedAt == Self.tuesday(7))
        #expect(reasons(herald.application.policy.explain(released)).map(\.code).contains("released-focus-ended"))

        // A push now is decided at the clock's time: no Focus, received at 10:30.
        let later = try await Self.push(herald)
        #expect(later.disposition == .alerted)
        #expect(later.receivedAt == Self.tuesday(10, 30))

        // The next night, a move that ends exactly at 07:00 also returns after the release.
        _ = try await control.move(.to(Self.tuesday(23)))
        let night = try await Self.push(herald)
        #expect(night.disposition == .heldForFocus)
        let wednesday = Self.tuesday(7).addingTimeInterval(86_400)
        #expect(try await control.move(.to(wednesday)) == wednesday)
        let morning = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: night.id))
        #expect(morning.disposition == .listedSilently)
        #expect(morning.releasedAt == wednesday)
        try await herald.stop()
    }

    @Test("one move across two summary times delivers each at its own time, in order")
    func summaryTimesDuringAMove() async throws {
        let (herald, control, userID) = try await Self.start()
        let schedule = try SummarySchedule(times: [TimeOfDay(hour: 8), TimeOfDay(hour: 20)], apps: [herald.demo.topic])
        try await herald.store.setSummarySchedule(schedule, userID: userID)
        try await herald.userStateChanged(userID)
        let held = try await Self.push(herald)
        #expect(held.disposition == .heldForSummary)

        _ = try await control.move(.to(Self.tuesday(23)))

        let released = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: held.id))
        #expect(released.disposition == .listedSilently)
        #expect(released.releasedAt == Self.tuesday(8))
        var deliveries: [SummaryDelivery] = []
        while deliveries.count < 2 {
            if case .summaryDelivered(let delivery) = try await herald.nextEvent(where: {
                if case .summaryDelivered = $0 { true } else { false }
            }) {
                deliveries.append(delivery)
            }
        }
        #expect(deliveries.map(\.slot) == [Self.tuesday(8), Self.tuesday(20)])
        #expect(deliveries.map(\.deliveredAt) == [Self.tuesday(8), Self.tuesday(20)])
        #expect(deliveries[0].digest.apps.first?.notifications.map(\.id) == [held.id])
        #expect(deliveries[1].digest.count == 0)
        try await herald.stop()
    }

    @Test("moves are forward only, at most 366 days each, and serial")
    func refusalsAndOrder() async throws {
        let (herald, control, _) = try await Self.start()
        let start = Self.mondayNight

        await #expect(throws: ClockMoveError.backwards(now: start)) {
            try await control.move(.to(start.addingTimeInterval(-0.001)))
        }
        await #expect(throws: ClockMoveError.backwards(now: start)) { try await control.move(.by(-60)) }
        await #expect(throws: ClockMoveError.tooFar(now: start, limit: 366 * 86_400)) {
            try await control.move(.by(367 * 86_400))
        }
        #expect(herald.clock.now == start)
        #expect(try await control.move(.by(0)) == start)
        #expect(try await control.move(.to(start)) == start)

        async let first = control.move(.by(3600))
        async let second = control.move(.by(3600))
        let ends = try await Set([first, second])
        #expect(ends == [start.addingTimeInterval(3600), start.addingTimeInterval(7200)])
        #expect(herald.clock.now == start.addingTimeInterval(7200))

        // Rounded to the millisecond, like every API timestamp; an hour from a millisecond lands on
        // a millisecond (floating point would land a hair before it for some starts).
        let rounded = try await control.move(.by(0.0015))
        #expect(Self.milliseconds(rounded) == Self.milliseconds(start.addingTimeInterval(7200)) + 2)
        #expect(Self.milliseconds(rounded) * 1000 == Int64((rounded.timeIntervalSince1970 * 1_000_000).rounded()))
        for millisecond in 0..<1000 {
            let from = herald.clock.now
            let to = try await control.move(.by(Double(millisecond) / 1000 + 3600))
            #expect(
                Self.iso(to)
                    == Self.iso(
                        Date(
                            timeIntervalSince1970: (Double(Self.milliseconds(from)) + Double(millisecond) + 3_600_000)
                                / 1000)))
        }
        try await herald.stop()
    }

    @Test(
        "over HTTP: the clock reads manual, moves, and apns-expiration follows it while provider tokens follow the wall clock"
    )
    func overHTTP() async throws {
        let herald = try await PolicyHerald.start()
        let start = herald.clock.now
        try await Self.withAdminAPI(herald.runtime, herald.application.adminToken) { api in
            let read = try JSONDecoder().decode(JSONValue.self, from: try await api.clock())
            #expect(read == .object(["mode": .string("manual"), "now": .string(Self.iso(start))]))

            let advanced = try JSONDecoder().decode(JSONValue.self, from: try await api.advanceClock(seconds: 7200))
            #expect(
                advanced
                    == .object(["mode": .string("manual"), "now": .string(Self.iso(start.addingTimeInterval(7200)))]))
            let set = try JSONDecoder().decode(
                JSONValue.self, from: try await api.setClock(to: Self.iso(start.addingTimeInterval(7260))))
            #expect(set.objectValue?["now"] == .string(Self.iso(start.addingTimeInterval(7260))))
            do {
                _ = try await api.setClock(to: Self.iso(start))
                Issue.record("moving the clock backwards was accepted")
            } catch let error as HeraldAPIError {
                #expect(error.status == 400)
                #expect(error.code == "clock_backwards")
            }
        }

        // An expiration an hour after the wall clock is an hour in this clock's past: accepted and
        // dropped, as APNs drops an expired push. The token, signed with the wall clock, is fine.
        let client = try herald.apnsClient()
        let expiring = await Self.result {
            try await client.send(
                APNsPush(
                    deviceToken: herald.demo.deviceToken, topic: herald.demo.topic,
                    payload: Data(#"{"aps":\#(Self.alert)}"#.utf8),
                    expiration: Int64(Date().timeIntervalSince1970) + 3600
                ))
        }
        try await client.shutdown()
        let answer = try expiring.get()
        #expect(answer.status == 200)
        let expiringID = try #require(answer.apnsID).lowercased()
        #expect(try await herald.store.notification(deviceID: herald.demo.deviceID, id: expiringID) == nil)
        let kept = try await Self.push(herald)
        #expect(kept.receivedAt == start.addingTimeInterval(7260))
        try await herald.stop()
    }

    @Test("on the wall clock: the clock reads system and cannot be moved (409 clock_not_manual)")
    func wallClock() async throws {
        let herald = try await RunningHerald.start()
        #expect(herald.application.timeControl == nil)
        let before = Date()
        try await Self.withAdminAPI(herald.runtime, herald.application.adminToken) { api in
            let read = try JSONDecoder().decode(JSONValue.self, from: try await api.clock())
            #expect(read.objectValue?["mode"] == .string("system"))
            let now = try #require(
                read.objectValue?["now"]?.stringValue.flatMap {
                    try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                })
            #expect(abs(now.timeIntervalSince(before)) < 60)
            let moves: [@Sendable () async throws -> Data] = [
                { try await api.advanceClock(seconds: 60) }, { try await api.setClock(to: "2099-01-01T00:00:00Z") },
            ]
            for call in moves {
                do {
                    _ = try await call()
                    Issue.record("a wall clock was moved")
                } catch let error as HeraldAPIError {
                    #expect(error.status == 409)
                    #expect(error.code == "clock_not_manual")
                    #expect(error.message?.contains("herald serve --clock manual") == true)
                }
            }
        }
        try await herald.stop()
    }

    /// Pushes the alert with a fresh APNs client (tokens signed with the wall clock), shut down
    /// whatever happens.
    static func push(_ herald: PolicyHerald) async throws -> StoredNotification {
        let client = try herald.apnsClient()
        let pushed = await Self.result { try await herald.push(alert, client: client) }
        try await client.shutdown()
        return try pushed.get()
    }

    static func result<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// Runs `body` with an admin API client, shut down whatever happens.
    static func withAdminAPI(_ runtime: RuntimeInfo, _ token: String, _ body: (HeraldAPIClient) async throws -> Void)
        async throws
    {
        let api = try HeraldAPIClient(baseURL: URL(string: runtime.apiURL)!, bearerToken: token)
        let result = await Self.result { try await body(api) }
        try await api.shutdown()
        try result.get()
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
