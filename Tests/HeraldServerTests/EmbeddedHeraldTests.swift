#if os(Linux)
    import Foundation
    import HeraldEmbedded
    import Synchronization
    import Testing
    import UserNotifications

    /// The in-process mode: app code written for iOS — `UNUserNotificationCenter.current()` and all —
    /// runs against a Herald started in the test's own process, on a clock the test moves.
    @Suite("An embedded Herald", .serialized)
    struct EmbeddedHeraldTests {
        final class Replies: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            let received = Mutex<[String]>([])

            func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse)
                async
            {
                let text = (response as? UNTextInputNotificationResponse)?.userText ?? "-"
                received.withLock {
                    $0.append("\(response.notification.request.identifier) \(response.actionIdentifier) \(text)")
                }
            }
        }

        @Test(
            "current() is the embedded server's: a trigger fires when the test moves the clock, a reply reaches the delegate"
        )
        func appCodeRunsUnchanged() async throws {
            let start = Date(timeIntervalSince1970: 1_900_000_000)
            let herald = try await EmbeddedHerald.start(manualClock: start)
            try await herald.makeCurrent()

            // App code, as on iOS.
            let center = UNUserNotificationCenter.current()
            let replies = Replies()
            center.delegate = replies
            let reply = UNTextInputNotificationAction(
                identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send",
                textInputPlaceholder: "Message")
            center.setNotificationCategories([
                UNNotificationCategory(identifier: "chat", actions: [reply], intentIdentifiers: [], options: [])
            ])
            let content = UNMutableNotificationContent()
            content.title = "Stand up"
            content.body = "Time for a break."
            content.categoryIdentifier = "chat"
            try await center.add(
                UNNotificationRequest(
                    identifier: "break", content: content,
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
            #expect(try await center.pendingNotificationRequests().map(\.identifier) == ["break"])
            #expect(try await center.deliveredNotifications().isEmpty)

            // 59 s: nothing; 60 s: delivered, at the trigger's time.
            try await herald.advanceClock(by: 59)
            #expect(try await center.deliveredNotifications().isEmpty)
            try await herald.advanceClock(by: 1)
            let delivered = try await center.deliveredNotifications()
            #expect(delivered.map(\.request.identifier) == ["break"])
            #expect(delivered.first?.date == start.addingTimeInterval(60))
            #expect(try await center.pendingNotificationRequests().isEmpty)

            // The person replies; the delegate (async spelling) gets it.
            await center.waitUntilConnected()
            try await herald.respond(to: "break", action: "reply", text: "On my way")
            var received: [String] = []
            for _ in 0..<500 where received.isEmpty {
                received = replies.received.withLock { $0 }
                if received.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(received == ["break reply On my way"])

            // Another app asks for permission; the test answers as the person.
            let other = try await herald.center(bundleID: "com.example.embedded")
            async let granted = other.requestAuthorization(options: [.alert, .sound])
            try await herald.answerAuthorization(bundleID: "com.example.embedded", allow: false)
            #expect(try await granted == false)
            #expect(try await other.notificationSettings().authorizationStatus == .denied)

            let directory = herald.dataDirectory
            try await herald.stop()
            #expect(!FileManager.default.fileExists(atPath: directory.path))
        }

        @Test("the wall clock cannot be moved")
        func wallClock() async throws {
            let herald = try await EmbeddedHerald.start()
            await #expect(throws: EmbeddedHeraldError.self) { try await herald.advanceClock(by: 1) }
            try await herald.stop()
        }
    }
#endif
