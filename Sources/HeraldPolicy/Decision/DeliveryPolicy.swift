import Foundation
import HeraldCore

/// Decides how `notification` interrupts on a device: the delivery-policy contract of
/// docs/delivery-policy.md, one rule per row, each recorded as a reason code.
///
/// Rules, in order: expiry → authorization → level (an unrecognised one, entitlements and settings) →
/// communication → provisional → Scheduled Summary → Focus → presentation (passive, alert
/// style, sound, badge, foreground app, silent ringer) → announce → previews.
/// Pure: no clock (`now` is the decision instant), no I/O, no allocation unless a preview is
/// hidden or a Focus holds the notification.
public func decide(
    _ notification: NotificationFacts,
    app: App,
    settings: AppNotificationSettings,
    preferences: UserPreferences,
    focus: ActiveFocus?,
    summary: SummarySchedule,
    device: DeviceState,
    now: Date
) -> Decision {
    var reasons = ReasonCodes()

    if let expiry = notification.expiry,
        !ExpiryRule.isDeliverable(
            expiration: expiry.seconds, alreadyDelivered: false, toConnectedSession: device.hasConnectedSession,
            now: now)
    {
        reasons.record(expiry == .immediately ? .expiredNoSession : .expired)
        return Decision(disposition: .notDelivered, effectiveLevel: notification.level, reasons: reasons)
    }

    switch settings.authorizationStatus {
    case .denied:
        reasons.record(.authorizationDenied)
        return Decision(disposition: .notDelivered, effectiveLevel: notification.level, reasons: reasons)
    case .notDetermined:
        reasons.record(.authorizationNotDetermined)
        return Decision(disposition: .notDelivered, effectiveLevel: notification.level, reasons: reasons)
    case .authorized, .provisional, .ephemeral:
        break
    }

    if notification.unrecognizedLevel != nil { reasons.record(.interruptionLevelUnrecognized) }
    let level = effectiveLevel(
        of: notification.level, entitlements: app.entitlements, settings: settings, reasons: &reasons)
    var isCommunication = notification.isCommunication
    if isCommunication, !app.entitlements.communication {
        reasons.record(.communicationNotEntitled)
        isCommunication = false
    }

    if settings.authorizationStatus == .provisional {
        reasons.record(.provisional)
        let preview = previewDecision(
            notification, settings: settings, preferences: preferences, device: device, reasons: &reasons)
        return Decision(
            disposition: .listedSilently, notificationCenter: true, preview: preview, effectiveLevel: level,
            reasons: reasons
        )
    }

    if summary.holds(app: notification.bundleID, settings: settings),
        summaryHolds(level: level, isCommunication: isCommunication, settings: settings, reasons: &reasons)
    {
        reasons.record(.summaryHeld)
        let preview = previewDecision(
            notification, settings: settings, preferences: preferences, device: device, reasons: &reasons)
        return Decision(disposition: .heldForSummary, preview: preview, effectiveLevel: level, reasons: reasons)
    }

    if let focus,
        focusHolds(focus.mode, notification, level: level, isCommunication: isCommunication, reasons: &reasons)
    {
        let preview = previewDecision(
            notification, settings: settings, preferences: preferences, device: device, reasons: &reasons)
        return Decision(
            disposition: .heldForFocus, preview: preview, effectiveLevel: level, focusID: focus.mode.id,
            reasons: reasons
        )
    }

    let shown = present(notification, level: level, settings: settings, device: device, reasons: &reasons)
    let announce =
        shown.disposition == .alerted
        && announces(
            notification, level: level, isCommunication: isCommunication, settings: settings, preferences: preferences,
            device: device)
    if announce { reasons.record(.announced) }
    let preview = previewDecision(
        notification, settings: settings, preferences: preferences, device: device, reasons: &reasons)
    return Decision(
        disposition: shown.disposition, banner: shown.banner, sound: shown.sound, badge: shown.badge,
        lockScreen: shown.lockScreen, notificationCenter: shown.notificationCenter, announce: announce,
        preview: preview, effectiveLevel: level, reasons: reasons
    )
}

/// The level after the entitlement and setting checks: critical needs the critical-alerts
/// entitlement and setting, else it is time-sensitive; time-sensitive needs its entitlement and
/// setting, else it is active.
@inline(__always)
func effectiveLevel(
    of sent: InterruptionLevel, entitlements: Entitlements, settings: AppNotificationSettings,
    reasons: inout ReasonCodes
) -> InterruptionLevel {
    var level = sent
    if level == .critical {
        if !entitlements.criticalAlerts {
            reasons.record(.criticalNotEntitled)
            level = .timeSensitive
        } else if !settings.criticalAlerts.isEnabled {
            reasons.record(.criticalTurnedOff)
            level = .timeSensitive
        }
    }
    if level == .timeSensitive {
        if !entitlements.timeSensitive {
            reasons.record(.timeSensitiveNotEntitled)
            level = .active
        } else if !settings.timeSensitive.isEnabled {
            reasons.record(.timeSensitiveTurnedOff)
            level = .active
        }
    }
    return level
}

/// Whether a notification of an app in the summary waits for it: passive and active ones do;
/// critical, time-sensitive and (unless direct messages are in the summary) communication
/// notifications bypass it.
@inline(__always)
func summaryHolds(
    level: InterruptionLevel, isCommunication: Bool, settings: AppNotificationSettings, reasons: inout ReasonCodes
) -> Bool {
    switch level {
    case .critical:
        reasons.record(.criticalBypassesSummary)
        return false
    case .timeSensitive:
        reasons.record(.summaryBypassedTimeSensitive)
        return false
    case .active where isCommunication:
        if settings.directMessagesInSummary.isEnabled {
            reasons.record(.directMessagesInSummary)
            return true
        }
        reasons.record(.communicationBypassesSummary)
        return false
    case .active, .passive:
        return true
    }
}

/// Whether the active Focus holds the notification. Critical always breaks through; then the
/// Focus's lists (allowed or silenced apps, then people, for communication notifications);
/// then time-sensitive, when the Focus allows it. The lists apply to every level, so a passive
/// notification of an allowed app is listed (silently) rather than held.
@inline(__always)
func focusHolds(
    _ mode: FocusMode, _ notification: NotificationFacts, level: InterruptionLevel, isCommunication: Bool,
    reasons: inout ReasonCodes
) -> Bool {
    if level == .critical {
        reasons.record(.criticalBypassesFocus)
        return false
    }
    let sender = isCommunication ? notification.sender : nil
    let breaksThroughAsTimeSensitive = level == .timeSensitive && mode.allowsTimeSensitive
    switch mode.filterMode {
    case .allowFrom:
        if mode.allowedApps.contains(notification.bundleID) {
            reasons.record(.focusAllowedApp)
            return false
        }
        if let sender, mode.lists(person: sender) {
            reasons.record(.focusAllowedPerson)
            return false
        }
        if breaksThroughAsTimeSensitive {
            reasons.record(.focusAllowsTimeSensitive)
            return false
        }
        reasons.record(.focusHeld)
    case .silenceFrom:
        let appSilenced = mode.silencedApps.contains(notification.bundleID)
        let personSilenced = sender.map(mode.lists(person:)) ?? false
        if !appSilenced, !personSilenced {
            reasons.record(.focusAppNotSilenced)
            return false
        }
        if breaksThroughAsTimeSensitive {
            reasons.record(.focusAllowsTimeSensitive)
            return false
        }
        reasons.record(appSilenced ? .focusSilencedApp : .focusSilencedPerson)
    }
    if level == .timeSensitive { reasons.record(.focusDisallowsTimeSensitive) }
    return true
}
