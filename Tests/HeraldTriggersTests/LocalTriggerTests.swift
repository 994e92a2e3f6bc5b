import Foundation
import HeraldTriggers
import Testing

/// The trigger codec both sides use, and when a trigger fires next.
@Suite struct LocalTriggerTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func calendar(_ zone: TimeZone = berlin) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    static func date(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func jsonRoundTrips() throws {
        var components = DateComponents()
        components.hour = 8
        components.minute = 30
        components.weekday = 2
        components.timeZone = TimeZone(identifier: "America/New_York")
        components.calendar = Calendar(identifier: .iso8601)
        let office = LocationRegion(
            identifier: "office", center: Coordinate(latitude: 52.52, longitude: 13.405), radius: 150.5,
            notifiesOnEntry: true, notifiesOnExit: false)
        for trigger in [
            LocalTrigger.timeInterval(90.5, repeats: false), .timeInterval(3600, repeats: true),
            .calendar(components, repeats: true), .location(office, repeats: true),
        ] {
            #expect(try LocalTrigger(jsonText: trigger.jsonText) == trigger)
            #expect(try LocalTrigger(jsonObject: trigger.jsonObject) == trigger)
        }
        #expect(
            LocalTrigger.timeInterval(60, repeats: true).jsonText
                == #"{"repeats":true,"time_interval":60,"type":"time_interval"}"#)
    }

    @Test(arguments: [
        (
            #"{"type":"time_interval","time_interval":30,"repeats":true}"#, "time_interval",
            "time interval must be at least 60 if repeating"
        ),
        (#"{"type":"time_interval","time_interval":0}"#, "time_interval", "time interval must be greater than 0"),
        (#"{"type":"time_interval","time_interval":-5}"#, "time_interval", "greater than 0"),
        (#"{"type":"time_interval","time_interval":3155760001}"#, "time_interval", "at most 100 years"),
        (
            #"{"type":"time_interval","time_interval":6.0777777777777745e+75,"repeats":true}"#, "time_interval",
            "at most 100 years"
        ),
        (#"{"type":"time_interval"}"#, "time_interval", "is required"),
        (#"{"type":"time_interval","time_interval":"60"}"#, "time_interval", "number of seconds"),
        (#"{"type":"time_interval","time_interval":60,"repeats":1}"#, "repeats", "true or false"),
        (#"{"type":"calendar","date_components":{}}"#, "date_components", "at least one"),
        (#"{"type":"calendar","date_components":{"hour":8.5}}"#, "date_components.hour", "integer"),
        (#"{"type":"calendar","date_components":{"hour":true}}"#, "date_components.hour", "integer"),
        (
            #"{"type":"calendar","date_components":{"hour":8,"time_zone":"Mars/Olympus"}}"#,
            "date_components.time_zone", "time zone"
        ),
        (
            #"{"type":"calendar","date_components":{"hour":8,"calendar":"klingon"}}"#, "date_components.calendar",
            "one of"
        ),
        (#"{"type":"calendar","date_components":{"hour":8,"hours":9}}"#, "date_components.hours", "not a field"),
        (#"{"type":"location"}"#, "region", "is required"),
        (#"{"type":"location","region":[]}"#, "region", "object"),
        (#"{"type":"location","region":{"latitude":1,"longitude":2,"radius":3}}"#, "region.identifier", "string"),
        (
            #"{"type":"location","region":{"identifier":"x","latitude":91,"longitude":2,"radius":3}}"#,
            "region.latitude", "-90 to 90"
        ),
        (
            #"{"type":"location","region":{"identifier":"x","latitude":1,"longitude":-181,"radius":3}}"#,
            "region.longitude", "-180 to 180"
        ),
        (
            #"{"type":"location","region":{"identifier":"x","latitude":1,"longitude":2,"radius":0}}"#,
            "region.radius", "more than 0"
        ),
        (
            #"{"type":"location","region":{"identifier":"x","latitude":"1","longitude":2,"radius":3}}"#,
            "region.latitude", "number"
        ),
        (
            #"{"type":"location","region":{"identifier":"x","latitude":1,"longitude":2,"radius":3,"notify_on_exit":0}}"#,
            "region.notify_on_exit", "true or false"
        ),
        (
            #"{"type":"location","region":{"identifier":"x","latitude":1,"longitude":2,"radius":3,"r":1}}"#,
            "region.r", "not a field"
        ),
        (#"{"type":"sometimes"}"#, "type", "must be"),
        (#"{"time_interval":60}"#, "type", "is required"),
        (#"[1]"#, "trigger", "object"),
    ])
    func badTriggersNameTheirField(_ json: String, _ field: String, _ rule: String) {
        let error = #expect(throws: LocalTrigger.JSONError.self) { try LocalTrigger(jsonText: json) }
        #expect(error?.field == field)
        #expect(error?.rule.contains(rule) == true, "\(error?.rule ?? "")")
    }

    @Test func timeIntervalsKeepTheirPhaseAndDoNotMakeUpMissedPeriods() {
        let added = Self.date("2026-03-01T10:00:30Z")
        let trigger = LocalTrigger.timeInterval(60, repeats: true)
        let first = trigger.firstFireDate(addedAt: added, calendar: Self.calendar())!
        #expect(first == Self.date("2026-03-01T10:01:30Z"))
        // Fired on time: the next minute.
        #expect(
            trigger.nextFireDate(afterFiringAt: first, now: first, calendar: Self.calendar())
                == Self.date("2026-03-01T10:02:30Z"))
        // Fired ten minutes late (the server was down): once, then the next period after now.
        #expect(
            trigger.nextFireDate(
                afterFiringAt: first, now: Self.date("2026-03-01T10:11:40Z"), calendar: Self.calendar())
                == Self.date("2026-03-01T10:12:30Z"))
        #expect(
            LocalTrigger.timeInterval(60, repeats: false).nextFireDate(
                afterFiringAt: first, now: first, calendar: Self.calendar()) == nil)
    }

    @Test func calendarTriggersMatchInTheDevicesTimeZone() {
        var components = DateComponents()
        components.hour = 8
        let trigger = LocalTrigger.calendar(components, repeats: true)
        let added = Self.date("2026-03-01T10:00:00Z")  // 11:00 in Berlin
        let first = trigger.firstFireDate(addedAt: added, calendar: Self.calendar())!
        #expect(first == Self.date("2026-03-02T07:00:00Z"))  // 08:00 in Berlin, the next day
        // Across the spring-forward change (Berlin, 2026-03-29): still 08:00 local.
        let beforeChange = Self.date("2026-03-28T07:00:00Z")
        #expect(
            trigger.nextFireDate(afterFiringAt: beforeChange, now: beforeChange, calendar: Self.calendar())
                == Self.date("2026-03-29T06:00:00Z"))
        // The same components in New York fire at New York's 08:00.
        #expect(
            trigger.firstFireDate(addedAt: added, calendar: Self.calendar(TimeZone(identifier: "America/New_York")!))
                == Self.date("2026-03-01T13:00:00Z"))
        // A one-off date in the past never fires.
        var past = DateComponents()
        past.year = 2020
        past.month = 1
        past.day = 1
        past.hour = 9
        #expect(
            LocalTrigger.calendar(past, repeats: false).firstFireDate(addedAt: added, calendar: Self.calendar()) == nil)
    }

    @Test func aNonexistentLocalTimeFiresAtTheFirstValidTimeAfterIt() {
        var components = DateComponents()
        components.month = 3
        components.day = 29
        components.hour = 2
        components.minute = 30
        let next = CalendarMatching.nextDate(
            after: Self.date("2026-03-01T00:00:00Z"), matching: components, in: Self.calendar())
        #expect(next == Self.date("2026-03-29T01:00:00Z"))  // 03:00 CEST
    }

    @Test func locationRegionsFireOnTheCrossingsTheyAskFor() throws {
        // Brandenburg Gate, 100 m; the Reichstag is about 420 m away, Potsdamer Platz about 1 km.
        let gate = Coordinate(latitude: 52.516275, longitude: 13.377704)
        let nearby = Coordinate(latitude: 52.51650, longitude: 13.37820)  // ~40 m
        let reichstag = Coordinate(latitude: 52.518620, longitude: 13.376198)
        #expect(abs(gate.distance(to: reichstag) - 280) < 15)
        #expect(
            abs(Coordinate(latitude: 0, longitude: 0).distance(to: Coordinate(latitude: 0, longitude: 1)) - 111_195) < 1
        )
        let both = LocationRegion(
            identifier: "gate", center: gate, radius: 100, notifiesOnEntry: true, notifiesOnExit: true)
        #expect(both.contains(nearby))
        #expect(!both.contains(reichstag))
        #expect(both.crossing(from: reichstag, to: nearby) == .entry)
        #expect(both.crossing(from: nearby, to: reichstag) == .exit)
        #expect(both.crossing(from: nearby, to: gate) == nil)  // inside to inside
        #expect(both.crossing(from: reichstag, to: reichstag) == nil)
        #expect(both.crossing(from: nil, to: nearby) == .entry)  // unknown counts as outside
        #expect(both.crossing(from: nil, to: reichstag) == nil)
        var entryOnly = both
        entryOnly.notifiesOnExit = false
        #expect(entryOnly.crossing(from: nearby, to: reichstag) == nil)
        #expect(entryOnly.crossing(from: reichstag, to: nearby) == .entry)
        var exitOnly = both
        exitOnly.notifiesOnEntry = false
        #expect(exitOnly.crossing(from: reichstag, to: nearby) == nil)
        // A location trigger fires on no date.
        let trigger = LocalTrigger.location(both, repeats: true)
        #expect(trigger.firstFireDate(addedAt: Date(), calendar: Self.calendar()) == nil)
        #expect(trigger.nextFireDate(afterFiringAt: Date(), now: Date(), calendar: Self.calendar()) == nil)
        // The JSON defaults: entry and exit both notify, as CLRegion's do.
        let parsed = try LocalTrigger(
            jsonText: #"{"type":"location","region":{"identifier":"g","latitude":52.5,"longitude":13.4,"radius":50}}"#)
        guard case .location(let region, let repeats) = parsed else {
            Issue.record("not a location trigger")
            return
        }
        #expect(region.notifiesOnEntry && region.notifiesOnExit && !repeats)
    }

    /// Found by the local-trigger fuzz target: with no coarser time component, Foundation matches a
    /// `nanosecond` within the second it starts from, so nanosecond 500000001 after 23:59:59.75 gave
    /// 23:59:59.5 — before the request was added, and a next fire date that was not after `now`.
    @Test func aSubSecondMatchIsStrictlyAfterTheDate() throws {
        var components = DateComponents()
        components.nanosecond = 500_000_001
        let trigger = LocalTrigger.calendar(components, repeats: true)
        let added = Self.date("2025-12-31T23:59:59Z").addingTimeInterval(0.75)
        let first = try #require(trigger.firstFireDate(addedAt: added, calendar: Self.calendar(.gmt)))
        #expect(first > added)
        #expect(abs(first.timeIntervalSince(Self.date("2026-01-01T00:00:00Z")) - 0.5) < 0.001)
        let late = first.addingTimeInterval(0.25)
        let next = try #require(trigger.nextFireDate(afterFiringAt: first, now: late, calendar: Self.calendar(.gmt)))
        #expect(next > late)
        #expect(abs(next.timeIntervalSince(first) - 1) < 0.001)
    }

    /// Components that name a calendar but no time zone are local times of the device: the named
    /// calendar's own time zone (the process's that decoded it) does not count.
    @Test func aNamedCalendarWithoutATimeZoneMatchesInTheDevicesZone() throws {
        var tokyo = Calendar(identifier: .iso8601)
        tokyo.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        var components = DateComponents()
        components.calendar = tokyo
        components.hour = 8
        let trigger = LocalTrigger.calendar(components, repeats: true)
        let first = try #require(
            trigger.firstFireDate(addedAt: Self.date("2026-06-01T00:00:00Z"), calendar: Self.calendar()))
        #expect(first == Self.date("2026-06-01T06:00:00Z"))  // 08:00 in Berlin (CEST), not in Tokyo
        // Decoded from its JSON (the calendar by name only), the same.
        let decoded = try LocalTrigger(jsonText: trigger.jsonText)
        #expect(decoded.firstFireDate(addedAt: Self.date("2026-06-01T00:00:00Z"), calendar: Self.calendar()) == first)
    }

    /// A match after year 9999 never fires (its milliseconds would not fit the store), and the
    /// longest interval Herald takes still does.
    @Test func fireDatesStayWithinWhatTheStoreKeeps() {
        var components = DateComponents()
        components.year = 10_001
        components.month = 1
        components.day = 1
        #expect(
            LocalTrigger.calendar(components, repeats: false).firstFireDate(
                addedAt: Self.date("2026-01-01T00:00:00Z"), calendar: Self.calendar()) == nil)
        let longest = LocalTrigger.timeInterval(LocalTrigger.maximumTimeInterval, repeats: true)
        let added = Self.date("2026-01-01T00:00:00Z")
        #expect(
            longest.firstFireDate(addedAt: added, calendar: Self.calendar()) == added.addingTimeInterval(3_155_760_000))
        // Apple's rule (what the app's trigger initializer applies) has no bound: only the server's
        // reading of a trigger has Herald's.
        #expect(LocalTrigger.refusal(timeInterval: 1e10, repeats: false) == nil)
        #expect(throws: LocalTrigger.JSONError.self) {
            try LocalTrigger(jsonText: LocalTrigger.timeInterval(1e10, repeats: false).jsonText)
        }
    }

    /// Found by the local-trigger fuzz target (`weekday` 2, `weekday_ordinal` 6 in the ISO 8601
    /// calendar; the server's thread spun for minutes) and by a random search of component sets in
    /// every calendar: values no date has, which Foundation never returns for, never fire — at once.
    @Test func valuesNoDateHasNeverFireWithoutAskingFoundation() throws {
        let added = Self.date("2026-03-29T00:30:00Z")
        func fires(_ json: String) throws -> Date? {
            try LocalTrigger(jsonText: #"{"type":"calendar","repeats":true,"date_components":"# + json + "}")
                .firstFireDate(addedAt: added, calendar: Self.calendar())
        }
        // Each of these took Foundation minutes (or forever) before.
        #expect(try fires(#"{"weekday":2,"weekday_ordinal":6,"hour":2,"minute":30,"calendar":"iso8601"}"#) == nil)
        #expect(try fires(#"{"weekday_ordinal":6}"#) == nil)
        #expect(try fires(#"{"week_of_month":0,"calendar":"iso8601"}"#) == nil)
        #expect(try fires(#"{"day":1,"week_of_year":53,"calendar":"chinese"}"#) == nil)
        // Out of the calendar's range: never.
        #expect(try fires(#"{"month":13}"#) == nil)
        #expect(try fires(#"{"hour":24}"#) == nil)
        #expect(try fires(#"{"weekday":0}"#) == nil)
        // In range, as before: the 5th Tuesday of February (2028), the 13th month of a Hebrew leap
        // year, and the Chinese calendar's months and days — the lunar new year 2027 on February 6.
        #expect(
            try fires(#"{"weekday":3,"weekday_ordinal":5,"month":2,"hour":9}"#) == Self.date("2028-02-29T08:00:00Z"))
        #expect(try fires(#"{"month":13,"day":1,"calendar":"hebrew"}"#) != nil)
        var chinese = Calendar(identifier: .chinese)
        chinese.timeZone = Self.berlin
        let newYear = try #require(try fires(#"{"month":1,"day":1,"hour":0,"calendar":"chinese"}"#))
        #expect(newYear == Self.date("2027-02-05T23:00:00Z"))
        #expect(chinese.component(.month, from: newYear) == 1 && chinese.component(.day, from: newYear) == 1)
        // A day no month has uses all 16 passes and gives up: nil, not a wrong day.
        #expect(try fires(#"{"month":2,"day":31,"weekday":1}"#) == nil)
    }
}
