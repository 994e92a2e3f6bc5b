import Foundation
import HeraldCore
import HeraldPolicy

// The JSON of the user-side state (snake_case names for the HeraldPolicy values), both ways.
// A `PUT` changes the fields it names and keeps the others.

enum PolicyNames {
    static let authorization: KeyValuePairs<String, AuthorizationStatus> = [
        "not_determined": .notDetermined, "denied": .denied, "authorized": .authorized,
        "provisional": .provisional, "ephemeral": .ephemeral,
    ]
    static let alertStyle: KeyValuePairs<String, AlertStyle> = ["none": .none, "banner": .banner, "alert": .alert]
    static let setting: KeyValuePairs<String, NotificationSetting> = [
        "enabled": .enabled, "disabled": .disabled, "not_supported": .notSupported,
    ]
    static let showPreviews: KeyValuePairs<String, ShowPreviewsSetting> = [
        "always": .always, "when_unlocked": .whenAuthenticated, "never": .never,
    ]
    static let grouping: KeyValuePairs<String, NotificationGrouping> = [
        "automatic": .automatic, "by_app": .byApp, "off": .off,
    ]
    static let audioRoute: KeyValuePairs<String, AudioRoute> = [
        "none": .none, "headphones": .headphones, "car": .car, "speaker": .speaker,
    ]
    static let filterMode: KeyValuePairs<String, FocusFilterMode> = ["allow": .allowFrom, "silence": .silenceFrom]
    static let handleKind: KeyValuePairs<String, PersonHandle.Kind> = [
        "phone": .phoneNumber, "email": .emailAddress, "app": .appSpecific,
    ]
    static let presentation: KeyValuePairs<String, PresentationOptions> = [
        "banner": .banner, "list": .list, "sound": .sound, "badge": .badge,
    ]
    /// `willPresent` options by name; an unknown name is refused, naming `field[index]`.
    static func presentationOptions(_ names: [String], field: String) throws -> PresentationOptions {
        var options: PresentationOptions = []
        for (index, name) in names.enumerated() {
            guard let option = presentation.first(where: { $0.key == name })?.value else {
                throw APIError.invalidField(
                    "\(field)[\(index)]", "must be one of \(JSONFields.list(presentation.map(\.key))).")
            }
            options.insert(option)
        }
        return options
    }

    static let weekdays: [(short: String, long: String, day: Weekdays)] = [
        ("sun", "sunday", .sunday), ("mon", "monday", .monday), ("tue", "tuesday", .tuesday),
        ("wed", "wednesday", .wednesday), ("thu", "thursday", .thursday), ("fri", "friday", .friday),
        ("sat", "saturday", .saturday),
    ]

    static func name<Value: Equatable>(_ value: Value, in table: KeyValuePairs<String, Value>) -> String {
        table.first { $0.value == value }?.key ?? "unknown"
    }
}

// MARK: Per-app settings

enum AppSettingsJSON {
    static var settingFields: [(key: String, path: WritableKeyPath<AppNotificationSettings, NotificationSetting>)] {
        [
            ("sound", \.sound), ("badge", \.badge), ("lock_screen", \.lockScreen),
            ("notification_center", \.notificationCenter), ("car_play", \.carPlay),
            ("time_sensitive", \.timeSensitive), ("critical_alerts", \.criticalAlerts),
            ("scheduled_delivery", \.scheduledDelivery), ("direct_messages_in_summary", \.directMessagesInSummary),
            ("announcement", \.announcement),
        ]
    }

    static var fieldNames: Set<String> {
        Set(settingFields.map(\.key)).union(["authorization_status", "alert_style", "show_previews", "grouping"])
    }

    static func json(_ settings: AppNotificationSettings, bundleID: String, isDefault: Bool) -> JSONValue {
        var object: [String: JSONValue] = [
            "bundle_id": .string(bundleID),
            "is_default": .bool(isDefault),
            "authorization_status": .string(
                PolicyNames.name(settings.authorizationStatus, in: PolicyNames.authorization)),
            "alert_style": .string(PolicyNames.name(settings.alertStyle, in: PolicyNames.alertStyle)),
            "show_previews": settings.showPreviews.map { .string(PolicyNames.name($0, in: PolicyNames.showPreviews)) }
                ?? .null,
            "grouping": settings.grouping.map { .string(PolicyNames.name($0, in: PolicyNames.grouping)) } ?? .null,
        ]
        for field in settingFields {
            object[field.key] = .string(PolicyNames.name(settings[keyPath: field.path], in: PolicyNames.setting))
        }
        return .object(object)
    }

