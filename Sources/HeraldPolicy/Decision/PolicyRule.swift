/// The rules of the delivery policy, in the order `decide` evaluates them; the raw value is the
/// rule's bit in `ReasonCodes`, so a decision's reasons read in evaluation order.
enum PolicyRule: UInt8, CaseIterable, Sendable {
    case expired
    case expiredNoSession
    case authorizationDenied
    case authorizationNotDetermined
    case interruptionLevelUnrecognized
    case criticalNotEntitled
    case criticalTurnedOff
    case timeSensitiveNotEntitled
    case timeSensitiveTurnedOff
    case communicationNotEntitled
    case provisional
    case directMessagesInSummary
    case criticalBypassesSummary
    case summaryBypassedTimeSensitive
    case communicationBypassesSummary
    case summaryHeld
    case focusHeld
    case focusSilencedApp
    case focusSilencedPerson
    case focusDisallowsTimeSensitive
    case criticalBypassesFocus
    case focusAllowedApp
    case focusAppNotSilenced
    case focusAllowedPerson
    case focusAllowsTimeSensitive
    case passiveQuiet
    case foregroundWillPresent
    case foregroundNoDelegate
    case bannersOff
    case soundOff
    case ringerSilent
    case criticalBypassesRinger
    case announced
    case previewsHiddenNever
    case previewsHiddenLocked

    /// The reason code's wire name.
    var name: String {
        switch self {
        case .expired: "expired"
        case .expiredNoSession: "expired-no-session"
        case .authorizationDenied: "authorization-denied"
        case .authorizationNotDetermined: "authorization-not-determined"
        case .interruptionLevelUnrecognized: "interruption-level-unrecognized"
        case .criticalNotEntitled: "critical-not-entitled"
        case .criticalTurnedOff: "critical-turned-off"
        case .timeSensitiveNotEntitled: "time-sensitive-not-entitled"
        case .timeSensitiveTurnedOff: "time-sensitive-turned-off"
        case .communicationNotEntitled: "communication-not-entitled"
        case .provisional: "provisional"
        case .summaryHeld: "summary-held"
        case .directMessagesInSummary: "direct-messages-in-summary"
        case .criticalBypassesSummary: "critical-bypasses-summary"
        case .summaryBypassedTimeSensitive: "summary-bypassed-time-sensitive"
        case .communicationBypassesSummary: "communication-bypasses-summary"
        case .focusHeld: "focus-held"
        case .focusSilencedApp: "focus-silenced-app"
        case .focusSilencedPerson: "focus-silenced-person"
        case .focusDisallowsTimeSensitive: "focus-disallows-time-sensitive"
        case .criticalBypassesFocus: "critical-bypasses-focus"
        case .focusAllowedApp: "focus-allowed-app"
        case .focusAppNotSilenced: "focus-app-not-silenced"
        case .focusAllowedPerson: "focus-allowed-person"
        case .focusAllowsTimeSensitive: "focus-allows-time-sensitive"
        case .passiveQuiet: "passive-quiet"
        case .foregroundWillPresent: "foreground-will-present"
        case .foregroundNoDelegate: "foreground-no-delegate"
        case .bannersOff: "banners-off"
        case .soundOff: "sound-off"
        case .ringerSilent: "ringer-silent"
        case .criticalBypassesRinger: "critical-bypasses-ringer"
        case .announced: "announced"
        case .previewsHiddenNever: "previews-hidden-never"
        case .previewsHiddenLocked: "previews-hidden-locked"
        }
    }

    static let byName: [String: PolicyRule] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
}
