extension Decision {
    /// How a notification released from a hold (its Focus ended or changed, its app left the
    /// Scheduled Summary, the summary was turned off) shows once decided again: quietly. iOS does
    /// not alert again for what it held: the notification appears on the Lock Screen and in
    /// Notification Center without a banner or sound, and Siri does not announce it.
    ///
    /// A decision that would have alerted becomes `listedSilently` with no banner, no sound and no
    /// announcement; where it is listed (lock screen, Notification Center), its preview and its
    /// badge stay as decided, so a released notification still applies its badge. A decision
    /// that holds it again, lists it silently already, or does not deliver it is unchanged.
    public func releasedQuietly() -> Decision {
        guard disposition == .alerted else { return self }
        var quiet = self
        quiet.disposition = .listedSilently
        quiet.banner = .none
        quiet.sound = .silent
        quiet.announce = false
        quiet.reasons.remove(.announced)
        return quiet
    }
}
