import Foundation

/// The built-in Focus modes and custom ones.
public enum FocusKind: String, CaseIterable, Sendable, Codable, Hashable {
    case doNotDisturb
    case personal
    case work
    case sleep
    case reading
    case driving
    case custom
}

/// Which list a Focus applies.
public enum FocusFilterMode: String, CaseIterable, Sendable, Codable, Hashable {
    /// "Allow notifications from": only the allowed apps and people break through.
    case allowFrom
    /// "Silence notifications from": the silenced apps and people are held, everyone else
    /// breaks through.
    case silenceFrom
}

/// A person's manual switch of a Focus.
public enum ManualFocusOverride: Sendable, Codable, Hashable {
    /// Turned on at `since`, until `until` (nil = until turned off). Overrides schedules.
    case on(since: Date, until: Date?)
    /// Turned off at `since`: the scheduled window that contains `since` does not apply; later
    /// windows turn the Focus on again, as on Apple devices.
    case off(since: Date)
}

/// A Focus mode: what it lets through, and when it is on.
public struct FocusMode: Sendable, Codable, Hashable, Identifiable {
    public var id: String
    public var name: String
    public var kind: FocusKind
    public var filterMode: FocusFilterMode
    /// Apps that break through in `allowFrom` mode (bundle ids).
    public var allowedApps: Set<String>
    /// People whose communication notifications break through in `allowFrom` mode.
    public var allowedPeople: Set<PersonHandle>
    /// Apps held in `silenceFrom` mode.
    public var silencedApps: Set<String>
    /// People whose communication notifications are held in `silenceFrom` mode.
    public var silencedPeople: Set<PersonHandle>
    /// Whether time-sensitive notifications break through.
    public var allowsTimeSensitive: Bool
    public var schedules: [FocusSchedule]
    public var manual: ManualFocusOverride?

    public init(
        id: String,
        name: String,
        kind: FocusKind = .custom,
        filterMode: FocusFilterMode = .allowFrom,
        allowedApps: Set<String> = [],
        allowedPeople: Set<PersonHandle> = [],
        silencedApps: Set<String> = [],
        silencedPeople: Set<PersonHandle> = [],
        allowsTimeSensitive: Bool = true,
        schedules: [FocusSchedule] = [],
        manual: ManualFocusOverride? = nil
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.filterMode = filterMode
        self.allowedApps = allowedApps
        self.allowedPeople = allowedPeople
        self.silencedApps = silencedApps
        self.silencedPeople = silencedPeople
        self.allowsTimeSensitive = allowsTimeSensitive
        self.schedules = schedules
        self.manual = manual
    }

    /// How the Focus is named in a sentence: "Do Not Disturb", otherwise "the Work Focus".
    public var phrase: String {
        kind == .doNotDisturb ? name : "the \(name) Focus"
    }

    /// Whether the Focus lets an app's notifications through (allowed, or not silenced).
    public func letsThrough(app bundleID: String) -> Bool {
        switch filterMode {
        case .allowFrom: allowedApps.contains(bundleID)
        case .silenceFrom: !silencedApps.contains(bundleID)
        }
    }

    /// Whether the Focus lists `person` as allowed (`allowFrom`) or silenced (`silenceFrom`).
    public func lists(person: PersonHandle) -> Bool {
        switch filterMode {
        case .allowFrom: Self.people(allowedPeople, include: person)
        case .silenceFrom: Self.people(silencedPeople, include: person)
        }
    }

    private static func people(_ people: Set<PersonHandle>, include person: PersonHandle) -> Bool {
        if people.isEmpty { return false }
        return people.contains(person) || (person.kind == .phoneNumber && people.containsPerson(person))
    }
}

/// A time range on some days of the week when a Focus is on, read in the person's time zone.
///
/// The days are the days the range starts on. An end at or before the start crosses midnight
/// (22:00–07:00 on Monday runs until Tuesday 07:00); an end equal to the start is a whole day.
public struct FocusSchedule: Sendable, Codable, Hashable {
    public var days: Weekdays
    public var start: TimeOfDay
    public var end: TimeOfDay

    public init(days: Weekdays, start: TimeOfDay, end: TimeOfDay) {
        self.days = days
        self.start = start
        self.end = end
    }

    /// Whether the range crosses midnight into the next day.
    public var crossesMidnight: Bool { end <= start }

    /// The window that starts on local day `day`, if the schedule runs that day.
    func window(startingOnLocalDay day: Int, in zone: TimeZone) -> DateInterval? {
        guard days.contains(.day(index: LocalCalendar.weekdayIndex(ofLocalDay: day))) else { return nil }
        let begins = LocalCalendar.instant(localDay: day, secondOfDay: start.secondOfDay, in: zone)
        let ends = LocalCalendar.instant(
            localDay: crossesMidnight ? day + 1 : day, secondOfDay: end.secondOfDay, in: zone)
        guard ends > begins else { return nil }
        return DateInterval(start: begins, end: ends)
    }
}
