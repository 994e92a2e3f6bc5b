// Triggers: the calendar trigger's next date across DST changes, month ends and leap days (fixed
// time zones and a fixed "now"), the time-interval trigger, Apple's refusals (the process stops,
// as Apple's exception stops an app), and the location trigger's region.
#if os(Linux)
    import CoreLocation
    import Foundation
    import Testing
    import UserNotifications

    /// A Gregorian calendar in the named time zone (the device's calendar in these tests).
    func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    /// An instant written as UTC "yyyy-MM-dd HH:mm".
    func utc(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    func components(
        year: Int? = nil, month: Int? = nil, day: Int? = nil, hour: Int? = nil, minute: Int? = nil,
        weekday: Int? = nil, timeZone: String? = nil
    ) -> DateComponents {
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.weekday = weekday
        components.timeZone = timeZone.flatMap(TimeZone.init(identifier:))
        return components
    }

    @Suite("UNCalendarNotificationTrigger.nextTriggerDate")
    struct CalendarTriggerTests {
        let newYork = calendar("America/New_York")
        let berlin = calendar("Europe/Berlin")

        @Test("only hour=8: the next 08:00 of the device's time zone, then daily")
        func hourOnly() {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(hour: 8), repeats: true)
            // 2026-01-10 10:00 in New York (EST, UTC-5) is 15:00 UTC.
            let first = trigger.nextTriggerDate(after: utc("2026-01-10 15:00"), in: newYork)
            #expect(first == utc("2026-01-11 13:00"))
            #expect(trigger.nextTriggerDate(after: first!, in: newYork) == utc("2026-01-12 13:00"))
            // Before 08:00 the same day's 08:00 comes first.
            #expect(trigger.nextTriggerDate(after: utc("2026-01-10 12:00"), in: newYork) == utc("2026-01-10 13:00"))
        }

        @Test("a time skipped by spring-forward fires at the first valid time after it (New York, 2026-03-08)")
        func springForwardNewYork() {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(hour: 2, minute: 30), repeats: true)
            // 02:00 EST jumps to 03:00 EDT (07:00 UTC): 02:30 does not exist that day.
            let first = trigger.nextTriggerDate(after: utc("2026-03-07 17:00"), in: newYork)
            #expect(first == utc("2026-03-08 07:00"))
            // The next day 02:30 exists again (EDT, UTC-4).
            #expect(trigger.nextTriggerDate(after: first!, in: newYork) == utc("2026-03-09 06:30"))
        }

        @Test("a time skipped by spring-forward fires at the first valid time after it (Berlin, 2026-03-29)")
        func springForwardBerlin() {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(hour: 2, minute: 30), repeats: false)
            // 02:00 CET jumps to 03:00 CEST (01:00 UTC).
            #expect(trigger.nextTriggerDate(after: utc("2026-03-28 12:00"), in: berlin) == utc("2026-03-29 01:00"))
        }

        @Test("a time repeated by fall-back fires at its first occurrence only (New York, 2026-11-01)")
        func fallBackNewYork() {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(hour: 1, minute: 30), repeats: true)
            // 01:30 happens at 05:30 UTC (EDT) and again at 06:30 UTC (EST); the first one fires.
            let first = trigger.nextTriggerDate(after: utc("2026-10-31 16:00"), in: newYork)
            #expect(first == utc("2026-11-01 05:30"))
            // Not again an hour later: the next is the following day's 01:30 EST.
            #expect(trigger.nextTriggerDate(after: first!, in: newYork) == utc("2026-11-02 06:30"))
        }

        @Test("a time repeated by fall-back fires at its first occurrence (Berlin, 2026-10-25)")
        func fallBackBerlin() {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(hour: 2, minute: 30), repeats: false)
            // 02:30 happens at 00:30 UTC (CEST) and 01:30 UTC (CET).
            #expect(trigger.nextTriggerDate(after: utc("2026-10-24 12:00"), in: berlin) == utc("2026-10-25 00:30"))
        }

        @Test("an explicit time zone in the components is an absolute instant, whatever the device's zone")
        func explicitTimeZone() {
            let trigger = UNCalendarNotificationTrigger(
                dateMatching: components(year: 2026, month: 6, day: 1, hour: 9, minute: 0, timeZone: "Europe/Berlin"),
                repeats: false)
            let now = utc("2026-05-01 00:00")
            // 09:00 CEST is 07:00 UTC, in New York and in Berlin alike.
            #expect(trigger.nextTriggerDate(after: now, in: newYork) == utc("2026-06-01 07:00"))
            #expect(trigger.nextTriggerDate(after: now, in: berlin) == utc("2026-06-01 07:00"))
            // Without the zone the same components follow the device.
            let local = UNCalendarNotificationTrigger(
                dateMatching: components(year: 2026, month: 6, day: 1, hour: 9, minute: 0), repeats: false)
            #expect(local.nextTriggerDate(after: now, in: newYork) == utc("2026-06-01 13:00"))
        }

        @Test("day 31 fires only in months that have one")
        func monthEnd() {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(day: 31, hour: 9), repeats: true)
            // After 2026-03-31 09:00 Berlin (07:00 UTC): April has no 31st; May 31 09:00 CEST.
            let next = trigger.nextTriggerDate(after: utc("2026-03-31 08:00"), in: berlin)
            #expect(next == utc("2026-05-31 07:00"))
        }

        @Test("February 29 fires only in leap years; February 30 never")
        func leapDay() {
            let leap = UNCalendarNotificationTrigger(
                dateMatching: components(month: 2, day: 29, hour: 9), repeats: true)
            #expect(leap.nextTriggerDate(after: utc("2026-03-01 00:00"), in: newYork) == utc("2028-02-29 14:00"))
            let never = UNCalendarNotificationTrigger(
                dateMatching: components(month: 2, day: 30, hour: 9), repeats: true)
            #expect(never.nextTriggerDate(after: utc("2026-03-01 00:00"), in: newYork) == nil)
        }

        @Test("a one-off date in the past has no next date; nor do empty components")
        func noDate() {
            let past = UNCalendarNotificationTrigger(
                dateMatching: components(year: 2020, month: 1, day: 1, hour: 9), repeats: false)
            #expect(past.nextTriggerDate(after: utc("2026-01-01 00:00"), in: newYork) == nil)
            let empty = UNCalendarNotificationTrigger(dateMatching: DateComponents(), repeats: true)
            #expect(empty.nextTriggerDate(after: utc("2026-01-01 00:00"), in: newYork) == nil)
        }

        @Test("a weekday and hour: the next such weekday")
        func weekday() {
            // weekday 2 = Monday. 2026-01-07 is a Wednesday; the next Monday is 2026-01-12.
            let trigger = UNCalendarNotificationTrigger(
                dateMatching: components(hour: 9, minute: 15, weekday: 2), repeats: true)
            #expect(trigger.nextTriggerDate(after: utc("2026-01-07 12:00"), in: berlin) == utc("2026-01-12 08:15"))
        }

        @Test("the public nextTriggerDate() uses the current calendar and now")
        func publicSpelling() throws {
            let trigger = UNCalendarNotificationTrigger(dateMatching: components(minute: 0), repeats: true)
            let next = try #require(trigger.nextTriggerDate())
            #expect(next > Date() && next.timeIntervalSinceNow <= 3600)
            #expect(trigger.dateComponents.minute == 0)
        }
    }

    @Suite("UNTimeIntervalNotificationTrigger")
    struct TimeIntervalTriggerTests {
        @Test("the next date is the interval from now")
        func nextDate() throws {
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 90, repeats: true)
            #expect(trigger.timeInterval == 90 && trigger.repeats)
            #expect(
                trigger.nextTriggerDate(after: utc("2026-01-01 00:00"))
                    == utc("2026-01-01 00:01").addingTimeInterval(30))
            let next = try #require(trigger.nextTriggerDate())
            #expect(abs(next.timeIntervalSinceNow - 90) < 5)
        }

        @Test("Apple's messages for the intervals it refuses")
        func refusals() {
            #expect(
                UNTimeIntervalNotificationTrigger.refusal(timeInterval: 0, repeats: false)
                    == "time interval must be greater than 0")
            #expect(
                UNTimeIntervalNotificationTrigger.refusal(timeInterval: -1, repeats: false)
                    == "time interval must be greater than 0")
            #expect(
                UNTimeIntervalNotificationTrigger.refusal(timeInterval: .nan, repeats: false)
                    == "time interval must be greater than 0")
            #expect(
                UNTimeIntervalNotificationTrigger.refusal(timeInterval: 59.9, repeats: true)
                    == "time interval must be at least 60 if repeating")
            #expect(UNTimeIntervalNotificationTrigger.refusal(timeInterval: 60, repeats: true) == nil)
            #expect(UNTimeIntervalNotificationTrigger.refusal(timeInterval: 0.5, repeats: false) == nil)
        }

        @Test("a repeating interval under 60 s stops the program, as Apple's exception does")
        func repeatingUnderAMinuteStops() async {
            await #expect(processExitsWith: .failure) {
                _ = UNTimeIntervalNotificationTrigger(timeInterval: 30, repeats: true)
            }
        }

        @Test("a zero interval stops the program, as Apple's exception does")
        func zeroStops() async {
            await #expect(processExitsWith: .failure) {
                _ = UNTimeIntervalNotificationTrigger(timeInterval: 0, repeats: false)
            }
        }
    }

    @Suite("UNLocationNotificationTrigger and the region types")
    struct LocationTriggerTests {
        @Test("the trigger keeps its own copy of the region; contains() measures on the globe")
        func region() {
            let center = CLLocationCoordinate2D(latitude: 37.335400, longitude: -122.008997)
            let region = CLCircularRegion(center: center, radius: 2000.0, identifier: "Headquarters")
            region.notifyOnEntry = true
            region.notifyOnExit = false
            let trigger = UNLocationNotificationTrigger(region: region, repeats: false)
            region.notifyOnExit = true
            let kept = trigger.region as? CLCircularRegion
            #expect(kept?.notifyOnExit == false && kept?.notifyOnEntry == true)
            #expect(kept?.identifier == "Headquarters" && kept?.radius == 2000)
            // ~1.1 km north is inside, ~3.3 km north is not.
            #expect(region.contains(CLLocationCoordinate2D(latitude: 37.3454, longitude: -122.008997)))
            #expect(!region.contains(CLLocationCoordinate2D(latitude: 37.3654, longitude: -122.008997)))
            #expect(
                CLLocationCoordinate2DIsValid(center)
                    && !CLLocationCoordinate2DIsValid(CLLocationCoordinate2DMake(91, 0)))
        }

        @Test("a location trigger survives a secure keyed archive")
        func roundTrip() throws {
            let region = CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: 52.52, longitude: 13.405), radius: 150, identifier: "Berlin")
            region.notifyOnEntry = false
            let trigger = UNLocationNotificationTrigger(region: region, repeats: true)
            let data = try NSKeyedArchiver.archivedData(withRootObject: trigger, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: UNLocationNotificationTrigger.self, from: data))
            #expect(decoded == trigger)
            #expect(decoded.region.notifyOnEntry == false)
        }
    }
#endif
