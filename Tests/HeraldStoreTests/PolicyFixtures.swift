import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore

/// The delivery-policy side of the fixture: decided notifications, a second user, and policy values
/// whose every field differs from its default (so a field lost on the way reads back different).
extension Fixture {
    static let otherUserID = "user-2"
    /// A device of the other user.
    static let strangerDeviceID = "device-3"

    /// The fixture's store, seen through the protocol (so every call checks that `SQLiteStore`
    /// implements the requirement, rather than inheriting the protocol's default).
    static func makePolicyStore() async throws -> any HeraldStore {
        let store = try SQLiteStore.inMemory()
        try await seed(store)
        try await seedOtherUser(store)
        return store
    }

    /// A second user with one device.
    static func seedOtherUser(_ store: some RegistryStore) async throws {
        try await store.createUser(
            User(userID: otherUserID, name: "Grace", createdAt: time()), tokenDigest: String(repeating: "cd", count: 32)
        )
        try await store.createDevice(
            Device(deviceID: strangerDeviceID, userID: otherUserID, name: "other", createdAt: time()))
    }

    /// A decision as the push pipeline stores it.
    static func decision(_ disposition: Disposition, focusID: String? = nil) -> DecisionRecord {
        DecisionRecord(
            decision: Decision(
                disposition: disposition, banner: disposition == .alerted ? .banner : .none,
                effectiveLevel: .active, focusID: focusID, reasons: disposition.isHeld ? [.summaryHeld] : []
            ),
            context: DecisionRecord.Context(audioRoute: .none)
        )
    }

    /// The JSON text the store keeps for `decision(disposition, focusID:)`.
    static func decisionJSON(_ disposition: Disposition, focusID: String? = nil) -> String {
        try! decision(disposition, focusID: focusID).jsonText()
    }

    /// A new notification carrying its decision.
    static func decided(
        _ id: String, _ disposition: Disposition, device: String = deviceID, app: String = appID,
        receivedAt: Date = time(), focusID: String? = nil
    ) -> StoredNotification {
        var notification = notification(id, device: device, app: app, receivedAt: receivedAt)
        notification.decision = decision(disposition, focusID: focusID)
        return notification
    }

    static let appSettings = AppNotificationSettings(
        authorizationStatus: .provisional, alertStyle: .alert, sound: .disabled, badge: .disabled,
        lockScreen: .disabled, notificationCenter: .disabled, carPlay: .disabled, showPreviews: .never,
        timeSensitive: .disabled, criticalAlerts: .enabled, scheduledDelivery: .enabled,
        directMessagesInSummary: .enabled, announcement: .enabled
    )

    static let preferences = UserPreferences(
        showPreviews: .always, grouping: .byApp,
        announce: AnnounceSettings(isOn: true, apps: [appID, otherAppID]),
        timeZone: TimeZone(identifier: "Europe/Paris")!, locale: "ar"
    )

    static let workFocus = FocusMode(
        id: "work", name: "Work", kind: .work, filterMode: .allowFrom,
        allowedApps: [appID],
        allowedPeople: [
            PersonHandle("+1 (555) 010-0200", kind: .phoneNumber),
            PersonHandle("Boss@Example.com", kind: .emailAddress),
        ],
        allowsTimeSensitive: false,
        schedules: [FocusSchedule(days: .weekdays, start: TimeOfDay(hour: 9), end: TimeOfDay(hour: 17, minute: 30))],
        manual: .on(since: time(1, milliseconds: 5), until: time(3600))
    )

    static let sleepFocus = FocusMode(
        id: "sleep", name: "Sleep", kind: .sleep, filterMode: .silenceFrom,
        silencedApps: [otherAppID], silencedPeople: [PersonHandle("chat:42", kind: .appSpecific)],
        schedules: [FocusSchedule(days: .everyDay, start: TimeOfDay(hour: 22), end: TimeOfDay(hour: 7))],
        manual: .off(since: time(60))
    )

    static let readingFocus = FocusMode(id: "reading", name: "Reading", kind: .reading)

    static let summary = try! SummarySchedule(
        times: [TimeOfDay(hour: 18), TimeOfDay(hour: 8, minute: 30)], apps: [appID]
    )

    static let deviceState = DeviceState(
        isLocked: false, isRingerSilent: true, audioRoute: .headphones,
        foregroundApp: ForegroundApp(bundleID: appID, willPresent: [.banner, .sound]),
        timeZone: TimeZone(identifier: "America/New_York")!, locale: "pt-BR", hasConnectedSession: false
    )
}
