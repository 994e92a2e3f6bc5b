import HeraldCore

/// What happens to a notification on a device.
public enum Disposition: String, CaseIterable, Sendable, Codable, Hashable {
    /// Dropped: not authorized, or expired.
    case notDelivered
    /// In the list, without interrupting (no banner, no sound).
    case listedSilently
    /// Interrupts with a banner and/or a sound.
    case alerted
    /// Waits for the active Focus to end.
    case heldForFocus
    /// Waits for the next Scheduled Summary.
    case heldForSummary

    /// Whether the notification waits (for a Focus or the summary).
    public var isHeld: Bool { self == .heldForFocus || self == .heldForSummary }
}

/// The sound a notification makes.
public struct SoundDecision: Sendable, Codable, Hashable {
    public var plays: Bool
    /// Whether it plays even with the ringer silent (critical alerts).
    public var bypassesRinger: Bool
    /// The volume 0…1 of a critical sound; nil = the device's volume.
    public var volume: Double?

    public init(plays: Bool = false, bypassesRinger: Bool = false, volume: Double? = nil) {
        self.plays = plays
        self.bypassesRinger = bypassesRinger
        self.volume = volume
    }

    public static let silent = SoundDecision()
}

/// What a hidden preview shows instead of the content, and what rendering it needs.
public struct HiddenPreview: Sendable, Codable, Hashable {
    /// The category's placeholder (may contain `%u`); nil = the default placeholder.
    public var placeholder: String?
    /// The `%u`: notifications in the thread.
    public var threadCount: Int
    /// The locale the placeholder is pluralized for (BCP 47).
    public var locale: String
    /// Whether the title is still shown (`hiddenPreviewsShowTitle`).
    public var showsTitle: Bool
    /// Whether the subtitle is still shown (`hiddenPreviewsShowSubtitle`).
    public var showsSubtitle: Bool

    public init(placeholder: String?, threadCount: Int, locale: String, showsTitle: Bool, showsSubtitle: Bool) {
        self.placeholder = placeholder
        self.threadCount = threadCount
        self.locale = locale
        self.showsTitle = showsTitle
        self.showsSubtitle = showsSubtitle
    }
}

/// Whether the content is shown.
public enum PreviewDecision: Sendable, Codable, Hashable {
    case full
    case hidden(HiddenPreview)

    public var isHidden: Bool {
        if case .hidden = self { return true }
        return false
    }
}

/// How one notification interrupts on one device, and every rule that said so.
public struct Decision: Sendable, Codable, Hashable {
    public var disposition: Disposition
    /// The banner style; `.none` when no banner is shown.
    public var banner: AlertStyle
    public var sound: SoundDecision
    /// Whether the payload's badge is applied.
    public var badge: Bool
    /// Whether it shows on the lock screen.
    public var lockScreen: Bool
    /// Whether it stays in Notification Center.
    public var notificationCenter: Bool
    /// Whether Siri reads it aloud.
    public var announce: Bool
    public var preview: PreviewDecision
    /// The level after entitlement and setting checks.
    public var effectiveLevel: InterruptionLevel
    /// The Focus holding it (when `heldForFocus`).
    public var focusID: String?
    public var reasons: ReasonCodes

    public init(
        disposition: Disposition, banner: AlertStyle = .none, sound: SoundDecision = .silent, badge: Bool = false,
        lockScreen: Bool = false, notificationCenter: Bool = false, announce: Bool = false,
        preview: PreviewDecision = .full, effectiveLevel: InterruptionLevel, focusID: String? = nil,
        reasons: ReasonCodes = []
    ) {
        self.disposition = disposition
        self.banner = banner
        self.sound = sound
        self.badge = badge
        self.lockScreen = lockScreen
        self.notificationCenter = notificationCenter
        self.announce = announce
        self.preview = preview
        self.effectiveLevel = effectiveLevel
        self.focusID = focusID
        self.reasons = reasons
    }
}
