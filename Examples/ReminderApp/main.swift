// A small app on Linux written against Apple's UserNotifications API, as an iOS app would be: it asks
// permission, registers the seeds' category (actions with icons, a text reply), schedules a calendar
// notification (and, with --now, one delivered at once), and prints each response a person gives;
// while it is in front of the device, it asks for a banner, a sound and a list entry for each
// notification (willPresent) and prints it.
//
//   HERALD_URL=http://127.0.0.1:8080 HERALD_APP_CREDENTIAL=… swift run herald-example-app [--now] [--responses N]
//
// It exits after N responses (default: runs until stopped).
#if os(Linux)
    import Foundation
    import Synchronization
    import UserNotifications

    /// Prints a line at once (unbuffered, also into a pipe: a test reads it as it comes).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    final class ResponsePrinter: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
        let remaining: Mutex<Int?>

        init(stopAfter: Int?) {
            remaining = Mutex(stopAfter)
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
        ) {
            say("will present \(notification.request.identifier) \(notification.request.content.title)")
            completionHandler([.banner, .sound, .list])
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping @Sendable () -> Void
        ) {
            var line = "response \(response.notification.request.identifier) \(response.actionIdentifier)"
            if let reply = response as? UNTextInputNotificationResponse { line += " text=\(reply.userText)" }
            say(line)
            completionHandler()
            let done = remaining.withLock { count -> Bool in
                guard let left = count else { return false }
                count = left - 1
                return left - 1 <= 0
            }
            if done { exit(0) }
        }
    }

    let arguments = CommandLine.arguments
    let deliverNow = arguments.contains("--now")
    let stopAfter = arguments.firstIndex(of: "--responses").flatMap { Int(arguments[$0 + 1]) }

    let center = UNUserNotificationCenter.current()
    let printer = ResponsePrinter(stopAfter: stopAfter)
    center.delegate = printer

    // The category of the seeds (1:57 Notification Action Icons).
    let likeActionIcon = UNNotificationActionIcon(systemImageName: "hand.thumbsup")
    let likeAction = UNNotificationAction(identifier: "like-action", title: "Like", options: [], icon: likeActionIcon)
    let commentActionIcon = UNNotificationActionIcon(templateImageName: "text.bubble")
    let commentAction = UNTextInputNotificationAction(
        identifier: "comment-action", title: "Comment", options: [], icon: commentActionIcon,
        textInputButtonTitle: "Post", textInputPlaceholder: "Type here…")
    let category = UNNotificationCategory(
        identifier: "update-actions", actions: [likeAction, commentAction], intentIdentifiers: [], options: [])
    center.setNotificationCategories([category])

    Task {
        do {
            say("asking for permission")
            let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
            say("authorization \(granted ? "granted" : "denied")")
            guard granted else { exit(1) }

            let content = UNMutableNotificationContent()
            content.title = "Daily update"
            content.body = "Your morning summary is ready."
            content.categoryIdentifier = "update-actions"
            content.interruptionLevel = .timeSensitive
            var morning = DateComponents()
            morning.hour = 8
            morning.minute = 0
            let trigger = UNCalendarNotificationTrigger(dateMatching: morning, repeats: true)
            try await center.add(UNNotificationRequest(identifier: "daily-update", content: content, trigger: trigger))
            let pending = try await center.pendingNotificationRequests()
            for request in pending {
                let next = (request.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate()
                say(
                    "scheduled \(request.identifier) next \(next.map { ISO8601DateFormatter().string(from: $0) } ?? "-")"
                )
            }
            if deliverNow {
                let now = UNMutableNotificationContent()
                now.title = "New comment"
                now.body = "Ana commented on your update."
                now.categoryIdentifier = "update-actions"
                try await center.add(UNNotificationRequest(identifier: "comment-now", content: now, trigger: nil))
                say("delivered comment-now")
            }
            say("waiting for responses")
        } catch {
            say("error \(error)")
            exit(1)
        }
    }
    RunLoop.main.run()
#else
    print("herald-example-app runs on Linux (on Apple's platforms, UserNotifications is the system's).")
#endif
