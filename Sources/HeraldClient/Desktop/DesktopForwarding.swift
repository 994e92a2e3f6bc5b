import Foundation
import HeraldCore

/// What `herald watch --desktop` does with a device's events: each notification that alerts (the
/// decision's disposition `alerted` with a banner) goes to the desktop once, urgency from its
/// interruption level, the category's actions as buttons; one dismissed or removed on the device
/// leaves the desktop. The person's answers come back as responses: an action's button (the
/// notification itself is `default`) and a notification they closed (a dismissal).
///
/// Text-input actions are left out: the specification has no text field.
public struct DesktopForwarding: Sendable {
    /// What to do for one event.
    public enum Step: Equatable, Sendable {
        case show(notificationID: String, DesktopNotification)
        case close(notificationID: String)
    }

    /// The responses a desktop signal stands for.
    public struct Response: Equatable, Sendable {
        public var notificationID: String
        public var action: String

        public init(notificationID: String, action: String) {
            self.notificationID = notificationID
            self.action = action
        }
    }

    private var shown: [String: UInt32] = [:]
    private var notifications: [UInt32: String] = [:]
    private var answered: Set<UInt32> = []
    private var alerted: Set<String> = []

    public init() {}

    /// The step for `event`, if any: a notification shows the first time it alerts.
    public mutating func step(for event: ServerSentEvent) -> Step? {
        guard let object = (try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)))?.objectValue,
            let id = object["id"]?.stringValue
        else { return nil }
        if event.event == "removed" {
            return shown[id] == nil ? nil : .close(notificationID: id)
        }
        guard event.event == "notification" else { return nil }
        if object["dismissed_at"]?.stringValue != nil {
            return shown[id] == nil ? nil : .close(notificationID: id)
        }
        let decision = object["decision"]?.objectValue
        guard object["disposition"]?.stringValue == "alerted", decision?["banner"]?.stringValue != "none",
            !alerted.contains(id)
        else { return nil }
        alerted.insert(id)
        return .show(notificationID: id, Self.notification(object, event: event))
    }

    /// The desktop notification for a notification's JSON: what the device shows (`display`: a
    /// hidden preview's placeholder, a localized alert), else the alert as sent.
    static func notification(_ object: [String: JSONValue], event: ServerSentEvent) -> DesktopNotification {
        let alert = object["display"]?.objectValue ?? object["alert"]?.objectValue
        let summary = [alert?["title"]?.stringValue, alert?["subtitle"]?.stringValue]
            .compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }
            .joined(separator: " · ")
        let app = object["bundle_id"]?.stringValue ?? object["topic"]?.stringValue ?? "Herald"
        let urgency: DesktopNotification.Urgency =
            switch object["interruption_level"]?.stringValue {
            case "passive": .low
            case "critical": .critical
            default: .normal
            }
        let actions =
            [(key: "default", label: "Open")]
            + NotificationEventFormatter.actions(of: event).filter { $0.textInput == nil }.map {
                (key: $0.identifier, label: $0.title)
            }
        return DesktopNotification(
            appName: app, summary: summary.isEmpty ? app : summary, body: alert?["body"]?.stringValue ?? "",
            actions: actions, urgency: urgency)
    }

    /// Notes that notification `notificationID` is on the desktop as `desktopID`.
    public mutating func shown(notificationID: String, desktopID: UInt32) {
        shown[notificationID] = desktopID
        notifications[desktopID] = notificationID
    }

    /// The desktop id of a notification on the desktop, forgotten (it is being closed).
    public mutating func closing(notificationID: String) -> UInt32? {
        guard let desktopID = shown.removeValue(forKey: notificationID) else { return nil }
        notifications[desktopID] = nil
        return desktopID
    }

    /// The response a signal stands for: the action chosen, or a dismissal when the person closed a
    /// notification they had not answered; nil for anything else (expired, closed by Herald).
    public mutating func response(to signal: DesktopNotificationSignal) -> Response? {
        switch signal {
        case .actionInvoked(let desktopID, let key):
            guard let id = notifications[desktopID], !answered.contains(desktopID) else { return nil }
            answered.insert(desktopID)
            return Response(notificationID: id, action: key)
        case .closed(let desktopID, let reason):
            guard let id = notifications.removeValue(forKey: desktopID) else { return nil }
            shown[id] = nil
            defer { answered.remove(desktopID) }
            return reason == 2 && !answered.contains(desktopID) ? Response(notificationID: id, action: "dismiss") : nil
        }
    }
}
