// The option sets and enumerations of Apple's UserNotifications framework, with Apple's raw values
// (docs: the reference's section 1; the values are the SDK's, so raw values written by an Apple
// client mean the same here).
#if os(Linux)
    import Foundation

    public struct UNAuthorizationOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
        public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
        public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
        public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
        public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
        public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
        public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
        @available(*, deprecated, message: "Announcement authorization is always included")
        public static let announcement = UNAuthorizationOptions(rawValue: 1 << 7)
        @available(*, deprecated, message: "Use time-sensitive entitlement")
        public static let timeSensitive = UNAuthorizationOptions(rawValue: 1 << 8)
    }

    public struct UNNotificationPresentationOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
        public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
        @available(*, deprecated, message: "Use list and banner instead")
        public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
        public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
        public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
    }

    public enum UNAuthorizationStatus: Int, Sendable {
        case notDetermined = 0
        case denied = 1
        case authorized = 2
        case provisional = 3
        case ephemeral = 4
    }

    public enum UNNotificationSetting: Int, Sendable {
        case notSupported = 0
        case disabled = 1
        case enabled = 2
    }

    public enum UNAlertStyle: Int, Sendable {
        case none = 0
        case banner = 1
        case alert = 2
    }

    public enum UNShowPreviewsSetting: Int, Sendable {
        case always = 0
        case whenAuthenticated = 1
        case never = 2
    }

    public enum UNNotificationInterruptionLevel: UInt, Sendable {
        case passive = 0
        case active = 1
        case timeSensitive = 2
        case critical = 3

        /// Apple's default level: `.active`.
        public static var `default`: UNNotificationInterruptionLevel { .active }
    }

    public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
        public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
        public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
    }

    public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
        public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
        public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
        public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
        @available(*, deprecated, message: "Announcement option is ignored")
        public static let allowAnnouncement = UNNotificationCategoryOptions(rawValue: 1 << 4)
    }

    public enum UNNotificationContentExtensionMediaPlayPauseButtonType: UInt, Sendable {
        case none = 0
        case `default` = 1
        case overlay = 2
    }

    public enum UNNotificationContentExtensionResponseOption: UInt, Sendable {
        case doNotDismiss = 0
        case dismiss = 1
        case dismissAndForwardAction = 2
    }

    /// A sound file's name (`UNNotificationSound(named:)`), a string wrapped like Apple's.
    public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }

    /// The action identifier of a response to a tap on the notification itself.
    public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The action identifier of a response to a dismissal (only for a category with `.customDismissAction`).
    public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
#endif
