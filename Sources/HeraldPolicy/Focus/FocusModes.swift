import Foundation

/// A person's Focus modes, and which one is on at a given instant.
///
/// Only one Focus is on at a time. Precedence when several would be on:
/// 1. A manual "on" overrides every schedule; among several, the most recently turned on wins.
/// 2. Otherwise the scheduled window that started most recently wins (a later Focus takes over
///    from an earlier one, as when Sleep starts during Work).
/// 3. Remaining ties go to the mode listed first.
/// A manual "on" whose end time has passed no longer counts; a manual "off" cancels only the
/// scheduled window it happened in.
public struct FocusModes: Sendable, Codable, Hashable {
    public var modes: [FocusMode]

    public init(_ modes: [FocusMode] = []) {
        self.modes = modes
    }

    /// The mode with `id`.
    public subscript(id: String) -> FocusMode? {
        modes.first { $0.id == id }
    }

    /// The Focus that is on at `now`, reading schedules in `timeZone`.
    public func active(at now: Date, in timeZone: TimeZone) -> ActiveFocus? {
        var best: ActiveFocus?
        for mode in modes {
            guard let candidate = Self.activation(of: mode, at: now, in: timeZone) else { continue }
            guard let current = best else {
                best = candidate
                continue
            }
            let candidateManual = candidate.activation == .manual
            let currentManual = current.activation == .manual
            if candidateManual != currentManual {
                if candidateManual { best = candidate }
            } else if candidate.since > current.since {
                best = candidate
            }
        }
        return best
    }

    /// The next instant after `now` at which the active Focus may change (a manual end, or a
    /// scheduled window starting or ending), looking up to 8 days ahead; nil when none.
    public func nextChange(after now: Date, in timeZone: TimeZone) -> Date? {
        var next: Date?
        func consider(_ date: Date) {
            if date > now, date < (next ?? .distantFuture) { next = date }
        }
        let today = LocalCalendar.localDay(now, in: timeZone)
        for mode in modes {
            if case .on(_, let until?) = mode.manual { consider(until) }
            for schedule in mode.schedules {
                for day in (today - 1)...(today + 8) {
                    guard let window = schedule.window(startingOnLocalDay: day, in: timeZone) else { continue }
                    consider(window.start)
                    consider(window.end)
                }
            }
        }
        return next
    }

    /// Why `mode` is on at `now`, or nil when it is off.
    static func activation(of mode: FocusMode, at now: Date, in timeZone: TimeZone) -> ActiveFocus? {
        var turnedOffAt: Date?
        switch mode.manual {
        case .on(let since, let until):
            if since <= now, until.map({ now < $0 }) ?? true {
                return ActiveFocus(mode: mode, activation: .manual, since: since, until: until)
            }
        case .off(let since):
            turnedOffAt = since
        case nil:
            break
        }
        let today = LocalCalendar.localDay(now, in: timeZone)
        var latest: DateInterval?
        // A window that contains now started today, yesterday (across midnight) or, in a zone
        // with a wide DST shift, the day before.
        for day in (today - 2)...today {
            for schedule in mode.schedules {
                guard let window = schedule.window(startingOnLocalDay: day, in: timeZone),
                    window.start <= now, now < window.end
                else { continue }
                if let off = turnedOffAt, window.start <= off, off < window.end { continue }
                if latest.map({ window.start > $0.start }) ?? true { latest = window }
            }
        }
        return latest.map { ActiveFocus(mode: mode, activation: .scheduled, since: $0.start, until: $0.end) }
    }
}
