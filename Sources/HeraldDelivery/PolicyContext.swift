import Foundation
import HeraldCore
import HeraldLocalization
import HeraldPolicy
import HeraldStore

/// What the delivery policy knows about one device and its user, with the defaults applied for
/// everything the user never set: every app authorized with the system defaults, the default
/// `UserPreferences` (Show Previews When Unlocked, as iOS and `GET /v1/me/preferences` have it), no
/// Focus, no Scheduled Summary, the default device state.
public struct DevicePolicyContext: Sendable, Hashable {
    /// The device decided for.
    public var deviceID: String
    /// The device's owner; nil for a device the store does not know.
    public var userID: String?
    /// The user's preferences (time zone, locale, Show Previews, announce).
    public var preferences: UserPreferences
    /// The per-app settings the user set, by bundle id (`settings(for:)` applies the default).
    public var appSettings: [String: AppNotificationSettings]
    /// The user's Focus modes.
    public var focusModes: FocusModes
    /// The user's Scheduled Summary (`.off` when unset).
    public var summary: SummarySchedule
    /// The device's state (the default state when unset).
    public var deviceState: DeviceState
    /// The time zone of the device's calendar (what calendar triggers match in): the device state's
    /// when the device reported one, else the user's preferences' (UTC by default).
    public var calendarTimeZone: TimeZone

    /// The preferences of a user who set none: `UserPreferences()`, the same defaults the API reports
    /// and starts from when the user saves a preference.
    public static let defaultPreferences = UserPreferences()
    /// The settings of an app the user set nothing for.
    public static let defaultAppSettings = AppNotificationSettings.authorized

    /// The context of a device whose user set nothing.
    public init(deviceID: String, userID: String?) {
        self.deviceID = deviceID
        self.userID = userID
        preferences = Self.defaultPreferences
        appSettings = [:]
        focusModes = FocusModes()
        summary = .off
        deviceState = DeviceState()
        calendarTimeZone = preferences.timeZone
    }

    /// The context of a stored record, defaults applied.
    public init(_ record: PolicyContextRecord) {
        self.init(deviceID: record.deviceID, userID: record.userID)
        preferences = record.preferences ?? Self.defaultPreferences
        appSettings = record.appSettings
        focusModes = FocusModes(record.focusModes)
        summary = record.summarySchedule ?? .off
        deviceState = record.deviceState ?? DeviceState()
        calendarTimeZone = record.deviceState?.timeZone ?? preferences.timeZone
    }

    /// The user's settings for an app (the defaults when they set none).
    public func settings(for bundleID: String) -> AppNotificationSettings {
        appSettings[bundleID] ?? Self.defaultAppSettings
    }

    /// The Focus that is on at `now`, read in the user's time zone.
    public func activeFocus(at now: Date) -> ActiveFocus? {
        focusModes.modes.isEmpty ? nil : focusModes.active(at: now, in: preferences.timeZone)
    }
}

/// What an app registered that decisions and previews need: its categories' hidden-preview
/// options and actions, and its localizations.
struct AppResources: Sendable {
    struct Category: Sendable, Hashable {
        var hiddenPreviewsPlaceholder: String?
        var options: CategoryOptions
        /// The category's actions as registered (the API's canonical JSON array); nil when it has none.
        var actions: JSONValue?
    }

    var categories: [String: Category] = [:]
    var localizations = AppLocalizations()

    static let optionNames: [String: CategoryOptions] = [
        "custom_dismiss_action": .customDismissAction, "allow_in_car_play": .allowInCarPlay,
        "hidden_previews_show_title": .hiddenPreviewsShowTitle,
        "hidden_previews_show_subtitle": .hiddenPreviewsShowSubtitle,
    ]

    /// Reads the categories (the API's canonical JSON: `hidden_previews_body_placeholder`,
    /// `options` as names) and the localization files; a file that does not parse is skipped.
    init(categories records: [CategoryRecord], files: [LocalizationFileRecord]) {
        for record in records {
            guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(record.json.utf8)).objectValue
            else { continue }
            var category = Category(hiddenPreviewsPlaceholder: nil, options: [])
            if case .array(let actions)? = object["actions"], !actions.isEmpty {
                category.actions = .array(actions)
            }
            if case .string(let placeholder)? = object["hidden_previews_body_placeholder"] {
                category.hiddenPreviewsPlaceholder = placeholder
            }
            if case .array(let options)? = object["options"] {
                for case .string(let name) in options {
                    if let option = Self.optionNames[name] { category.options.insert(option) }
                }
            }
            categories[record.identifier] = category
        }
        for file in files {
            switch file.kind {
            case .strings: try? localizations.addStringsFile(file.data, locale: file.locale)
            case .stringsdict: try? localizations.addStringsDictionary(file.data, locale: file.locale)
            case .xcstrings: try? localizations.addStringCatalog(file.data)
            }
        }
    }

    init() {}
}
