import Foundation

/// Announce Notifications: Siri reads notifications aloud on headphones or in the car.
public struct AnnounceSettings: Sendable, Codable, Hashable {
    /// The global Announce Notifications switch.
    public var isOn: Bool
    /// Apps whose every notification is announced (beyond the default: communication and
    /// time-sensitive notifications of every app).
    public var apps: Set<String>

    public init(isOn: Bool = false, apps: Set<String> = []) {
        self.isOn = isOn
        self.apps = apps
    }
}

/// A person's notification preferences shared by all their devices.
public struct UserPreferences: Sendable, Codable, Hashable {
    /// The global Show Previews default; an app's own setting overrides it. When Unlocked
    /// (`whenAuthenticated`) unless the person chose otherwise, as on iOS.
    public var showPreviews: ShowPreviewsSetting
    public var grouping: NotificationGrouping
    public var announce: AnnounceSettings
    /// The zone Focus schedules and summary times are read in.
    public var timeZone: TimeZone
    /// The person's locale (a BCP 47 identifier such as "en-GB" or "ar"); a device's own locale
    /// overrides it.
    public var locale: String

    public init(
        showPreviews: ShowPreviewsSetting = .whenAuthenticated,
        grouping: NotificationGrouping = .automatic,
        announce: AnnounceSettings = AnnounceSettings(),
        timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        locale: String = "en"
    ) {
        self.showPreviews = showPreviews
        self.grouping = grouping
        self.announce = announce
        self.timeZone = timeZone
        self.locale = locale
    }
}
