import Foundation
import HeraldTriggers

/// `LocalTrigger`'s JSON (HeraldTriggers): the trigger of `POST /v1/app/requests`, read by
/// `LocalTrigger(jsonText:)` as `AppRoutes.trigger` does, kept by the store as `jsonText`, and read
/// back by the scheduler each time the request fires.
///
/// The first three input bytes choose the reference date (when the request was added: around
/// daylight-saving changes, a leap day, a year's end), the device's time zone (offsets of 30 and 45
/// minutes, a zone that skipped a whole day) and how late the server handled the first firing; the
/// rest is the trigger's JSON text.
///
/// The property:
/// - a refusal is repeatable (the same `JSONError` again);
/// - an accepted trigger written as `jsonText` (what the store keeps) or `jsonObject` reads back as
///   the same trigger — otherwise a request would fire on another schedule after being stored;
/// - its first fire date is what `firstFireDate` promises: a time interval always fires, not before
///   it was added; a calendar date, when one matches, strictly after (`CalendarMatching.nextDate`);
///   components with their own time zone are an absolute instant, the same on a device in any zone;
/// - after that firing, `nextFireDate(afterFiringAt:now:calendar:)` is nil for a trigger that does
///   not repeat, and otherwise strictly after `now` (the missed periods fire once); for a time
///   interval it always exists and is the next period, at most one interval after `now`.
enum LocalTriggerTarget {
    static let target = FuzzTarget(
        name: "local-trigger",
        property:
            "LocalTrigger JSON: what it accepts reads back the same from jsonText and jsonObject; fire dates are after the reference date, repeats strictly after now",
        check: run
    )

    /// Reference dates: Berlin's spring-forward and fall-back days, New York's spring-forward day,
    /// the day before a leap day, a fraction of a second before a new year, the reference date,
    /// the Unix epoch, and the end of the century.
    static let referenceDates: [Date] =
        [
            "2026-03-29T00:30:00Z", "2026-10-25T00:30:00Z", "2026-03-08T06:30:00Z", "2024-02-28T12:00:00Z",
            "2001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2099-12-31T12:00:00Z",
        ].map { try! Date($0, strategy: .iso8601) } + [Date(timeIntervalSinceReferenceDate: 788_918_399.75)]

    /// Devices' time zones: no offset, daylight saving north and south, a 30-minute daylight-saving
    /// change (Lord Howe), a 45-minute offset (Kathmandu, Chatham), a zone that skipped
    /// 2011-12-30 (Apia).
    static let timeZones: [TimeZone] = [
        "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Apia",
        "America/Santiago", "Pacific/Chatham",
    ].map { TimeZone(identifier: $0)! }

    /// How long after its scheduled date the first firing was handled (the server may have been down).
    static let latenesses: [TimeInterval] = [0, 0.25, 59, 3600, 86400, 31 * 86400, 400 * 86400, 10 * 365 * 86400]

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    static func run(_ input: [UInt8]) throws {
        var reader = FuzzReader(input)
        let addedAt = referenceDates[Int(reader.byte()) % referenceDates.count]
        let zoneIndex = Int(reader.byte()) % timeZones.count
        let lateness = latenesses[Int(reader.byte()) % latenesses.count]
        let text = String(decoding: reader.rest(), as: UTF8.self)

        let trigger: LocalTrigger
        do {
            trigger = try LocalTrigger(jsonText: text)
        } catch {
            do {
                _ = try LocalTrigger(jsonText: text)
                throw PropertyViolation("a trigger refused once (\(error)) was accepted the second time")
            } catch let again as LocalTrigger.JSONError {
                return try require(again == error, "two refusals differ: \(error), \(again)")
            }
        }
        try checkRoundTrip(trigger)

        let device = calendar(timeZones[zoneIndex])
        let first = trigger.firstFireDate(addedAt: addedAt, calendar: device)
        switch trigger {
        case .timeInterval(let interval, _):
            guard let first else { throw PropertyViolation("\(trigger) never fires") }
            try require(first >= addedAt, "\(trigger) added at \(addedAt) first fires before: \(first) (\(interval) s)")
        case .calendar(let components, _):
            if let first {
                try require(first > addedAt, "\(trigger) added at \(addedAt) first fires at \(first), not after")
            }
            if components.timeZone != nil {
                let elsewhere = calendar(timeZones[(zoneIndex + 1) % timeZones.count])
                let there = trigger.firstFireDate(addedAt: addedAt, calendar: elsewhere)
                try require(
                    there == first,
                    "\(trigger) has its own time zone, yet fires at \(String(describing: first)) in "
                        + "\(device.timeZone.identifier) and \(String(describing: there)) in \(elsewhere.timeZone.identifier)"
                )
            }
        case .location(let region, _):
            // A location trigger fires on crossings, never on a date; its region is a real circle.
            try require(first == nil, "\(trigger) has a fire date \(String(describing: first))")
            try require(region.center.isValid && region.radius > 0, "\(trigger) was accepted with a bad region")
            try require(
                trigger.nextFireDate(afterFiringAt: addedAt, now: addedAt, calendar: device) == nil,
                "\(trigger) has a next fire date")
        }

        guard let first else { return }
        let now = first.addingTimeInterval(lateness)
        let next = trigger.nextFireDate(afterFiringAt: first, now: now, calendar: device)
        guard trigger.repeats else {
            return try require(next == nil, "\(trigger) does not repeat, yet has a next fire date \(next!)")
        }
        if case .timeInterval(let interval, _) = trigger, next == nil {
            throw PropertyViolation(
                "repeating \(trigger) has no next fire date after \(first) (now \(now), \(interval) s)")
        }
        guard let next else { return }
        try require(next > now, "\(trigger) fired at \(first), handled at \(now): next at \(next), not after now")
        if case .timeInterval(let interval, _) = trigger {
            try require(
                next.timeIntervalSince(now) <= interval,
                "\(trigger) fired at \(first), handled at \(now): next at \(next) skips a period")
        }
    }

    /// The trigger written as the store keeps it (`jsonText`) and as a JSON object reads back equal.
    static func checkRoundTrip(_ trigger: LocalTrigger) throws {
        let text = trigger.jsonText
        do {
            let reread = try LocalTrigger(jsonText: text)
            try require(reread == trigger, "\(trigger) written as \(text) reads back as \(reread)")
        } catch let error as LocalTrigger.JSONError {
            throw PropertyViolation("\(trigger) written as \(text) is refused: \(error)")
        }
        do {
            let reread = try LocalTrigger(jsonObject: trigger.jsonObject)
            try require(reread == trigger, "\(trigger) as a JSON object reads back as \(reread)")
        } catch let error as LocalTrigger.JSONError {
            throw PropertyViolation("\(trigger) as a JSON object is refused: \(error)")
        }
    }
}
