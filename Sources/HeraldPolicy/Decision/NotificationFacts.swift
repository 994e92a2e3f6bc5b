import Foundation
import HeraldCore

/// When a notification stops being deliverable (`apns-expiration`).
public enum NotificationExpiry: Sendable, Codable, Hashable {
    /// `apns-expiration: 0`: delivered only if a session of the device is connected now.
    case immediately
    /// Never delivered after this instant.
    case at(Date)

    /// The expiry of an accepted push (nil when it has none).
    public init?(_ expiration: PushExpiration) {
        switch expiration {
        case .none: return nil
        case .immediately: self = .immediately
        case .at(let seconds): self = .at(Date(timeIntervalSince1970: Double(seconds)))
        }
    }

    /// As `apns-expiration` (0 for `immediately`, else the UNIX second it expires in), for `ExpiryRule`.
    public var seconds: Int64 {
        switch self {
        case .immediately: 0
        case .at(let date): Int64(date.timeIntervalSince1970.rounded(.down))
        }
    }
}

/// The options of a notification category (`UNNotificationCategoryOptions`, same raw values).
public struct CategoryOptions: OptionSet, Sendable, Codable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let customDismissAction = CategoryOptions(rawValue: 1)
    public static let allowInCarPlay = CategoryOptions(rawValue: 2)
    public static let hiddenPreviewsShowTitle = CategoryOptions(rawValue: 4)
    public static let hiddenPreviewsShowSubtitle = CategoryOptions(rawValue: 8)
    /// Deprecated by Apple (iOS 15) and ignored.
    public static let allowAnnouncement = CategoryOptions(rawValue: 16)
}

/// What the delivery policy needs to know about one notification.
public struct NotificationFacts: Sendable, Codable, Hashable, Identifiable {
    /// The notification id (apns-id or request identifier).
    public var id: String
    /// The app it is from.
    public var bundleID: String
    /// The level as sent (default active).
    public var level: InterruptionLevel
    /// The `interruption-level` as sent when it is not one the policy recognises (nil otherwise):
    /// `level` is then active, or critical with a critical-alert sound.
    public var unrecognizedLevel: String?
    /// The relevance score, 0…1 (values outside are clamped when ranking).
    public var relevanceScore: Double
    public var threadID: String?
    public var categoryID: String?
    public var collapseID: String?
    public var hasMediaAttachment: Bool
    /// Whether the content was updated from a message or call intent.
    public var isCommunication: Bool
    /// The sender of a communication notification.
    public var sender: PersonHandle?
    public var expiry: NotificationExpiry?
    public var receivedAt: Date
    /// Whether the payload asks for a sound.
    public var requestsSound: Bool
    /// The volume of a critical sound, 0…1 (nil = full volume).
    public var criticalVolume: Double?
    /// Whether the payload sets the app badge.
    public var setsBadge: Bool
    /// Notifications in the same thread, this one included: the `%u` of a hidden preview.
    public var threadCount: Int
    /// The category's hidden-previews body placeholder; nil = the default placeholder.
    public var hiddenPreviewsPlaceholder: String?
    /// The category's options (show title/subtitle when previews are hidden).
    public var categoryOptions: CategoryOptions

    public init(
        id: String,
        bundleID: String,
        level: InterruptionLevel = .active,
        unrecognizedLevel: String? = nil,
        relevanceScore: Double = 0,
        threadID: String? = nil,
        categoryID: String? = nil,
        collapseID: String? = nil,
        hasMediaAttachment: Bool = false,
        isCommunication: Bool = false,
        sender: PersonHandle? = nil,
        expiry: NotificationExpiry? = nil,
        receivedAt: Date,
        requestsSound: Bool = true,
        criticalVolume: Double? = nil,
        setsBadge: Bool = false,
        threadCount: Int = 1,
        hiddenPreviewsPlaceholder: String? = nil,
        categoryOptions: CategoryOptions = []
    ) {
        self.id = id
        self.bundleID = bundleID
        self.level = level
        self.unrecognizedLevel = unrecognizedLevel
        self.relevanceScore = relevanceScore
        self.threadID = threadID
        self.categoryID = categoryID
        self.collapseID = collapseID
        self.hasMediaAttachment = hasMediaAttachment
        self.isCommunication = isCommunication
        self.sender = sender
        self.expiry = expiry
        self.receivedAt = receivedAt
        self.requestsSound = requestsSound
        self.criticalVolume = criticalVolume
        self.setsBadge = setsBadge
        self.threadCount = threadCount
        self.hiddenPreviewsPlaceholder = hiddenPreviewsPlaceholder
        self.categoryOptions = categoryOptions
    }
}

extension NotificationFacts {
    /// The facts of an APNs payload. The level is `interruption-level`, else critical for a
    /// pre-iOS 15 critical sound (`"sound": {"critical": 1}`), else active; an `interruption-level`
    /// APNs does not know is ignored that way and kept as `unrecognizedLevel`.
    public init(
        id: String, bundleID: String, payload: NotificationPayload, collapseID: String? = nil,
        expiry: NotificationExpiry? = nil, receivedAt: Date
    ) {
        let aps = payload.aps
        let level = aps.interruptionLevel ?? (aps.sound?.isCritical == true ? .critical : .active)
        self.init(
            id: id, bundleID: bundleID, level: level,
            unrecognizedLevel: aps.interruptionLevel == nil ? aps.interruptionLevelRaw : nil,
            relevanceScore: aps.relevanceScore ?? 0,
            threadID: aps.threadID, categoryID: aps.category, collapseID: collapseID, expiry: expiry,
            receivedAt: receivedAt, requestsSound: aps.sound != nil,
            criticalVolume: aps.sound?.isCritical == true ? aps.sound?.volume : nil, setsBadge: aps.badge != nil
        )
    }
}
