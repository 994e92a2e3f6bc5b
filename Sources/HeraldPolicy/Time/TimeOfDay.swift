/// A wall-clock time of day (hours and minutes), read in a time zone.
public struct TimeOfDay: Sendable, Codable, Hashable, Comparable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    /// A time of day; `hour` 0…23 and `minute` 0…59 are clamped into range.
    public init(hour: Int, minute: Int = 0) {
        self.hour = min(max(hour, 0), 23)
        self.minute = min(max(minute, 0), 59)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            hour: try container.decode(Int.self, forKey: .hour), minute: try container.decode(Int.self, forKey: .minute)
        )
    }

    private enum CodingKeys: String, CodingKey { case hour, minute }

    /// Seconds since midnight.
    public var secondOfDay: Int { hour * 3600 + minute * 60 }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.secondOfDay < rhs.secondOfDay }

    /// "07:30".
    public var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}

/// Days of the week, as a set.
public struct Weekdays: OptionSet, Sendable, Codable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    public static let sunday = Weekdays(rawValue: 1 << 0)
    public static let monday = Weekdays(rawValue: 1 << 1)
    public static let tuesday = Weekdays(rawValue: 1 << 2)
    public static let wednesday = Weekdays(rawValue: 1 << 3)
    public static let thursday = Weekdays(rawValue: 1 << 4)
    public static let friday = Weekdays(rawValue: 1 << 5)
    public static let saturday = Weekdays(rawValue: 1 << 6)

    public static let weekdays: Weekdays = [.monday, .tuesday, .wednesday, .thursday, .friday]
    public static let weekend: Weekdays = [.saturday, .sunday]
    public static let everyDay = Weekdays(rawValue: 0x7F)

    /// The day with index 0 = Sunday … 6 = Saturday.
    static func day(index: Int) -> Weekdays { Weekdays(rawValue: 1 << UInt8(index)) }
}
