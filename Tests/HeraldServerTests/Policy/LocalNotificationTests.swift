#if os(Linux)
    import Foundation
    import HeraldAPI
    import HeraldClient
    import HeraldCore
    import HeraldDelivery
    import HeraldPolicy
    import HeraldServer
    import HeraldStore
    import Testing
    import UserNotifications

    /// `UNUserNotificationCenter` against a real Herald on a manual clock: local notifications go
    /// through the same delivery decision as pushes, triggers fire at their time (durably, exactly
    /// once, also across a restart), and the app sees and changes only its own notifications.
    @Suite("UNUserNotificationCenter on a real Herald", .serialized)
    struct LocalNotificationTests {
        /// A center for the demo app on the demo device, with a fresh credential.
        static func center(_ herald: PolicyHerald, bundleID: String? = nil) async throws -> UNUserNotificationCenter {
            let created = try await herald.application.registry.createAppCredential(
                deviceID: herald.demo.deviceID, bundleID: bundleID ?? herald.demo.topic)
            return UNUserNotificationCenter(
                connection: HeraldConnection(
                    serverURL: URL(string: herald.runtime.apiURL)!, credential: created.credential))
        }

        static func content(_ title: String, level: UNNotificationInterruptionLevel = .active)
            -> UNMutableNotificationContent
        {
            let content = UNMutableNotificationContent()
            content.title = title
            content.body = "Body of \(title)"
            content.interruptionLevel = level
            return content
        }

        func move(_ herald: PolicyHerald, by seconds: TimeInterval) async throws {
            _ = try await herald.application.timeControl!.move(.by(seconds))
        }

        @Test("the seeds' passive request: pending for 5 s, then listed silently with its trigger")
        func passiveRequestFiresAndIsListedSilently() async throws {
            let herald = try await PolicyHerald.start()
            try await herald.unlockDevice()
            let center = try await Self.center(herald)
            // The seed's code (8:31 Passive Notification: Local).
            let content = UNMutableNotificationContent()
            content.title = "Passive"
            content.body = "I’m a passive notification, so I won’t interrupt you."
            content.interruptionLevel = .passive
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 5, repeats: false)
            let request = UNNotificationRequest(
                identifier: "passive-request-example", content: content, trigger: trigger)
            try await center.add(request)

            let pending = try await center.pendingNotificationRequests()
            #expect(pending.map(\.identifier) == ["passive-request-example"])
            #expect(pending.first?.content.title == "Passive")
            #expect(pending.first?.content.interruptionLevel == .passive)
            #expect((pending.first?.trigger as? UNTimeIntervalNotificationTrigger)?.timeInterval == 5)
            #expect(try await center.deliveredNotifications().isEmpty)

            try await move(herald, by: 4)
            #expect(try await center.deliveredNotifications().isEmpty)
            try await move(herald, by: 1)
            let delivered = try await center.deliveredNotifications()
            #expect(delivered.map(\.request.identifier) == ["passive-request-example"])
            #expect(delivered.first?.request.content.body == content.body)
            #expect(delivered.first?.request.trigger is UNTimeIntervalNotificationTrigger)
            #expect(try await center.pendingNotificationRequests().isEmpty)
            // The device's list has it, decided like a push: passive is listed silently.
            let id = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "passive-request-example")
            let row = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: id))
            #expect(row.disposition == .listedSilently)
            #expect(row.decision?.decision.sound.plays == false)
            #expect(row.receivedAt == herald.clock.now)
            // Moving on fires nothing again.
            try await move(herald, by: 3600)
            #expect(try await center.deliveredNotifications().count == 1)
            try await herald.stop()
        }

        @Test("a request without a trigger is delivered at once; the same identifier replaces it")
        func immediateDeliveryAndReplacement() async throws {
            let herald = try await PolicyHerald.start()
            let center = try await Self.center(herald)
            try await center.add(UNNotificationRequest(identifier: "now", content: Self.content("First"), trigger: nil))
            try await center.add(
                UNNotificationRequest(identifier: "now", content: Self.content("Second"), trigger: nil))
            let delivered = try await center.deliveredNotifications()
            #expect(delivered.map(\.request.content.title) == ["Second"])
            #expect(delivered.first?.request.trigger == nil)
            #expect(delivered.first?.date == herald.clock.now)
            center.removeDeliveredNotifications(withIdentifiers: ["now"])
            await center.flush()
            #expect(try await center.deliveredNotifications().isEmpty)
            try await herald.stop()
        }

        @Test("a repeating calendar trigger fires at 08:00 in the device's time zone, every day")
        func repeatingCalendarTrigger() async throws {
            // 2026-03-27 10:00 Berlin (09:00 UTC); the clocks move forward on the 29th.
            let start = try Date("2026-03-27T09:00:00Z", strategy: .iso8601)
            let herald = try await PolicyHerald.start(at: start)
            var state = DeviceState(isLocked: false)
            state.timeZone = TimeZone(identifier: "Europe/Berlin")!
            try await herald.store.setDeviceState(state, deviceID: herald.demo.deviceID)
            await herald.application.policy.deviceStateChanged(deviceID: herald.demo.deviceID)
            let center = try await Self.center(herald)
            var components = DateComponents()
            components.hour = 8
            components.minute = 0
            let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
            try await center.add(
                UNNotificationRequest(identifier: "morning", content: Self.content("Morning"), trigger: trigger))

            let id = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "morning")
            var fired: [Date] = []
            for _ in 0..<3 {
                try await move(herald, by: 86_400)
                let row = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: id))
                fired.append(row.receivedAt)
            }
            #expect(
                fired == [
                    try Date("2026-03-28T07:00:00Z", strategy: .iso8601),  // 08:00 CET
                    try Date("2026-03-29T06:00:00Z", strategy: .iso8601),  // 08:00 CEST
                    try Date("2026-03-30T06:00:00Z", strategy: .iso8601),
                ])
            let pending = try await center.pendingNotificationRequests()
            #expect(pending.map(\.identifier) == ["morning"])
            #expect((pending.first?.trigger as? UNCalendarNotificationTrigger)?.dateComponents.hour == 8)
            #expect(try await center.deliveredNotifications().count == 1)  // each firing replaced the last
            try await herald.stop()
        }

        @Test("a trigger that came due while Herald was down fires once at start-up; pending requests survive")
        func triggersSurviveARestart() async throws {
            let herald = try await PolicyHerald.start()
            let center = try await Self.center(herald)
            try await center.add(
                UNNotificationRequest(
                    identifier: "soon", content: Self.content("Soon"),
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
            try await center.add(
                UNNotificationRequest(
                    identifier: "hourly", content: Self.content("Hourly"),
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: true)))
            try await center.add(
                UNNotificationRequest(
                    identifier: "later", content: Self.content("Later"),
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 86_400, repeats: false)))
            let stoppedAt = herald.clock.now
            try await herald.stop(removingData: false)

            // Three and a half hours later.
            let restarted = try await PolicyHerald.start(
                at: stoppedAt.addingTimeInterval(12_600), directory: herald.directory)
            let again = try await Self.center(restarted)
            try await move(restarted, by: 0)
            let delivered = try await again.deliveredNotifications()
            #expect(delivered.map(\.request.identifier).sorted() == ["hourly", "soon"])
            let pending = try await again.pendingNotificationRequests()
            #expect(pending.map(\.identifier) == ["hourly", "later"])
            // The hourly one fired once, not three times, and continues on its phase.
            let rows = try await restarted.store.notifications(
                deviceID: restarted.demo.deviceID, after: 0, limit: 100, now: restarted.clock.now)
            #expect(rows.filter { $0.bundleID == restarted.demo.topic }.count == 2)
            try await restarted.stop()
        }

        @Test("categories with icons, the badge, settings, the 64-request limit and refusals")
        func categoriesBadgeSettingsLimitAndRefusals() async throws {
            let herald = try await PolicyHerald.start()
            let center = try await Self.center(herald)
            // The seed's category (1:57 Notification Action Icons).
            let likeActionIcon = UNNotificationActionIcon(systemImageName: "hand.thumbsup")
            let likeAction = UNNotificationAction(
                identifier: "like-action", title: "Like", options: [], icon: likeActionIcon)
            let commentActionIcon = UNNotificationActionIcon(templateImageName: "text.bubble")
            let commentAction = UNTextInputNotificationAction(
                identifier: "comment-action", title: "Comment", options: [], icon: commentActionIcon,
                textInputButtonTitle: "Post", textInputPlaceholder: "Type here…")
            let category = UNNotificationCategory(
                identifier: "update-actions", actions: [likeAction, commentAction], intentIdentifiers: [], options: [])
            center.setNotificationCategories([category])
            let categories = try await center.notificationCategories()
            #expect(categories == [category])
            let stored = try #require(
                try await herald.store.category(bundleID: herald.demo.topic, identifier: "update-actions"))
            #expect(stored.json.contains(#""system_image_name":"hand.thumbsup""#))
            #expect(stored.json.contains(#""template_image_name":"text.bubble""#))
            // Registering again replaces the whole set.
            center.setNotificationCategories([])
            #expect(try await center.notificationCategories().isEmpty)

            try await center.setBadgeCount(5)
            #expect(try await herald.store.appBadges(deviceID: herald.demo.deviceID).map(\.badge) == [5])
            await #expect(throws: UNError.self) { try await center.setBadgeCount(-1) }

            let settings = try await center.notificationSettings()
            #expect(settings.authorizationStatus == .authorized)
            #expect(settings.showPreviewsSetting == .whenAuthenticated)

            for index in 0..<65 {
                try await center.add(
                    UNNotificationRequest(
                        identifier: "r\(index)", content: Self.content("R\(index)"),
                        trigger: UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)))
            }
            let pending = try await center.pendingNotificationRequests()
            #expect(pending.count == 64)
            #expect(pending.first?.identifier == "r1")
            center.removeAllPendingNotificationRequests()
            await center.flush()
            #expect(try await center.pendingNotificationRequests().isEmpty)

            // The person turns the app's notifications off: adding is refused and changes nothing.
            let userID = try await herald.userID()
            try await herald.store.setAppSettings(
                AppNotificationSettings(authorizationStatus: .denied), userID: userID, bundleID: herald.demo.topic)
            await herald.application.policy.userStateChanged(userID: userID)
            let error = await #expect(throws: UNError.self) {
                try await center.add(UNNotificationRequest(identifier: "x", content: Self.content("X"), trigger: nil))
            }
            #expect(error?.code == .notificationsNotAllowed)
            #expect(try await center.notificationSettings().authorizationStatus == .denied)
            #expect(try await center.requestAuthorization() == false)
            #expect(try await center.deliveredNotifications().isEmpty)
            try await herald.stop()
        }

        @Test("an app sees only its own notifications; a bad credential is refused")
        func appsSeeOnlyTheirOwn() async throws {
            let herald = try await PolicyHerald.start()
            let otherApp = "com.example.other-app"
            _ = try await herald.application.registry.createApp(
                bundleID: otherApp, teamID: herald.demo.teamID, name: "Other", entitlements: Entitlements())
            let mine = try await Self.center(herald)
            let theirs = try await Self.center(herald, bundleID: otherApp)
            try await mine.add(UNNotificationRequest(identifier: "same", content: Self.content("Mine"), trigger: nil))
            try await theirs.add(
                UNNotificationRequest(identifier: "same", content: Self.content("Theirs"), trigger: nil))
            #expect(try await mine.deliveredNotifications().map(\.request.content.title) == ["Mine"])
            #expect(try await theirs.deliveredNotifications().map(\.request.content.title) == ["Theirs"])
            theirs.removeAllDeliveredNotifications()
            await theirs.flush()
            #expect(try await mine.deliveredNotifications().count == 1)

            let stranger = UNUserNotificationCenter(
                connection: HeraldConnection(
                    serverURL: URL(string: herald.runtime.apiURL)!, credential: "not-a-credential"))
            let error = await #expect(throws: UNUserNotificationCenter.HeraldError.self) {
                try await stranger.pendingNotificationRequests()
            }
            #expect(error?.status == 401)
            try await herald.stop()
        }
    }
#endif
