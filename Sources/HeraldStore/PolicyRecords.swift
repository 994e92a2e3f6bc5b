import Foundation
import HeraldPolicy

/// Everything the delivery policy needs about a device and its user, read in one transaction.
///
/// A value the user never set is nil (or empty): the caller applies the policy's defaults.
public struct PolicyContextRecord: Sendable, Hashable {
    public var deviceID: String
    /// The device's owner; the user-side state below is theirs, shared by all their devices.
    public var userID: String
    public var preferences: UserPreferences?
    /// The per-app settings the user set, by bundle id.
    public var appSettings: [String: AppNotificationSettings]
    /// The user's Focus modes in the order they were added (the order breaks ties between modes).
    public var focusModes: [FocusMode]
    public var summarySchedule: SummarySchedule?
    public var deviceState: DeviceState?

    public init(
        deviceID: String, userID: String, preferences: UserPreferences? = nil,
        appSettings: [String: AppNotificationSettings] = [:], focusModes: [FocusMode] = [],
        summarySchedule: SummarySchedule? = nil, deviceState: DeviceState? = nil
    ) {
        self.deviceID = deviceID
        self.userID = userID
        self.preferences = preferences
        self.appSettings = appSettings
        self.focusModes = focusModes
        self.summarySchedule = summarySchedule
        self.deviceState = deviceState
    }
}

/// A user whose Scheduled Summary is on, with what the summary service needs to time it.
public struct SummaryUserRecord: Sendable, Hashable {
    public var userID: String
    /// The schedule (it has at least one time).
    public var schedule: SummarySchedule
    /// The zone the times are read in: the user's preference, UTC when they set none.
    public var timeZone: TimeZone
    /// The summary time (slot) of the latest summary delivered to the user; nil when none was.
    public var lastDeliveredSlot: Date?

    public init(userID: String, schedule: SummarySchedule, timeZone: TimeZone, lastDeliveredSlot: Date?) {
        self.userID = userID
        self.schedule = schedule
        self.timeZone = timeZone
        self.lastDeliveredSlot = lastDeliveredSlot
    }
}

/// A new decision for one notification of a device (for example, a held one released by a summary).
public struct DecisionUpdate: Sendable, Hashable {
    public var deviceID: String
    /// The notification id.
    public var id: String
    /// The raw value of the decision's `Disposition`.
    public var disposition: String
    /// The decision as JSON text.
    public var decision: String

    public init(deviceID: String, id: String, disposition: String, decision: String) {
        self.deviceID = deviceID
        self.id = id
        self.disposition = disposition
        self.decision = decision
    }
}

/// A notification category an app registered, as JSON text (the API owns the category model).
public struct CategoryRecord: Sendable, Hashable {
    public var bundleID: String
    public var identifier: String
    /// The category as a JSON object.
    public var json: String

    public init(bundleID: String, identifier: String, json: String) {
        self.bundleID = bundleID
        self.identifier = identifier
        self.json = json
    }
}

/// The formats of localization files an app can upload.
public enum LocalizationFileKind: String, CaseIterable, Sendable, Hashable, Codable {
    /// `Localizable.strings`: one locale.
    case strings
    /// A `.stringsdict` property list (plural variants): one locale.
    case stringsdict
    /// A String Catalog (`.xcstrings` JSON): every locale at once.
    case xcstrings
}

/// A localization file of an app, exactly as uploaded.
public struct LocalizationFileRecord: Sendable, Hashable {
    public var bundleID: String
    /// The locale as uploaded (`pt-BR`, `Base`, …); may be empty for a String Catalog.
    public var locale: String
    public var kind: LocalizationFileKind
    /// The file name (`Localizable.strings`, …).
    public var name: String
    public var data: Data

    public init(bundleID: String, locale: String, kind: LocalizationFileKind, name: String, data: Data) {
        self.bundleID = bundleID
        self.locale = locale
        self.kind = kind
        self.name = name
        self.data = data
    }
}
