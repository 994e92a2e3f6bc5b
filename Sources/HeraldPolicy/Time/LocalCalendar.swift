import Foundation

/// Wall-clock arithmetic in a time zone, without `Calendar` (and without reading a clock).
///
/// A "local day" is the number of days since 1970-01-01 in the zone's wall-clock time.
/// Converting a wall-clock time back to an instant is DST-safe:
/// - a time skipped by a forward transition (02:30 on the spring-forward night) is moved forward
///   by the length of the gap (→ 03:30), as `Calendar` does by default;
/// - a time repeated by a backward transition (01:30 on the fall-back night) means its first
///   occurrence, so it happens once.
enum LocalCalendar {
    static let secondsPerDay = 86_400

    /// The wall-clock seconds since 1970-01-01T00:00 local for `date`.
    static func localSeconds(_ date: Date, in zone: TimeZone) -> Int {
        let instant = Int(date.timeIntervalSince1970.rounded(.down))
        return instant + zone.secondsFromGMT(for: date)
    }

    /// The local day of `date`.
    static func localDay(_ date: Date, in zone: TimeZone) -> Int {
        floorDivide(localSeconds(date, in: zone), secondsPerDay)
    }

    /// The day of the week of a local day: 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    static func weekdayIndex(ofLocalDay day: Int) -> Int {
        let index = (day + 4) % 7
        return index < 0 ? index + 7 : index
    }

    /// The instant at which the zone's clock reads `secondOfDay` on local day `day`.
    static func instant(localDay day: Int, secondOfDay: Int, in zone: TimeZone) -> Date {
        let local = day * secondsPerDay + secondOfDay
        let offsetBefore = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - secondsPerDay)))
        let offsetAfter = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local + secondsPerDay)))
        var earliest: Int?
        for offset in [offsetBefore, offsetAfter] {
            let candidate = local - offset
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(candidate))) == offset {
                earliest = min(earliest ?? candidate, candidate)
            }
        }
        // In a gap no offset reads true: the offset before the gap moves the time forward by it.
        return Date(timeIntervalSince1970: Double(earliest ?? (local - offsetBefore)))
    }

    private static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return (value % divisor < 0) ? quotient - 1 : quotient
    }
}
