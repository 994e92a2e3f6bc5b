import Foundation

/// The notifications of one device that wait for a Focus to end or for the Scheduled Summary,
/// as a value-type state machine: feed it events, perform the actions it returns.
///
/// A held notification leaves only through an action: `redecide` (its Focus ended or changed,
/// its app left the summary, the summary was turned off), `deliverDigest` (a summary time),
/// `replaced` (a newer notification with the same collapse id), or its removal from the list.
public struct HeldNotifications: Sendable, Codable, Hashable {
    /// What waits, in the order it was held.
    public private(set) var held: [HeldNotification] = []
    /// The last summary time delivered: a repeated (or earlier) time delivers nothing again.
    public private(set) var lastSummaryAt: Date?

    public init() {}

    /// Whether nothing waits.
    public var isEmpty: Bool { held.isEmpty }

    /// Applies `event` and returns what to do.
    public mutating func event(_ event: HeldNotificationsEvent) -> [ReleaseAction] {
        switch event {
        case .decided(let notification, let decision, let at):
            return record(notification, decision, at: at)
        case .focusEnded(let modeID, let at):
            return release(because: .focusEnded(modeID: modeID), at: at) { $0.hold == .focus(modeID: modeID) }
        case .focusChanged(let modeID, let at):
            return release(because: .focusChanged(modeID: modeID), at: at) { $0.hold == .focus(modeID: modeID) }
        case .appLeftSummary(let bundleID, let at):
            return release(because: .appLeftSummary(bundleID: bundleID), at: at) {
                $0.hold == .summary && $0.notification.bundleID == bundleID
            }
        case .summaryTurnedOff(let at):
            return release(because: .summaryTurnedOff, at: at) { $0.hold == .summary }
        case .summaryTimeArrived(let at):
            return deliverSummary(at: at)
        case .notificationRemoved(let id, _):
            held.removeAll { $0.notification.id == id }
            return []
        }
    }

    /// What the next summary would hold, and when it comes.
    public func nextSummary(after now: Date, schedule: SummarySchedule, in timeZone: TimeZone) -> SummaryPreview {
        let at = schedule.nextDelivery(after: now, in: timeZone)
        let waiting = held.lazy.filter { $0.hold == .summary }.map(\.notification)
        return SummaryPreview(at: at, digest: .make(from: Array(waiting), now: at ?? now))
    }

    private mutating func record(_ notification: NotificationFacts, _ decision: Decision, at: Date) -> [ReleaseAction] {
        var actions: [ReleaseAction] = []
        held.removeAll { $0.notification.id == notification.id }
        if let collapseID = notification.collapseID {
            held.removeAll { other in
                guard other.notification.bundleID == notification.bundleID, other.notification.collapseID == collapseID
                else { return false }
                actions.append(.replaced(notificationID: other.notification.id, by: notification.id))
                return true
            }
        }
        let hold: Hold
        switch decision.disposition {
        case .heldForSummary:
            hold = .summary
        case .heldForFocus:
            hold = .focus(modeID: decision.focusID ?? "")
        case .notDelivered, .listedSilently, .alerted:
            return actions
        }
        var kept = notification
        kept.expiry = nil
        held.append(HeldNotification(notification: kept, hold: hold, heldAt: at))
        return actions
    }

    private mutating func release(
        because cause: ReleaseCause, at: Date, where matches: (HeldNotification) -> Bool
    ) -> [ReleaseAction] {
        var actions: [ReleaseAction] = []
        held.removeAll { item in
            guard matches(item) else { return false }
            actions.append(.redecide(item.notification, because: cause, at: at))
            return true
        }
        return actions
    }

    private mutating func deliverSummary(at: Date) -> [ReleaseAction] {
        if let last = lastSummaryAt, at <= last { return [] }
        lastSummaryAt = at
        var due: [NotificationFacts] = []
        held.removeAll { item in
            guard item.hold == .summary, item.heldAt <= at else { return false }
            due.append(item.notification)
            return true
        }
        return due.isEmpty ? [] : [.deliverDigest(.make(from: due, now: at))]
    }
}
