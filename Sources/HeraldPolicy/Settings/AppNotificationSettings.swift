/// A person's notification settings for one app: every field of `UNNotificationSettings` that
/// has a meaning for Herald.
public struct AppNotificationSettings: Sendable, Codable, Hashable {
    public var authorizationStatus: AuthorizationStatus
    public var alertStyle: AlertStyle
    public var sound: NotificationSetting
    public var badge: NotificationSetting
    public var lockScreen: NotificationSetting
    public var notificationCenter: NotificationSetting
    public var carPlay: NotificationSetting
    /// The app's own Show Previews choice; nil uses the person's global default.
    public var showPreviews: ShowPreviewsSetting?
    /// Whether the app's time-sensitive notifications are allowed (`timeSensitiveSetting`).
    public var timeSensitive: NotificationSetting
    /// Whether the app's critical alerts are allowed (`criticalAlertSetting`).
    public var criticalAlerts: NotificationSetting
    /// Whether the app is in the Scheduled Summary (`scheduledDeliverySetting`).
    public var scheduledDelivery: NotificationSetting
    /// Whether the app's communication notifications go into the summary too (`directMessagesSetting`).
    public var directMessagesInSummary: NotificationSetting
    /// Announce for this app: `enabled` announces all of its notifications, `disabled` none,
    /// `notSupported` only the default ones (communication and time-sensitive).
    public var announcement: NotificationSetting
    /// The app's own Notification Grouping choice; nil uses the person's global default.
    public var grouping: NotificationGrouping?

    public init(
        authorizationStatus: AuthorizationStatus = .notDetermined,
        alertStyle: AlertStyle = .banner,
        sound: NotificationSetting = .enabled,
        badge: NotificationSetting = .enabled,
        lockScreen: NotificationSetting = .enabled,
        notificationCenter: NotificationSetting = .enabled,
        carPlay: NotificationSetting = .enabled,
        showPreviews: ShowPreviewsSetting? = nil,
        timeSensitive: NotificationSetting = .enabled,
        criticalAlerts: NotificationSetting = .notSupported,
        scheduledDelivery: NotificationSetting = .disabled,
        directMessagesInSummary: NotificationSetting = .disabled,
        announcement: NotificationSetting = .notSupported,
        grouping: NotificationGrouping? = nil
    ) {
        self.authorizationStatus = authorizationStatus
        self.alertStyle = alertStyle
        self.sound = sound
        self.badge = badge
        self.lockScreen = lockScreen
        self.notificationCenter = notificationCenter
        self.carPlay = carPlay
        self.showPreviews = showPreviews
        self.timeSensitive = timeSensitive
        self.criticalAlerts = criticalAlerts
        self.scheduledDelivery = scheduledDelivery
        self.directMessagesInSummary = directMessagesInSummary
        self.announcement = announcement
        self.grouping = grouping
    }

    /// The settings of an app the person allowed, with the system defaults for everything else.
    public static let authorized = AppNotificationSettings(authorizationStatus: .authorized)
}