    /// `settings` with the fields of the body applied.
    static func apply(_ fields: JSONFields, to settings: AppNotificationSettings) throws -> AppNotificationSettings {
        try fields.allowOnly(fieldNames)
        var settings = settings
        if let value = try fields.choice("authorization_status", PolicyNames.authorization) {
            settings.authorizationStatus = value
        }
        if let value = try fields.choice("alert_style", PolicyNames.alertStyle) { settings.alertStyle = value }
        if fields.isNull("show_previews") {
            settings.showPreviews = nil
        } else if let value = try fields.choice("show_previews", PolicyNames.showPreviews) {
            settings.showPreviews = value
        }
        if fields.isNull("grouping") {
            settings.grouping = nil
        } else if let value = try fields.choice("grouping", PolicyNames.grouping) {
            settings.grouping = value
        }
        for field in settingFields {
            if let value = try fields.choice(field.key, PolicyNames.setting) { settings[keyPath: field.path] = value }
        }
        return settings
    }
}

// MARK: Preferences

enum PreferencesJSON {
    static func json(_ preferences: UserPreferences) -> JSONValue {
        .object([
            "show_previews": .string(PolicyNames.name(preferences.showPreviews, in: PolicyNames.showPreviews)),
            "grouping": .string(PolicyNames.name(preferences.grouping, in: PolicyNames.grouping)),
            "announce": .object([
                "enabled": .bool(preferences.announce.isOn),
                "apps": .strings(preferences.announce.apps.sorted()),
            ]),
            "time_zone": .string(PreferencesJSON.name(preferences.timeZone)),
            "locale": .string(preferences.locale),
        ])
    }

    static func apply(_ fields: JSONFields, to preferences: UserPreferences) throws -> UserPreferences {
        try fields.allowOnly(["show_previews", "grouping", "announce", "time_zone", "locale"])
        var preferences = preferences
        if let value = try fields.choice("show_previews", PolicyNames.showPreviews) { preferences.showPreviews = value }
        if let value = try fields.choice("grouping", PolicyNames.grouping) { preferences.grouping = value }
        if fields.isNull("announce") {
            throw APIError.invalidField("announce", "must be an object like {\"enabled\": true, \"apps\": []}.")
        }
        if let announce = try fields.fields("announce") {
            try announce.allowOnly(["enabled", "apps"])
            if let enabled = try announce.bool("enabled") { preferences.announce.isOn = enabled }
            if let apps = try announce.strings("apps") { preferences.announce.apps = Set(apps) }
        }
        if fields.has("time_zone") {
            guard let zone = try fields.string("time_zone") else {
                throw APIError.invalidField("time_zone", "must be a string.")
            }
            preferences.timeZone = try timeZone(zone, field: "time_zone")
        }
        if fields.has("locale") {
            guard let locale = try fields.string("locale"), Identifiers.isLocale(locale) else {
                throw APIError.invalidField("locale", "must be a locale identifier like `en`, `en-GB` or `zh-Hans`.")
            }
            preferences.locale = locale
        }
        return preferences
    }

    /// The zone's IANA name (Foundation on Linux calls UTC "GMT").
    static func name(_ zone: TimeZone) -> String {
        zone.identifier == "GMT" ? "UTC" : zone.identifier
    }

    static func timeZone(_ identifier: String, field: String) throws -> TimeZone {
        guard Identifiers.isTimeZone(identifier), let zone = TimeZone(identifier: identifier) else {
            throw APIError.invalidField(field, "must be an IANA time zone like `Europe/Paris` or `UTC`.")
        }
        return zone
    }
}

// MARK: Device state

extension LiveHub {
    /// Tells the device's sessions its state (`event: state`), as `PUT /v1/devices/{id}/state` does:
    /// for a change another node committed.
    public func publishState(deviceID: String, state: DeviceState) {
        publishState(deviceID: deviceID, DeviceStateJSON.json(state, deviceID: deviceID))
    }
}

enum DeviceStateJSON {
    static func json(_ state: DeviceState, deviceID: String) -> JSONValue {
        var foreground: JSONValue = .null
        if let app = state.foregroundApp {
            let options: JSONValue =
                app.willPresent.map { options in
                    .strings(PolicyNames.presentation.filter { options.contains($0.value) }.map(\.key))
                } ?? .null
            foreground = .object(["bundle_id": .string(app.bundleID), "will_present": options])
        }
        return .object([
            "device_id": .string(deviceID),
            "locked": .bool(state.isLocked),
            "ringer_silent": .bool(state.isRingerSilent),
            "audio_route": .string(PolicyNames.name(state.audioRoute, in: PolicyNames.audioRoute)),
            "foreground_app": foreground,
            "time_zone": .string(PreferencesJSON.name(state.timeZone)),
            "locale": .optional(state.locale),
            "location": state.location.map { location in
                .object(["latitude": .number(location.latitude), "longitude": .number(location.longitude)])
            } ?? .null,
        ])
    }

