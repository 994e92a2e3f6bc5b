import Foundation
import HeraldCore
import HeraldPolicy

/// Shared names and instants for the policy tests.
enum Fixture {
    /// 2027-01-15T08:00:00Z, a Friday.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let demoID = "com.example.demo"
    static let chatID = "com.example.chat"

    static let demo = App(
        bundleID: demoID, teamID: "TEAM123456", name: "Demo", entitlements: Entitlements(), createdAt: now)
    /// An app with every entitlement: time-sensitive, critical alerts, communication.
    static let chat = App(
        bundleID: chatID, teamID: "TEAM123456", name: "Chat",
        entitlements: Entitlements(timeSensitive: true, criticalAlerts: true, communication: true), createdAt: now
    )

    static let alice = PersonHandle("Alice@Example.com", kind: .emailAddress)
    static let bob = PersonHandle("+1 (555) 010-0200", kind: .phoneNumber)

    static func work(
        filterMode: FocusFilterMode = .allowFrom, apps: Set<String> = [], people: Set<PersonHandle> = [],
        allowsTimeSensitive: Bool = true
    ) -> FocusMode {
        FocusMode(
            id: "work", name: "Work", kind: .work, filterMode: filterMode,
            allowedApps: filterMode == .allowFrom ? apps : [], allowedPeople: filterMode == .allowFrom ? people : [],
            silencedApps: filterMode == .silenceFrom ? apps : [],
            silencedPeople: filterMode == .silenceFrom ? people : [],
            allowsTimeSensitive: allowsTimeSensitive
        )
    }

    static func on(_ mode: FocusMode) -> ActiveFocus {
        ActiveFocus(mode: mode, activation: .manual, since: now.addingTimeInterval(-3600), until: nil)
    }

    static func summary(apps: Set<String>) -> SummarySchedule {
        try! SummarySchedule(times: [TimeOfDay(hour: 8), TimeOfDay(hour: 18)], apps: apps)
    }
}

/// All the inputs of one decision, with plain defaults: an authorized app without
/// entitlements, an active notification with a sound, no Focus, no summary, an unlocked device.
struct Scenario: Sendable, CustomStringConvertible {
    var notification = NotificationFacts(id: "n1", bundleID: Fixture.demoID, receivedAt: Fixture.now)
    var app = Fixture.demo
    var settings = AppNotificationSettings.authorized
    var preferences = UserPreferences()
    var focus: ActiveFocus?
    var summary = SummarySchedule.off
    var device = DeviceState(isLocked: false)
    var now = Fixture.now

    /// The same scenario for the entitled Chat app.
    static var chat: Scenario {
        var scenario = Scenario()
        scenario.app = Fixture.chat
        scenario.notification.bundleID = Fixture.chatID
        scenario.settings.criticalAlerts = .enabled
        return scenario
    }

    func decide() -> Decision {
        HeraldPolicy.decide(
            notification, app: app, settings: settings, preferences: preferences, focus: focus, summary: summary,
            device: device, now: now
        )
    }

    func sentences(_ decision: Decision) -> [String] {
        let context = ExplanationContext(
            notification: notification, app: app, focus: focus, device: device, decision: decision)
        return decision.explanations(context).map(\.sentence)
    }

    var description: String {
        "level=\(notification.level) comm=\(notification.isCommunication) sender=\(notification.sender?.value ?? "-") "
            + "expiry=\(String(describing: notification.expiry)) entitlements=\(app.entitlements) settings=\(settings) "
            + "focus=\(focus.map { "\($0.mode.filterMode) apps=\($0.mode.allowedApps.union($0.mode.silencedApps)) people=\($0.mode.allowedPeople.union($0.mode.silencedPeople)) ts=\($0.mode.allowsTimeSensitive)" } ?? "none") "
            + "summary=\(summary.isOn ? "\(summary.apps)" : "off") device=\(device) announce=\(preferences.announce)"
    }
}
