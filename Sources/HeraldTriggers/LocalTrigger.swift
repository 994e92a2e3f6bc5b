import Foundation

/// What makes a local notification fire, as Herald stores and schedules it: Apple's time-interval,
/// calendar and location triggers (`UNTimeIntervalNotificationTrigger`, `UNCalendarNotificationTrigger`,
/// `UNLocationNotificationTrigger`).
///
/// One definition for both sides: the `UserNotifications` module encodes its triggers with it and
/// computes `nextTriggerDate()` with it, and the server decodes, validates and schedules with it, so
/// the app and the scheduler cannot disagree on when a trigger fires. Foundation only.
public enum LocalTrigger: Hashable, Sendable {
    /// Fires `interval` seconds after the request was added; repeating, every `interval` seconds.
    case timeInterval(TimeInterval, repeats: Bool)
    /// Fires at the next date matching the components in the device's calendar and time zone (the
    /// components' own calendar or time zone when they carry one); repeating, at every match.
    case calendar(DateComponents, repeats: Bool)
    /// Fires when the device's reported location enters and/or leaves the region (not on a date);
    /// repeating, at every such crossing.
    case location(LocationRegion, repeats: Bool)

    public var repeats: Bool {
        switch self {
        case .timeInterval(_, let repeats), .calendar(_, let repeats), .location(_, let repeats): repeats
        }
    }

    /// The longest time interval Herald schedules: 100 years. Apple sets no bound; beyond it a fire
    /// date means nothing, and a far enough one does not fit the store's milliseconds.
    public static let maximumTimeInterval: TimeInterval = 100 * 365.25 * 86_400

    /// The latest fire date Herald keeps (the end of year 9999 UTC): a calendar match after it never
    /// fires (as a past date never does), so every date the store writes fits its milliseconds.
    public static let latestFireDate = Date(timeIntervalSince1970: 253_402_300_799)

    /// Apple's exception message for an interval it refuses, or nil when the interval is valid:
    /// not positive, or under 60 s when repeating. (Herald's own bound, `maximumTimeInterval`, is
    /// checked where the server reads a trigger: an app may make such a trigger, as on iOS.)
    public static func refusal(timeInterval: TimeInterval, repeats: Bool) -> String? {
        if !(timeInterval > 0) || !timeInterval.isFinite { return "time interval must be greater than 0" }
        if repeats && timeInterval < 60 { return "time interval must be at least 60 if repeating" }
        return nil
    }

    /// `date` when Herald can keep it, else nil (it never fires).
    static func schedulable(_ date: Date?) -> Date? {
        guard let date, date <= latestFireDate else { return nil }
        return date
    }

    /// When a request added at `addedAt` first fires; nil when it never does (a calendar date that
    /// is past or impossible) or fires on no date (a location trigger). `calendar` is the device's
    /// (its time zone matters).
    public func firstFireDate(addedAt: Date, calendar: Calendar) -> Date? {
        switch self {
        case .timeInterval(let interval, _):
            Self.schedulable(addedAt.addingTimeInterval(interval))
        case .calendar(let components, _):
            Self.schedulable(CalendarMatching.nextDate(after: addedAt, matching: components, in: calendar))
        case .location:
            nil
        }
    }

    /// After a firing scheduled at `scheduled` (handled at `now`, which may be later when the server
    /// was down): the next fire date of a repeating trigger, strictly after `now` — a repeating
    /// trigger that came due several times while nobody ran it fires once, not once per missed
    /// period — or nil when the trigger does not repeat.
    public func nextFireDate(afterFiringAt scheduled: Date, now: Date, calendar: Calendar) -> Date? {
        guard repeats else { return nil }
        let after = max(scheduled, now)
        switch self {
        case .timeInterval(let interval, _):
            // The periods keep their phase: added at 10:00:30 every 60 s fires at :30 each minute.
            let elapsed = after.timeIntervalSince(scheduled)
            let periods = (elapsed / interval).rounded(.down) + 1
            return Self.schedulable(scheduled.addingTimeInterval(periods * interval))
        case .calendar(let components, _):
            return Self.schedulable(CalendarMatching.nextDate(after: after, matching: components, in: calendar))
        case .location:
            return nil
        }
    }
}

/// Matching `DateComponents` against a calendar, as Apple documents for
/// `UNCalendarNotificationTrigger.nextTriggerDate()`.
public enum CalendarMatching {
    /// The components that select days (a match on these must not be moved to another day).
    static let dayLevelComponents: [Calendar.Component] = [
        .era, .year, .month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .weekOfYear, .yearForWeekOfYear,
    ]

    /// The components that can be matched (calendar and time zone are not components to match).
    static let matchableComponents: [Calendar.Component] = dayLevelComponents + [.hour, .minute, .second, .nanosecond]

    /// Whether the components set anything that can be matched.
    public static func hasMatchableComponent(_ components: DateComponents) -> Bool {
        matchableComponents.contains { components.value(for: $0) != nil }
    }

