import Foundation

/// What a notification waits for.
public enum Hold: Sendable, Codable, Hashable {
    /// The end of the Focus with this id.
    case focus(modeID: String)
    /// The next Scheduled Summary.
    case summary
}

/// A held notification.
public struct HeldNotification: Sendable, Codable, Hashable {
    /// The facts, without expiry: a held notification has reached the device, so its
    /// `apns-expiration` no longer applies.
    public var notification: NotificationFacts
    public var hold: Hold
    /// When it was held.
    public var heldAt: Date

    public init(notification: NotificationFacts, hold: Hold, heldAt: Date) {
        self.notification = notification
        self.hold = hold
        self.heldAt = heldAt
    }
}

/// Something that happened which may hold or release notifications.
public enum HeldNotificationsEvent: Sendable, Hashable {
    /// A notification was decided (on arrival, or again after a release); held ones are kept.
    case decided(NotificationFacts, Decision, at: Date)
    /// The Focus turned off (manually, at its end time, or at the end of a scheduled window).
    case focusEnded(modeID: String, at: Date)
    /// The Focus's apps, people or options changed: what it holds is decided again.
    case focusChanged(modeID: String, at: Date)
    /// A Scheduled Summary time arrived.
    case summaryTimeArrived(at: Date)
    /// The app was taken out of the Scheduled Summary.
    case appLeftSummary(bundleID: String, at: Date)
    /// The Scheduled Summary was turned off.
    case summaryTurnedOff(at: Date)
    /// The notification was removed from the device's list (by the person or the app).
    case notificationRemoved(id: String, at: Date)
}

/// Why a held notification is released.
public enum ReleaseCause: Sendable, Codable, Hashable {
    case focusEnded(modeID: String)
    case focusChanged(modeID: String)
    case appLeftSummary(bundleID: String)
    case summaryTurnedOff
}

/// What to do after an event.
public enum ReleaseAction: Sendable, Hashable {
    /// Decide the notification again as of `at`, with the state of then, and report the
    /// result as `.decided`: it is delivered, quietly (`Decision.releasedQuietly`), or held again
    /// (by another Focus or the summary).
    case redecide(NotificationFacts, because: ReleaseCause, at: Date)
    /// Deliver these notifications together as one summary, without interrupting.
    case deliverDigest(SummaryDigest)
    /// A newer notification with the same collapse id replaced a held one, which is dropped.
    case replaced(notificationID: String, by: String)
}
