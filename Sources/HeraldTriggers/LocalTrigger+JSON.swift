import Foundation

// The JSON of a trigger, as the app API takes it and the store keeps it:
//   {"type": "time_interval", "time_interval": 3600, "repeats": false}
//   {"type": "calendar", "date_components": {"hour": 8, "minute": 30, "time_zone": "Europe/Berlin"},
//    "repeats": true}
// Date components use Apple's names in snake_case (era, year, month, day, hour, minute, second,
// nanosecond, weekday, weekday_ordinal, quarter, week_of_month, week_of_year, year_for_week_of_year),
// plus `calendar` (a `Calendar.Identifier` name: "gregorian", "iso8601", "hebrew", …) and `time_zone`
// (an IANA name).
//   {"type": "location", "repeats": false, "region": {"identifier": "office", "latitude": 52.52,
//    "longitude": 13.405, "radius": 100, "notify_on_entry": true, "notify_on_exit": false}}

extension LocalTrigger {
    /// A trigger's JSON that is not valid: the field at fault and a sentence for people.
    public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The field, in the trigger object (`date_components.hour`).
        public var field: String
        /// What is wrong with it, as the end of a sentence naming the field ("must be an integer.").
        public var rule: String
        /// Whether the field is missing (rather than present with a wrong value).
        public var isMissing: Bool

        public init(field: String, rule: String, isMissing: Bool = false) {
            self.field = field
            self.rule = rule
            self.isMissing = isMissing
        }

