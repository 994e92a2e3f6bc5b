import Foundation
import HeraldPolicy
import Testing

/// `FocusModes.active(at:in:)`: schedules, midnight, days in the person's zone, manual switches.
@Suite("Focus schedules")
struct FocusScheduleTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// An instant given as a wall-clock time in Berlin.
    func berlin(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    let work = FocusMode(
        id: "work", name: "Work", kind: .work,
        schedules: [
            FocusSchedule(days: .weekdays, start: TimeOfDay(hour: 9), end: TimeOfDay(hour: 17))
        ])
    let sleep = FocusMode(
        id: "sleep", name: "Sleep", kind: .sleep,
        schedules: [
            FocusSchedule(days: [.friday], start: TimeOfDay(hour: 22), end: TimeOfDay(hour: 7))
        ])

    @Test("A weekday schedule is on inside its hours, off outside and at the weekend")
    func weekdaySchedule() {
        let modes = FocusModes([work])
        // 2027-01-15 is a Friday, 2027-01-16 a Saturday.
        let on = modes.active(at: berlin(2027, 1, 15, 9, 30), in: berlin)
        #expect(on?.mode.id == "work" && on?.activation == .scheduled)
        #expect(on?.since == berlin(2027, 1, 15, 9) && on?.until == berlin(2027, 1, 15, 17))
        #expect(modes.active(at: berlin(2027, 1, 15, 17), in: berlin) == nil, "the end is exclusive")
        #expect(modes.active(at: berlin(2027, 1, 15, 8, 59), in: berlin) == nil)
        #expect(modes.active(at: berlin(2027, 1, 16, 10), in: berlin) == nil)
    }

    @Test("A schedule crossing midnight runs into the next day, which need not be a listed day")
    func crossesMidnight() {
        let modes = FocusModes([sleep])
        #expect(modes.active(at: berlin(2027, 1, 15, 23), in: berlin)?.mode.id == "sleep")
        let saturdayMorning = modes.active(at: berlin(2027, 1, 16, 6, 59), in: berlin)
        #expect(saturdayMorning?.until == berlin(2027, 1, 16, 7))
        #expect(modes.active(at: berlin(2027, 1, 16, 7), in: berlin) == nil)
        #expect(modes.active(at: berlin(2027, 1, 16, 23), in: berlin) == nil, "Saturday is not a start day")
    }

    @Test("Days of the week are read in the person's time zone")
    func dayInZone() {
        // Friday 23:30 in Berlin is already Saturday in Tokyo and still Friday in UTC.
        let instant = berlin(2027, 1, 15, 23, 30)
        let lateWork = FocusMode(
            id: "late", name: "Late",
            schedules: [
                FocusSchedule(days: [.friday], start: TimeOfDay(hour: 23), end: TimeOfDay(hour: 23, minute: 59))
            ])
        #expect(FocusModes([lateWork]).active(at: instant, in: berlin) != nil)
        #expect(FocusModes([lateWork]).active(at: instant, in: TimeZone(identifier: "Asia/Tokyo")!) == nil)
    }

    @Test("Manual on overrides schedules; its end time ends it; the latest manual wins")
    func manualOverrides() {
        var reading = FocusMode(id: "reading", name: "Reading", kind: .reading)
        reading.manual = .on(since: berlin(2027, 1, 15, 10), until: berlin(2027, 1, 15, 11))
        var modes = FocusModes([work, reading])
        #expect(modes.active(at: berlin(2027, 1, 15, 10, 30), in: berlin)?.mode.id == "reading")
        #expect(modes.active(at: berlin(2027, 1, 15, 11), in: berlin)?.mode.id == "work", "back to the schedule")

        var dnd = FocusMode(id: "dnd", name: "Do Not Disturb", kind: .doNotDisturb)
        dnd.manual = .on(since: berlin(2027, 1, 15, 10, 15), until: nil)
        modes.modes.append(dnd)
        let active = modes.active(at: berlin(2027, 1, 15, 10, 30), in: berlin)
        #expect(active?.mode.id == "dnd" && active?.until == nil)
    }

    @Test("Manual off cancels the current scheduled window only")
    func manualOff() {
        var turnedOff = work
        turnedOff.manual = .off(since: berlin(2027, 1, 14, 12))
        let modes = FocusModes([turnedOff])
        #expect(modes.active(at: berlin(2027, 1, 14, 13), in: berlin) == nil)
        #expect(modes.active(at: berlin(2027, 1, 15, 10), in: berlin)?.mode.id == "work")
    }

    @Test("Overlapping schedules: the window that started last wins")
    func overlappingSchedules() {
        let evening = FocusMode(
            id: "evening", name: "Evening",
            schedules: [
                FocusSchedule(days: .everyDay, start: TimeOfDay(hour: 16), end: TimeOfDay(hour: 20))
            ])
        let modes = FocusModes([evening, work])
        #expect(modes.active(at: berlin(2027, 1, 15, 15), in: berlin)?.mode.id == "work")
        #expect(modes.active(at: berlin(2027, 1, 15, 16, 30), in: berlin)?.mode.id == "evening")
    }

    @Test("The next change is the nearest start, end or manual end")
    func nextChange() {
        let modes = FocusModes([work, sleep])
        #expect(modes.nextChange(after: berlin(2027, 1, 15, 12), in: berlin) == berlin(2027, 1, 15, 17))
        #expect(modes.nextChange(after: berlin(2027, 1, 15, 17), in: berlin) == berlin(2027, 1, 15, 22))
        #expect(modes.nextChange(after: berlin(2027, 1, 16, 8), in: berlin) == berlin(2027, 1, 18, 9))
    }

    @Test("Across a DST change a schedule keeps its wall-clock hours")
    func dstSchedule() {
        // Berlin moves to summer time on 2027-03-28 (a Sunday).
        let daily = FocusMode(
            id: "d", name: "D",
            schedules: [
                FocusSchedule(days: .everyDay, start: TimeOfDay(hour: 1), end: TimeOfDay(hour: 4))
            ])
        let active = FocusModes([daily]).active(at: berlin(2027, 3, 28, 3, 30), in: berlin)
        #expect(active?.since == berlin(2027, 3, 28, 1) && active?.until == berlin(2027, 3, 28, 4))
        let length = active.flatMap { focus in focus.until.map { $0.timeIntervalSince(focus.since) } }
        #expect(length == 7200, "the night is an hour shorter: \(String(describing: length))")
    }

    @Test("Person handles normalise phone numbers and e-mail addresses")
    func handles() {
        #expect(PersonHandle("+1 (555) 010-0200", kind: .phoneNumber).value == "+15550100200")
        #expect(
            PersonHandle("+1 555 010 0200", kind: .phoneNumber).matches(
                PersonHandle("555.010.0200", kind: .phoneNumber)))
        #expect(!PersonHandle("0200", kind: .phoneNumber).matches(PersonHandle("+1 555 010 0200", kind: .phoneNumber)))
        #expect(
            PersonHandle(" Alice@Example.COM", kind: .emailAddress)
                == PersonHandle("alice@example.com", kind: .emailAddress))
        #expect(PersonHandle("Alice", kind: .appSpecific) != PersonHandle("alice", kind: .appSpecific))
        #expect(PersonHandle("a@b.c", kind: .emailAddress) != PersonHandle("a@b.c", kind: .appSpecific))
    }
}
