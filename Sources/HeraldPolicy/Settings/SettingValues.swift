/// Whether an app may post notifications (`UNAuthorizationStatus`, same raw values).
public enum AuthorizationStatus: Int, CaseIterable, Sendable, Codable, Hashable {
    /// The person has not been asked yet: nothing is delivered.
    case notDetermined = 0
    /// The person turned notifications off: nothing is delivered.
    case denied = 1
    /// The person allowed notifications.
    case authorized = 2
    /// Allowed without asking: delivered quietly to Notification Center only.
    case provisional = 3
    /// Allowed for a limited time (App Clips); Herald treats it as `authorized`.
    case ephemeral = 4
}

/// A per-app switch (`UNNotificationSetting`, same raw values).
public enum NotificationSetting: Int, CaseIterable, Sendable, Codable, Hashable {
    /// The app cannot use the feature (for example, it lacks the entitlement).
    case notSupported = 0
    case disabled = 1
    case enabled = 2

    /// Whether the setting is `enabled`.
    @inlinable public var isEnabled: Bool { self == .enabled }
}

/// How alerts of an app are shown (`UNAlertStyle`, same raw values).
public enum AlertStyle: Int, CaseIterable, Sendable, Codable, Hashable {
    /// No banner.
    case none = 0
    /// A temporary banner.
    case banner = 1
    /// A persistent alert that stays until the person acts on it.
    case alert = 2
}

/// When a notification's content is shown (`UNShowPreviewsSetting`, same raw values).
public enum ShowPreviewsSetting: Int, CaseIterable, Sendable, Codable, Hashable {
    case always = 0
    /// Only while the device is unlocked ("When Unlocked").
    case whenAuthenticated = 1
    case never = 2
}

/// How the notification list groups notifications.
public enum NotificationGrouping: String, CaseIterable, Sendable, Codable, Hashable {
    /// By app, then by thread identifier.
    case automatic
    /// One group per app.
    case byApp
    /// No grouping.
    case off
}