        public var description: String { "`\(field)` \(rule)" }
    }

    /// The date components the JSON names, with their `Calendar.Component`.
    static let componentNames: [(String, Calendar.Component)] = [
        ("era", .era), ("year", .year), ("month", .month), ("day", .day), ("hour", .hour), ("minute", .minute),
        ("second", .second), ("nanosecond", .nanosecond), ("weekday", .weekday), ("weekday_ordinal", .weekdayOrdinal),
        ("quarter", .quarter), ("week_of_month", .weekOfMonth), ("week_of_year", .weekOfYear),
        ("year_for_week_of_year", .yearForWeekOfYear),
    ]

    /// The calendars a trigger may name, by the name the JSON uses.
    public static let calendarIdentifiers: [Calendar.Identifier] = [
        .gregorian, .buddhist, .chinese, .coptic, .ethiopicAmeteMihret, .ethiopicAmeteAlem, .hebrew, .iso8601,
        .indian, .islamic, .islamicCivil, .japanese, .persian, .republicOfChina, .islamicTabular, .islamicUmmAlQura,
    ]

    /// The trigger as a JSON object (`JSONSerialization` values).
    public var jsonObject: [String: Any] {
        switch self {
        case .timeInterval(let interval, let repeats):
            return ["type": "time_interval", "time_interval": interval, "repeats": repeats]
        case .calendar(let components, let repeats):
            var object: [String: Any] = [:]
            for (name, component) in Self.componentNames {
                if let value = components.value(for: component) { object[name] = value }
            }
            if let calendar = components.calendar { object["calendar"] = "\(calendar.identifier)" }
            if let timeZone = components.timeZone { object["time_zone"] = timeZone.identifier }
            return ["type": "calendar", "date_components": object, "repeats": repeats]
        case .location(let region, let repeats):
            return [
                "type": "location", "repeats": repeats,
                "region": [
                    "identifier": region.identifier, "latitude": region.center.latitude,
                    "longitude": region.center.longitude, "radius": region.radius,
                    "notify_on_entry": region.notifiesOnEntry, "notify_on_exit": region.notifiesOnExit,
                ] as [String: Any],
            ]
        }
    }

    /// The trigger as JSON text, keys sorted (what the store keeps).
    public var jsonText: String {
        // Only strings, numbers, booleans and objects of them: serialization cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The trigger JSON text holds; `JSONError` names the first field at fault.
    public init(jsonText: String) throws(JSONError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(jsonText.utf8)) else {
            throw JSONError(field: "trigger", rule: "must be a JSON object.")
        }
        try self.init(jsonObject: object)
    }

    /// The trigger a decoded JSON value (`JSONSerialization`'s) holds.
    public init(jsonObject: Any) throws(JSONError) {
        guard let object = jsonObject as? [String: Any] else {
            throw JSONError(field: "trigger", rule: "must be an object.")
        }
        guard let type = object["type"] else { throw JSONError(field: "type", rule: "is required.", isMissing: true) }
        let repeats = try Self.bool(object["repeats"], field: "repeats") ?? false
        switch type as? String {
        case "time_interval":
            try Self.allowOnly(object, ["type", "time_interval", "repeats"], path: "")
            guard let raw = object["time_interval"] else {
                throw JSONError(field: "time_interval", rule: "is required.", isMissing: true)
            }
            guard let number = raw as? NSNumber, !Self.isBool(number), number.doubleValue.isFinite else {
                throw JSONError(field: "time_interval", rule: "must be a number of seconds.")
            }
            let interval = number.doubleValue
            if let refusal = Self.refusal(timeInterval: interval, repeats: repeats) {
                throw JSONError(field: "time_interval", rule: "is refused: \(refusal).")
            }
            guard interval <= Self.maximumTimeInterval else {
                throw JSONError(
                    field: "time_interval",
                    rule: "is refused: time interval must be at most 100 years (3155760000 seconds) for Herald.")
            }
            self = .timeInterval(interval, repeats: repeats)
        case "calendar":
            try Self.allowOnly(object, ["type", "date_components", "repeats"], path: "")
            guard let raw = object["date_components"] else {
                throw JSONError(field: "date_components", rule: "is required.", isMissing: true)
            }
            guard let fields = raw as? [String: Any] else {
                throw JSONError(field: "date_components", rule: "must be an object.")
            }
            try Self.allowOnly(
                fields, Set(Self.componentNames.map(\.0) + ["calendar", "time_zone"]), path: "date_components.")
            var components = DateComponents()
            for (name, component) in Self.componentNames {
                guard let value = fields[name] else { continue }
                guard let number = value as? NSNumber, !Self.isBool(number),
                    let integer = Int(exactly: number.doubleValue), abs(integer) <= 1_000_000_000
                else {
                    throw JSONError(field: "date_components.\(name)", rule: "must be an integer.")
                }
                components.setValue(integer, for: component)
            }
            if let value = fields["calendar"] {
                guard let name = value as? String,
                    let identifier = Self.calendarIdentifiers.first(where: { "\($0)" == name })
                else {
                    throw JSONError(
                        field: "date_components.calendar",
                        rule: "must be one of \(Self.calendarIdentifiers.map { "`\($0)`" }.joined(separator: ", ")).")
                }
                components.calendar = Calendar(identifier: identifier)
            }
            if let value = fields["time_zone"] {
                guard let name = value as? String, !name.isEmpty, let zone = TimeZone(identifier: name) else {
                    throw JSONError(
                        field: "date_components.time_zone", rule: "must be a time zone name (`Europe/Paris`).")
                }
                components.timeZone = zone
            }
            guard CalendarMatching.hasMatchableComponent(components) else {
                throw JSONError(
                    field: "date_components",
                    rule: "must set at least one date or time component (`hour`, `day`, `weekday`, …).")
            }
            self = .calendar(components, repeats: repeats)
        case "location":
            try Self.allowOnly(object, ["type", "region", "repeats"], path: "")
            guard let raw = object["region"] else {
                throw JSONError(field: "region", rule: "is required.", isMissing: true)
            }
            guard let fields = raw as? [String: Any] else {
                throw JSONError(field: "region", rule: "must be an object.")
            }
            try Self.allowOnly(
                fields, ["identifier", "latitude", "longitude", "radius", "notify_on_entry", "notify_on_exit"],
                path: "region.")
            guard let identifier = fields["identifier"] as? String else {
                throw JSONError(
                    field: "region.identifier", rule: "must be a string.", isMissing: fields["identifier"] == nil)
            }
            let latitude = try Self.number(fields["latitude"], field: "region.latitude")
            let longitude = try Self.number(fields["longitude"], field: "region.longitude")
            let radius = try Self.number(fields["radius"], field: "region.radius")
            guard (-90...90).contains(latitude) else {
                throw JSONError(field: "region.latitude", rule: "must be from -90 to 90 degrees.")
            }
            guard (-180...180).contains(longitude) else {
                throw JSONError(field: "region.longitude", rule: "must be from -180 to 180 degrees.")
            }
            guard radius > 0 else { throw JSONError(field: "region.radius", rule: "must be more than 0 meters.") }
            self = .location(
                LocationRegion(
                    identifier: identifier, center: Coordinate(latitude: latitude, longitude: longitude),
                    radius: radius,
                    notifiesOnEntry: try Self.bool(fields["notify_on_entry"], field: "region.notify_on_entry") ?? true,
                    notifiesOnExit: try Self.bool(fields["notify_on_exit"], field: "region.notify_on_exit") ?? true),
                repeats: repeats)
        default:
            throw JSONError(field: "type", rule: "must be `time_interval`, `calendar` or `location`.")
        }
    }

    /// A finite number (not a boolean) the field must hold.
    private static func number(_ value: Any?, field: String) throws(JSONError) -> Double {
        guard let value else { throw JSONError(field: field, rule: "is required.", isMissing: true) }
        guard let number = value as? NSNumber, !isBool(number), number.doubleValue.isFinite else {
            throw JSONError(field: field, rule: "must be a number.")
        }
        return number.doubleValue
    }

    private static func isBool(_ number: NSNumber) -> Bool {
        // JSONSerialization gives booleans as NSNumber too (`__NSCFBoolean`, type `c`); its integers
        // are `i` or `q` and its other numbers `d`.
        String(cString: number.objCType) == "c"
    }

    private static func bool(_ value: Any?, field: String) throws(JSONError) -> Bool? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, isBool(number) else {
            throw JSONError(field: field, rule: "must be true or false.")
        }
        return number.boolValue
    }

    private static func allowOnly(_ object: [String: Any], _ keys: Set<String>, path: String) throws(JSONError) {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw JSONError(field: path + unknown, rule: "is not a field of this object.")
        }
    }
}
