import Foundation

/// Where the device plays audio.
public enum AudioRoute: String, CaseIterable, Sendable, Codable, Hashable {
    case none
    /// Headphones such as AirPods: notifications may be announced.
    case headphones
    /// A car (CarPlay): notifications may be announced.
    case car
    /// The built-in speaker.
    case speaker
}

/// How an app in the foreground asked to present a notification
/// (`UNNotificationPresentationOptions`, same raw values).
public struct PresentationOptions: OptionSet, Sendable, Codable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = PresentationOptions(rawValue: 1)
    public static let sound = PresentationOptions(rawValue: 2)
    /// Deprecated by Apple in favour of `banner` + `list`; Herald reads it as both.
    public static let alert = PresentationOptions(rawValue: 4)
    public static let list = PresentationOptions(rawValue: 8)
    public static let banner = PresentationOptions(rawValue: 16)
}

/// The app the person is using and its `willPresent` answer.
public struct ForegroundApp: Sendable, Codable, Hashable {
    public var bundleID: String
    /// What the app's delegate answers in `willPresent`; nil when the app has no delegate, in
    /// which case its notifications are not presented while it is in front.
    public var willPresent: PresentationOptions?

    public init(bundleID: String, willPresent: PresentationOptions?) {
        self.bundleID = bundleID
        self.willPresent = willPresent
    }
}

/// Where a device is, in degrees (WGS 84), as it reported.
public struct DeviceLocation: Sendable, Codable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What a device is doing right now.
public struct DeviceState: Sendable, Codable, Hashable {
    public var isLocked: Bool
    public var isRingerSilent: Bool
    public var audioRoute: AudioRoute
    /// The app in the foreground; ignored while the device is locked.
    public var foregroundApp: ForegroundApp?
    public var timeZone: TimeZone
    /// The device's locale (BCP 47); nil uses the person's.
    public var locale: String?
    /// Whether a session of the device is connected now (for `apns-expiration: 0`).
    public var hasConnectedSession: Bool
    /// Where the device last said it is (location triggers fire on it); nil when it never did.
    public var location: DeviceLocation?

    public init(
        isLocked: Bool = true,
        isRingerSilent: Bool = false,
        audioRoute: AudioRoute = .none,
        foregroundApp: ForegroundApp? = nil,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        locale: String? = nil,
        hasConnectedSession: Bool = true,
        location: DeviceLocation? = nil
    ) {
        self.isLocked = isLocked
        self.isRingerSilent = isRingerSilent
        self.audioRoute = audioRoute
        self.foregroundApp = foregroundApp
        self.timeZone = timeZone
        self.locale = locale
        self.hasConnectedSession = hasConnectedSession
        self.location = location
    }
}