    /// The components whose values a calendar bounds: a value outside the calendar's
    /// `maximumRange(of:)` is on no date. (Not the era and years: their ranges are reported wrongly,
    /// a Gregorian `yearForWeekOfYear` as 140742..<144684.)
    static let boundedComponents: [Calendar.Component] = [
        .month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .weekOfYear, .hour, .minute, .second, .nanosecond,
    ]

    /// What the Chinese calendar does not match here: its weeks spin Foundation (`weekOfYear`) or take it
    /// seconds a call (`weekOfMonth`), as do its eras, cyclic years and weekday ordinals (up to 2 s
    /// for one search in a release build). Its months and days — the lunar new year — match.
    static let chineseUnmatched: [Calendar.Component] = [
        .era, .year, .yearForWeekOfYear, .weekdayOrdinal, .weekOfMonth, .weekOfYear,
    ]

    /// Whether some date could have these values in `calendar`; false when one is out of its range.
    ///
    /// Checked before Foundation is asked: `Calendar.nextDate(after:matching:…)` never returns for
    /// some values no date has — `weekdayOrdinal` 6 in any calendar, `weekOfMonth` 0 in the ISO 8601
    /// calendar, any `weekOfYear` in the Chinese calendar (found by the local-trigger fuzz target and
    /// a random search of component sets in every calendar Herald accepts; a release build spun for
    /// minutes) — which would hang the thread of the request that adds such a trigger. A weekday
    /// ordinal counts from the month's start (1 to 5; the Chinese calendar's reported range starts
    /// at −1), a week of the month from 1; see `chineseUnmatched`.
    static func isPossible(_ matching: DateComponents, in calendar: Calendar) -> Bool {
        if calendar.identifier == .chinese,
            chineseUnmatched.contains(where: { matching.value(for: $0) != nil })
        {
            return false
        }
        for component in boundedComponents {
            guard let value = matching.value(for: component) else { continue }
            switch component {
            case .weekdayOrdinal: guard (1...5).contains(value) else { return false }
            case .weekOfMonth: guard value >= 1 else { return false }
            default: break
            }
            if let range = calendar.maximumRange(of: component), !range.contains(value) { return false }
        }
        return true
    }

    /// The first date strictly after `date` that matches `components`, in `calendar` (its time zone
    /// is the device's) unless the components carry their own calendar or time zone (an explicit
    /// time zone makes the components an absolute instant). Apple's documented behaviour:
    /// - a wall-clock time that does not exist (skipped by a spring-forward change) fires at the first
    ///   valid time after it (02:30 on a day that jumps from 02:00 to 03:00 fires at 03:00);
    /// - a time that happens twice (a fall-back change) fires at its first occurrence;
    /// - a day that a month or year does not have (the 31st, February 29) is skipped, not moved: the
    ///   31st fires only in months that have one, February 29 only in leap years.
    /// nil when no date matches (a past one-off date, an impossible date such as February 30, a value
    /// out of the calendar's range such as a sixth weekday of a month).
    public static func nextDate(after date: Date, matching components: DateComponents, in calendar: Calendar) -> Date? {
        let deviceTimeZone = calendar.timeZone
        var calendar = components.calendar ?? calendar
        // Components without a time zone of their own are the device's local times, also when they
        // name a calendar: that calendar's time zone is whichever process made it (the server's, once
        // decoded), not the device's.
        calendar.timeZone = components.timeZone ?? deviceTimeZone
        var matching = DateComponents()
        var hasComponent = false
        for component in matchableComponents {
            if let value = components.value(for: component) {
                matching.setValue(value, for: component)
                hasComponent = true
            }
        }
        guard hasComponent, isPossible(matching, in: calendar) else { return nil }
        var start = date
        // Each pass that lands on a day the components do not name moves past it; 16 passes cover
        // the longest gap between matching days seen (February 29 at 09:00 from 2096-03-01 is found
        // in 2104 at the 8th pass; Foundation matches a weekday or weekday ordinal with it at once).
        // Components that no day has (the 31st of February on a Sunday) use them all, and each pass
        // of such a search costs Foundation up to ~25 ms: 64 passes took 1.6 s of CPU in a release
        // build (random search over every calendar), 16 take a quarter of it.
        for _ in 0..<16 {
            guard
                let candidate = calendar.nextDate(
                    after: start, matching: matching, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
                    direction: .forward)
            else { return nil }
            if candidate <= start {
                // With no coarser time component, Foundation matches a `nanosecond` within the second it
                // starts from, so the match can come before `start` (nanosecond 500000001 after
                // 23:59:59.75 gave 23:59:59.5, found by the local-trigger fuzz target): a fire date in
                // the past, due at once. Look again from the start of the next second.
                start = Date(timeIntervalSinceReferenceDate: start.timeIntervalSinceReferenceDate.rounded(.down) + 1)
                continue
            }
            let sameDay = dayLevelComponents.allSatisfy { component in
                guard let wanted = matching.value(for: component) else { return true }
                return calendar.component(component, from: candidate) == wanted
            }
            if sameDay { return candidate }
            start = candidate
        }
        return nil
    }
}
