import Foundation
import HeraldCore
import HeraldPolicy

/// The built-in Focus modes (they exist for every user until changed) and the JSON of Focus modes.
enum FocusCatalog {
    static let builtIns: [(id: String, name: String, kind: FocusKind)] = [
        ("do_not_disturb", "Do Not Disturb", .doNotDisturb),
        ("personal", "Personal", .personal),
        ("work", "Work", .work),
        ("sleep", "Sleep", .sleep),
        ("reading", "Reading", .reading),
        ("driving", "Driving", .driving),
    ]

    static let kindNames: KeyValuePairs<String, FocusKind> = [
        "do_not_disturb": .doNotDisturb, "personal": .personal, "work": .work, "sleep": .sleep,
        "reading": .reading, "driving": .driving, "custom": .custom,
    ]

    static func isBuiltIn(_ id: String) -> Bool { builtIns.contains { $0.id == id } }

    /// A built-in mode as it is before the user changes it.
    static func builtIn(_ id: String) -> FocusMode? {
        builtIns.first { $0.id == id }.map { FocusMode(id: $0.id, name: $0.name, kind: $0.kind) }
    }

    /// The user's modes: the stored ones in their order, then the built-ins never stored.
    static func modes(stored: [FocusMode]) -> [FocusMode] {
        let ids = Set(stored.map(\.id))
        return stored + builtIns.filter { !ids.contains($0.id) }.compactMap { builtIn($0.id) }
    }

    // MARK: JSON

    static func json(_ mode: FocusMode, active: ActiveFocus?) -> JSONValue {
        var manual: JSONValue = .null
        switch mode.manual {
        case .on(let since, let until):
            manual = .object([
                "state": .string("on"), "since": .string(Timestamp.string(since)),
                "until": .optional(Timestamp.string(until)),
            ])
        case .off(let since):
            manual = .object(["state": .string("off"), "since": .string(Timestamp.string(since)), "until": .null])
        case nil:
            break
        }
        return .object([
            "id": .string(mode.id),
            "name": .string(mode.name),
            "kind": .string(PolicyNames.name(mode.kind, in: kindNames)),
            "built_in": .bool(isBuiltIn(mode.id)),
            "filter_mode": .string(PolicyNames.name(mode.filterMode, in: PolicyNames.filterMode)),
            "allowed_apps": .strings(mode.allowedApps.sorted()),
            "allowed_people": people(mode.allowedPeople),
            "silenced_apps": .strings(mode.silencedApps.sorted()),
            "silenced_people": people(mode.silencedPeople),
            "allows_time_sensitive": .bool(mode.allowsTimeSensitive),
            "schedules": .array(mode.schedules.map(schedule)),
            "manual": manual,
            "active": .bool(active?.mode.id == mode.id),
        ])
    }

    static func people(_ handles: Set<PersonHandle>) -> JSONValue {
        .array(
            handles.sorted { ($0.kind.rawValue, $0.value) < ($1.kind.rawValue, $1.value) }.map { handle in
                .object([
                    "type": .string(PolicyNames.name(handle.kind, in: PolicyNames.handleKind)),
                    "value": .string(handle.value),
                ])
            })
    }

    static func schedule(_ schedule: FocusSchedule) -> JSONValue {
        .object([
            "days": .strings(PolicyNames.weekdays.filter { schedule.days.contains($0.day) }.map(\.short)),
            "start": .string(schedule.start.description),
            "end": .string(schedule.end.description),
        ])
    }

    /// The active Focus and why (`GET /v1/me/focus`).
    static func activeJSON(_ active: ActiveFocus?, nextChange: Date?, timeZone: TimeZone) -> JSONValue {
        guard let active else {
            return .object([
                "active": .null, "reason": .string("No Focus is on."),
                "time_zone": .string(PreferencesJSON.name(timeZone)),
                "next_change_at": .optional(Timestamp.string(nextChange)),
            ])
        }
        let subject = active.mode.phrase.prefix(1).uppercased() + active.mode.phrase.dropFirst()
        var reason: String
        switch active.activation {
        case .manual:
            reason = "\(subject) was turned on at \(Timestamp.string(active.since))"
            reason += active.until.map { " until \(Timestamp.string($0))." } ?? " until it is turned off."
        case .scheduled:
            reason = "\(subject) is on by its schedule from \(Timestamp.string(active.since))"
            reason += active.until.map { " to \(Timestamp.string($0))." } ?? "."
        }
        return .object([
            "active": .object([
                "id": .string(active.mode.id),
                "name": .string(active.mode.name),
                "kind": .string(PolicyNames.name(active.mode.kind, in: kindNames)),
                "activation": .string(active.activation.rawValue),
                "since": .string(Timestamp.string(active.since)),
                "until": .optional(Timestamp.string(active.until)),
            ]),
            "reason": .string(reason),
            "time_zone": .string(PreferencesJSON.name(timeZone)),
            "next_change_at": .optional(Timestamp.string(nextChange)),
        ])
    }

