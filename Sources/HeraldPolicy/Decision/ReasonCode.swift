/// Why a decision came out as it did: one code per policy rule that fired.
///
/// An open set: codes this version does not know (from a newer Herald) decode and round-trip.
public struct ReasonCode: RawRepresentable, Sendable, Codable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    init(_ rule: PolicyRule) { rawValue = rule.name }

    public var description: String { rawValue }

    /// The rule behind a code this version knows.
    var rule: PolicyRule? { PolicyRule.byName[rawValue] }

    /// Past its `apns-expiration`: never delivered.
    public static let expired = ReasonCode(.expired)
    /// `apns-expiration: 0` and no session of the device connected.
    public static let expiredNoSession = ReasonCode(.expiredNoSession)
    public static let authorizationDenied = ReasonCode(.authorizationDenied)
    public static let authorizationNotDetermined = ReasonCode(.authorizationNotDetermined)
    /// An `interruption-level` the policy does not recognise: treated as active (critical with a
    /// critical-alert sound).
    public static let interruptionLevelUnrecognized = ReasonCode(.interruptionLevelUnrecognized)
    /// Sent critical without the entitlement: treated as time-sensitive.
    public static let criticalNotEntitled = ReasonCode(.criticalNotEntitled)
    /// Sent critical while the person turned critical alerts off: treated as time-sensitive.
    public static let criticalTurnedOff = ReasonCode(.criticalTurnedOff)
    /// Time-sensitive without the entitlement: treated as active.
    public static let timeSensitiveNotEntitled = ReasonCode(.timeSensitiveNotEntitled)
    /// Time-sensitive while the person turned it off for the app: treated as active.
    public static let timeSensitiveTurnedOff = ReasonCode(.timeSensitiveTurnedOff)
    /// A communication notification from an app without the communication entitlement.
    public static let communicationNotEntitled = ReasonCode(.communicationNotEntitled)
    /// Provisional authorization: delivered quietly.
    public static let provisional = ReasonCode(.provisional)
    public static let summaryHeld = ReasonCode(.summaryHeld)
    public static let directMessagesInSummary = ReasonCode(.directMessagesInSummary)
    public static let criticalBypassesSummary = ReasonCode(.criticalBypassesSummary)
    public static let summaryBypassedTimeSensitive = ReasonCode(.summaryBypassedTimeSensitive)
    public static let communicationBypassesSummary = ReasonCode(.communicationBypassesSummary)
    /// Held: the Focus allows neither the app nor the sender.
    public static let focusHeld = ReasonCode(.focusHeld)
    /// Held: the Focus silences the app.
    public static let focusSilencedApp = ReasonCode(.focusSilencedApp)
    /// Held: the Focus silences the sender.
    public static let focusSilencedPerson = ReasonCode(.focusSilencedPerson)
    /// A time-sensitive notification held because the Focus does not allow time-sensitive ones.
    public static let focusDisallowsTimeSensitive = ReasonCode(.focusDisallowsTimeSensitive)
    public static let criticalBypassesFocus = ReasonCode(.criticalBypassesFocus)
    public static let focusAllowedApp = ReasonCode(.focusAllowedApp)
    public static let focusAppNotSilenced = ReasonCode(.focusAppNotSilenced)
    public static let focusAllowedPerson = ReasonCode(.focusAllowedPerson)
    public static let focusAllowsTimeSensitive = ReasonCode(.focusAllowsTimeSensitive)
    /// Passive: listed without sound or banner.
    public static let passiveQuiet = ReasonCode(.passiveQuiet)
    /// The app is in the foreground and its `willPresent` answer decided the presentation.
    public static let foregroundWillPresent = ReasonCode(.foregroundWillPresent)
    /// The app is in the foreground without a delegate: not presented.
    public static let foregroundNoDelegate = ReasonCode(.foregroundNoDelegate)
    public static let bannersOff = ReasonCode(.bannersOff)
    public static let soundOff = ReasonCode(.soundOff)
    public static let ringerSilent = ReasonCode(.ringerSilent)
    public static let criticalBypassesRinger = ReasonCode(.criticalBypassesRinger)
    public static let announced = ReasonCode(.announced)
    public static let previewsHiddenNever = ReasonCode(.previewsHiddenNever)
    public static let previewsHiddenLocked = ReasonCode(.previewsHiddenLocked)
}
