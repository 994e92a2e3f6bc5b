import HeraldCore

extension ReasonCode {
    /// A sentence a person understands, naming the app and the Focus:
    /// "Held: the Work Focus is on and Demo is not an allowed app."
    public func explanation(_ context: ExplanationContext) -> String {
        let app = context.appName
        let focus = context.focusPhrase
        guard let rule else { return "Rule \(rawValue) applied." }
        switch rule {
        case .expired:
            return "Not delivered: it expired before it could be delivered."
        case .expiredNoSession:
            return "Not delivered: it was only for a device connected right away, and this device was not connected."
        case .authorizationDenied:
            return "Not delivered: notifications from \(app) are turned off."
        case .authorizationNotDetermined:
            return "Not delivered: \(app) has not been allowed to send notifications yet."
        case .interruptionLevelUnrecognized:
            let known = "is not one iOS recognises (passive, active, time-sensitive, critical)"
            guard let level = context.unrecognizedLevel else {
                return
                    "The interruption level sent \(known): treated as active, or as critical with a critical-alert sound."
            }
            if level.treatedAs == .critical {
                return
                    "Treated as critical: the interruption level \"\(level.sent)\" \(known), and the sound is a critical alert."
            }
            return "Treated as active: the interruption level \"\(level.sent)\" \(known)."
        case .criticalNotEntitled:
            return "Treated as time-sensitive: \(app) is not entitled to send critical alerts."
        case .criticalTurnedOff:
            return "Treated as time-sensitive: critical alerts are turned off for \(app)."
        case .timeSensitiveNotEntitled:
            return "Treated as active: \(app) is not entitled to send time-sensitive notifications."
        case .timeSensitiveTurnedOff:
            return "Treated as active: time-sensitive notifications are turned off for \(app)."
        case .communicationNotEntitled:
            return "Not treated as a message or call: \(app) is not entitled to send communication notifications."
        case .provisional:
            return
                "Delivered quietly: \(app) may only send notifications provisionally, so it goes to Notification Center without sound, banner or lock screen."
        case .summaryHeld:
            return "Held for the Scheduled Summary: \(app) is in the summary."
        case .directMessagesInSummary:
            return "Messages from \(app) go into the Scheduled Summary too, as you chose."
        case .criticalBypassesSummary:
            return "Delivered now although \(app) is in the Scheduled Summary: critical alerts are never held."
        case .summaryBypassedTimeSensitive:
            return
                "Delivered now although \(app) is in the Scheduled Summary: time-sensitive notifications are never held."
        case .communicationBypassesSummary:
            return
                "Delivered now although \(app) is in the Scheduled Summary: messages and calls from people are not held."
        case .focusHeld:
            return "Held: \(focus) is on and \(app) is not an allowed app."
        case .focusSilencedApp:
            return "Held: \(focus) is on and silences \(app)."
        case .focusSilencedPerson:
            return "Held: \(focus) is on and silences \(context.senderPhrase)."
        case .focusDisallowsTimeSensitive:
            return "\(context.focusSubject) does not let time-sensitive notifications through."
        case .criticalBypassesFocus:
            return "Delivered during \(focus): critical alerts always break through."
        case .focusAllowedApp:
            return "Delivered during \(focus): \(app) is an allowed app."
        case .focusAppNotSilenced:
            return "Delivered during \(focus): it silences neither \(app) nor the sender."
        case .focusAllowedPerson:
            return "Delivered during \(focus): \(context.senderPhrase) is an allowed person."
        case .focusAllowsTimeSensitive:
            return "Delivered during \(focus): it lets time-sensitive notifications through."
        case .passiveQuiet:
            return "Listed silently: it is a passive notification, which never sounds or shows a banner."
        case .foregroundWillPresent:
            return "\(app) was open, so it chose how to present the notification."
        case .foregroundNoDelegate:
            return "Not shown: \(app) was open and did not ask to present it."
        case .bannersOff:
            return "No banner: banners are turned off for \(app)."
        case .soundOff:
            return "No sound: sounds are turned off for \(app)."
        case .ringerSilent:
            return "No sound: the ringer is silent."
        case .criticalBypassesRinger:
            let volume = context.criticalVolume.map { " at \(Int(($0 * 100).rounded()))% volume" } ?? ""
            return "Sound played\(volume) although the ringer is silent: critical alerts bypass it."
        case .announced:
            let route = context.audioRoute == .car ? "in the car" : "on headphones"
            return "Announced by Siri \(route): Announce Notifications is on."
        case .previewsHiddenNever:
            return "Preview hidden: Show Previews is set to Never."
        case .previewsHiddenLocked:
            return "Preview hidden: Show Previews is set to When Unlocked and the device was locked."
        }
    }
}