    static func apply(_ fields: JSONFields, to state: DeviceState) throws -> DeviceState {
        try fields.allowOnly([
            "locked", "ringer_silent", "audio_route", "foreground_app", "time_zone", "locale", "location",
        ])
        var state = state
        if let locked = try fields.bool("locked") { state.isLocked = locked }
        if fields.isNull("locked") { throw APIError.invalidField("locked", "must be true or false.") }
        if let silent = try fields.bool("ringer_silent") { state.isRingerSilent = silent }
        if fields.isNull("ringer_silent") { throw APIError.invalidField("ringer_silent", "must be true or false.") }
        if let route = try fields.choice("audio_route", PolicyNames.audioRoute) { state.audioRoute = route }
        if fields.isNull("foreground_app") {
            state.foregroundApp = nil
        } else if let app = try fields.fields("foreground_app") {
            try app.allowOnly(["bundle_id", "will_present"])
            guard let bundleID = try app.string("bundle_id") else {
                throw APIError.missingField("foreground_app.bundle_id")
            }
            guard !bundleID.isEmpty else {
                throw APIError.invalidField("foreground_app.bundle_id", "must not be empty.")
            }
            var options: PresentationOptions?
            if !app.isNull("will_present"), let names = try app.strings("will_present") {
                options = try PolicyNames.presentationOptions(names, field: "foreground_app.will_present")
            }
            state.foregroundApp = ForegroundApp(bundleID: bundleID, willPresent: options)
        }
        if fields.has("time_zone") {
            guard let zone = try fields.string("time_zone") else {
                throw APIError.invalidField("time_zone", "must be a string.")
            }
            state.timeZone = try PreferencesJSON.timeZone(zone, field: "time_zone")
        }
        if fields.isNull("location") {
            state.location = nil
        } else if let location = try fields.fields("location") {
            try location.allowOnly(["latitude", "longitude"])
            let latitude = try Self.degrees(location, "latitude", limit: 90)
            let longitude = try Self.degrees(location, "longitude", limit: 180)
            state.location = DeviceLocation(latitude: latitude, longitude: longitude)
        }
        if fields.has("locale") {
            if fields.isNull("locale") {
                state.locale = nil
            } else {
                guard let locale = try fields.string("locale"), Identifiers.isLocale(locale) else {
                    throw APIError.invalidField(
                        "locale", "must be a locale identifier like `en`, `en-GB` or `zh-Hans`, or null.")
                }
                state.locale = locale
            }
        }
        return state
    }

    /// A coordinate in degrees, from -`limit` to `limit`.
    private static func degrees(_ fields: JSONFields, _ key: String, limit: Double) throws -> Double {
        guard let value = fields.object[key] else { throw APIError.missingField(fields.name(key)) }
        guard case .number(let degrees) = value, (-limit...limit).contains(degrees) else {
            throw APIError.invalidField(
                fields.name(key), "must be a number of degrees from -\(Int(limit)) to \(Int(limit)).")
        }
        return degrees
    }
}

// MARK: Scheduled Summary

enum SummaryJSON {
    static func json(_ schedule: SummarySchedule, next: Date?) -> JSONValue {
        .object([
            "times": .strings(schedule.times.map(\.description)),
            "apps": .strings(schedule.apps.sorted()),
            "enabled": .bool(schedule.isOn),
            "next_delivery_at": .optional(next.map(Timestamp.string)),
        ])
    }

    static func apply(_ fields: JSONFields, to schedule: SummarySchedule) throws -> SummarySchedule {
        try fields.allowOnly(["times", "apps"])
        var times = schedule.times
        var apps = schedule.apps
        if let items = try fields.strings("times") {
            times = try items.enumerated().map { index, text in
                guard let time = ClockTime.parse(text) else {
                    throw APIError.invalidField(
                        "times[\(index)]", "must be a time of day \"HH:MM\" from 00:00 to 23:59.")
                }
                return TimeOfDay(hour: time.hour, minute: time.minute)
            }
        }
        if let items = try fields.strings("apps") {
            if let index = items.firstIndex(where: \.isEmpty) {
                throw APIError.invalidField("apps[\(index)]", "must be a bundle id.")
            }
            apps = Set(items)
        }
        do {
            return try SummarySchedule(times: times, apps: apps)
        } catch {
            throw APIError.invalidField(
                "times",
                "has \(Set(times).count) different times; a summary has at most \(SummarySchedule.maximumTimes).")
        }
    }
}