    // MARK: Reading a body

    static let fieldNames: Set<String> = [
        "name", "filter_mode", "allowed_apps", "allowed_people", "silenced_apps", "silenced_people",
        "allows_time_sensitive", "schedules",
    ]

    /// `mode` with the fields of the body applied (its id, kind and manual switch stay).
    static func apply(_ fields: JSONFields, to mode: FocusMode) throws -> FocusMode {
        try fields.allowOnly(fieldNames)
        var mode = mode
        if fields.has("name") {
            guard let name = try fields.string("name"), !name.trimmingCharacters(in: .whitespaces).isEmpty,
                name.count <= 100
            else {
                throw APIError.invalidField("name", "must be a non-empty string of at most 100 characters.")
            }
            mode.name = name
        }
        if let filter = try fields.choice("filter_mode", PolicyNames.filterMode) { mode.filterMode = filter }
        if let apps = try fields.strings("allowed_apps") {
            mode.allowedApps = try bundleIDs(apps, field: "allowed_apps")
        }
        if let apps = try fields.strings("silenced_apps") {
            mode.silencedApps = try bundleIDs(apps, field: "silenced_apps")
        }
        if let people = try fields.array("allowed_people") {
            mode.allowedPeople = try handles(people, field: "allowed_people")
        }
        if let people = try fields.array("silenced_people") {
            mode.silencedPeople = try handles(people, field: "silenced_people")
        }
        if let allows = try fields.bool("allows_time_sensitive") { mode.allowsTimeSensitive = allows }
        if fields.isNull("allows_time_sensitive") {
            throw APIError.invalidField("allows_time_sensitive", "must be true or false.")
        }
        if let items = try fields.array("schedules") {
            mode.schedules = try items.enumerated().map { index, item in
                try schedule(JSONFields(item, path: "schedules[\(index)]"))
            }
        }
        return mode
    }

    static func bundleIDs(_ items: [String], field: String) throws -> Set<String> {
        if let index = items.firstIndex(where: { $0.isEmpty }) {
            throw APIError.invalidField("\(field)[\(index)]", "must be a bundle id.")
        }
        return Set(items)
    }

    static func handles(_ items: [JSONValue], field: String) throws -> Set<PersonHandle> {
        var handles = Set<PersonHandle>()
        for (index, item) in items.enumerated() {
            let fields = try JSONFields(item, path: "\(field)[\(index)]")
            try fields.allowOnly(["type", "value"])
            guard let kind = try fields.choice("type", PolicyNames.handleKind) else {
                throw APIError.missingField(fields.name("type"))
            }
            guard let value = try fields.string("value") else { throw APIError.missingField(fields.name("value")) }
            let handle = PersonHandle(value, kind: kind)
            guard !handle.value.isEmpty, handle.value != "+" else {
                throw APIError.invalidField(
                    fields.name("value"),
                    kind == .phoneNumber ? "must be a phone number with digits." : "must not be empty.")
            }
            if kind == .emailAddress, !handle.value.contains("@") {
                throw APIError.invalidField(fields.name("value"), "must be an e-mail address.")
            }
            handles.insert(handle)
        }
        return handles
    }

    static func schedule(_ fields: JSONFields) throws -> FocusSchedule {
        try fields.allowOnly(["days", "start", "end"])
        guard let dayNames = try fields.strings("days") else { throw APIError.missingField(fields.name("days")) }
        var days: Weekdays = []
        for (index, name) in dayNames.enumerated() {
            let lowered = name.lowercased()
            guard let day = PolicyNames.weekdays.first(where: { $0.short == lowered || $0.long == lowered }) else {
                throw APIError.invalidField(
                    "\(fields.name("days"))[\(index)]",
                    "must be a day of the week: `sun`, `mon`, `tue`, `wed`, `thu`, `fri` or `sat`.")
            }
            days.insert(day.day)
        }
        guard !days.isEmpty else { throw APIError.invalidField(fields.name("days"), "must name at least one day.") }
        func time(_ key: String) throws -> TimeOfDay {
            guard let text = try fields.string(key) else { throw APIError.missingField(fields.name(key)) }
            guard let time = ClockTime.parse(text) else {
                throw APIError.invalidField(fields.name(key), "must be a time of day \"HH:MM\" from 00:00 to 23:59.")
            }
            return TimeOfDay(hour: time.hour, minute: time.minute)
        }
        return FocusSchedule(days: days, start: try time("start"), end: try time("end"))
    }
}
