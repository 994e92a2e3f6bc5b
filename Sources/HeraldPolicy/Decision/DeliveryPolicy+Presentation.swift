import HeraldCore

/// How a delivered notification shows: the part of a decision `present` makes.
struct Presentation {
    var disposition: Disposition
    var banner: AlertStyle
    var sound: SoundDecision
    var badge: Bool
    var lockScreen: Bool
    var notificationCenter: Bool
}

/// How a delivered (not held) notification is presented: passive ones are listed silently;
/// the others get the app's alert style, sound and badge (critical: always a banner and a sound
/// that bypasses the ringer, at the critical volume); the foreground app's `willPresent` answer
/// replaces the alert; a silent ringer mutes every sound but a critical one.
@inline(__always)
func present(
    _ notification: NotificationFacts, level: InterruptionLevel, settings: AppNotificationSettings,
    device: DeviceState, reasons: inout ReasonCodes
) -> Presentation {
    var banner = AlertStyle.none
    var sound = SoundDecision.silent
    var badge = notification.setsBadge && settings.badge.isEnabled
    var lockScreen = settings.lockScreen.isEnabled
    var notificationCenter = settings.notificationCenter.isEnabled

    switch level {
    case .passive:
        reasons.record(.passiveQuiet)
    case .critical:
        banner = settings.alertStyle == .none ? .banner : settings.alertStyle
        sound = SoundDecision(
            plays: true, bypassesRinger: true, volume: min(max(notification.criticalVolume ?? 1, 0), 1))
    case .active, .timeSensitive:
        banner = settings.alertStyle
        if banner == .none { reasons.record(.bannersOff) }
        if notification.requestsSound {
            if settings.sound.isEnabled {
                sound.plays = true
            } else {
                reasons.record(.soundOff)
            }
        }
    }

    if !device.isLocked, let foreground = device.foregroundApp, foreground.bundleID == notification.bundleID {
        // Critical alerts keep their banner and sound: the contract says they always alert.
        let keepsAlert = level == .critical
        if let options = foreground.willPresent {
            reasons.record(.foregroundWillPresent)
            if !keepsAlert {
                if !(options.contains(.banner) || options.contains(.alert)) { banner = .none }
                if !options.contains(.sound) { sound = .silent }
            }
            if !(options.contains(.list) || options.contains(.alert)) { notificationCenter = false }
            if !options.contains(.badge) { badge = false }
        } else {
            reasons.record(.foregroundNoDelegate)
            if !keepsAlert {
                banner = .none
                sound = .silent
                lockScreen = false
                notificationCenter = false
            }
            badge = false
        }
    }

    if sound.plays, device.isRingerSilent {
        if sound.bypassesRinger {
            reasons.record(.criticalBypassesRinger)
        } else {
            sound = .silent
            reasons.record(.ringerSilent)
        }
    }

    return Presentation(
        disposition: banner != .none || sound.plays ? .alerted : .listedSilently,
        banner: banner, sound: sound, badge: badge, lockScreen: lockScreen, notificationCenter: notificationCenter
    )
}

/// Whether Siri announces an alerted notification: only on headphones, or in the car when the
/// app may use CarPlay; only with Announce Notifications on; never for an app whose
/// announcement setting is off; by default for time-sensitive, critical and communication
/// notifications, and for every notification of an app the person chose.
@inline(__always)
func announces(
    _ notification: NotificationFacts, level: InterruptionLevel, isCommunication: Bool,
    settings: AppNotificationSettings, preferences: UserPreferences, device: DeviceState
) -> Bool {
    guard preferences.announce.isOn, level != .passive, settings.announcement != .disabled else { return false }
    switch device.audioRoute {
    case .headphones: break
    case .car: guard settings.carPlay.isEnabled else { return false }
    case .none, .speaker: return false
    }
    return level == .timeSensitive || level == .critical || isCommunication || settings.announcement == .enabled
        || preferences.announce.apps.contains(notification.bundleID)
}

/// Show Previews: the app's setting, else the person's default. Always → full; when
/// unlocked → full only while the device is unlocked; never → hidden.
@inline(__always)
func previewDecision(
    _ notification: NotificationFacts, settings: AppNotificationSettings, preferences: UserPreferences,
    device: DeviceState, reasons: inout ReasonCodes
) -> PreviewDecision {
    switch settings.showPreviews ?? preferences.showPreviews {
    case .always:
        return .full
    case .whenAuthenticated:
        guard device.isLocked else { return .full }
        reasons.record(.previewsHiddenLocked)
    case .never:
        reasons.record(.previewsHiddenNever)
    }
    return .hidden(
        HiddenPreview(
            placeholder: notification.hiddenPreviewsPlaceholder,
            threadCount: notification.threadCount,
            locale: device.locale ?? preferences.locale,
            showsTitle: notification.categoryOptions.contains(.hiddenPreviewsShowTitle),
            showsSubtitle: notification.categoryOptions.contains(.hiddenPreviewsShowSubtitle)
        ))
}
