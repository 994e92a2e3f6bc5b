import Foundation

/// Why a summary schedule was refused.
public struct SummaryScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
}

/// The Scheduled Summary: up to 12 times a day, read in the person's time zone, and the apps
/// whose passive and active notifications wait for it.
///
/// An app is in the summary when it is listed here or its `scheduledDelivery` setting is
/// enabled. A schedule without times is off: nothing is held for it (a hold that no time
/// would ever release would be a lost notification).
public struct SummarySchedule: Sendable, Codable, Hashable {
    /// The most times a day, as on Apple devices.
    public static let maximumTimes = 12

    /// The delivery times, sorted, without duplicates.
    public private(set) var times: [TimeOfDay]
    /// Bundle ids of the apps in the summary.
    public var apps: Set<String>

    /// A schedule; throws when there are more than 12 distinct times.
    public init(times: [TimeOfDay], apps: Set<String> = []) throws(SummaryScheduleError) {
        let distinct = Array(Set(times)).sorted()
        guard distinct.count <= Self.maximumTimes else {
            throw SummaryScheduleError(
                description: "A summary has at most \(Self.maximumTimes) times a day, not \(distinct.count).")
        }
        self.times = distinct
        self.apps = apps
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            times: try container.decode([TimeOfDay].self, forKey: .times),
            apps: try container.decode(Set<String>.self, forKey: .apps))
    }

    private enum CodingKeys: String, CodingKey { case times, apps }

    /// No summary.
    public static let off = try! SummarySchedule(times: [])

    /// Whether the summary is on (it has at least one time).
    public var isOn: Bool { !times.isEmpty }

    /// Whether notifications of the app wait for the summary.
    @inlinable
    public func holds(app bundleID: String, settings: AppNotificationSettings) -> Bool {
        isOn && (settings.scheduledDelivery == .enabled || apps.contains(bundleID))
    }

    /// The first summary time strictly after `now`; nil when the summary is off.
    ///
    /// DST-safe: a time skipped by a forward transition is delivered the gap's length later
    /// (02:30 → 03:30), a time repeated by a backward transition only at its first occurrence.
    public func nextDelivery(after now: Date, in timeZone: TimeZone) -> Date? {
        guard isOn else { return nil }
        var next: Date?
        // Times are in order within a day except where a DST gap moves one forward: take the minimum.
        for instant in candidates(around: now, in: timeZone) where instant > now {
            if next.map({ instant < $0 }) ?? true { next = instant }
        }
        return next
    }

    /// The last summary time at or before `now` (to catch up on a time missed while Herald was
    /// down); nil when the summary is off.
    public func lastDelivery(atOrBefore now: Date, in timeZone: TimeZone) -> Date? {
        guard isOn else { return nil }
        var last: Date?
        for instant in candidates(around: now, in: timeZone) where instant <= now {
            if last.map({ instant > $0 }) ?? true { last = instant }
        }
        return last
    }

    /// Every summary instant from the day before `now` to two days after it.
    private func candidates(around now: Date, in timeZone: TimeZone) -> [Date] {
        let today = LocalCalendar.localDay(now, in: timeZone)
        return ((today - 1)...(today + 2)).flatMap { day in
            times.map { LocalCalendar.instant(localDay: day, secondOfDay: $0.secondOfDay, in: timeZone) }
        }
    }
}
