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

    /// The app side of the person: `requestAuthorization` asks them on the device, and their
    /// responses reach the app's delegate over its live connection.
    @Suite("Authorization and responses through a real Herald", .serialized)
    struct AppAuthorizationAndResponseTests {
        @Test("requestAuthorization asks the person on the device and returns their answer")
        func requestAuthorizationAsksThePerson() async throws {
            let herald = try await PolicyHerald.start()
            let center = try await LocalNotificationTests.center(herald)
            let asking = Task { try await center.requestAuthorization(options: [.alert, .sound, .criticalAlert]) }
            // The request appears on the device; until answered the app is not determined.
            var pending: [AuthorizationRequestRecord] = []
            for _ in 0..<300 where pending.isEmpty {
                pending = try await herald.store.pendingAuthorizationRequests(deviceID: herald.demo.deviceID)
                if pending.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            let request = try #require(pending.first)
            #expect(request.options == ["sound", "alert", "critical_alert"])
            #expect(try await center.notificationSettings().authorizationStatus == .notDetermined)
            await #expect(throws: UNError.self) {
                try await center.add(
                    UNNotificationRequest(
                        identifier: "early", content: LocalNotificationTests.content("E"), trigger: nil))
            }
            // The person allows it (`herald authorize ID --allow` does this call).
            let person = try HeraldAPIClient(
                baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
            _ = try await person.answerAuthorizationRequest(
                deviceID: herald.demo.deviceID, requestID: request.id, allow: true)
            #expect(try await asking.value == true)
            let settings = try await center.notificationSettings()
            #expect(settings.authorizationStatus == .authorized)
            #expect(settings.alertSetting == .enabled)
            #expect(settings.soundSetting == .enabled)
            #expect(settings.badgeSetting == .notSupported)  // not asked for
            #expect(settings.criticalAlertSetting == .enabled)  // asked for, and the demo app is entitled
            // Asked again: the stored answer, no new request.
            #expect(try await center.requestAuthorization(options: [.badge]) == true)
            #expect(try await herald.store.pendingAuthorizationRequests(deviceID: herald.demo.deviceID).isEmpty)
            try await center.add(
                UNNotificationRequest(identifier: "now", content: LocalNotificationTests.content("Now"), trigger: nil))
            #expect(try await center.deliveredNotifications().count == 1)
            try await person.shutdown()
            try await herald.stop()
        }

        @Test("provisional authorization is granted quietly and delivers to Notification Center only")
        func provisionalIsQuiet() async throws {
            let herald = try await PolicyHerald.start()
            try await herald.unlockDevice()
            let center = try await LocalNotificationTests.center(herald)
            #expect(try await center.requestAuthorization(options: [.alert, .sound, .provisional]))
            #expect(try await herald.store.pendingAuthorizationRequests(deviceID: herald.demo.deviceID).isEmpty)
            #expect(try await center.notificationSettings().authorizationStatus == .provisional)
            try await center.add(
                UNNotificationRequest(
                    identifier: "quiet", content: LocalNotificationTests.content("Quiet"), trigger: nil))
            let id = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "quiet")
            let row = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: id))
            #expect(row.decision?.decision.banner == AlertStyle.none)
            #expect(row.decision?.decision.sound.plays == false)
            #expect(row.decision?.decision.lockScreen == false)
            #expect(row.decision?.decision.notificationCenter == true)
            try await herald.stop()
        }

        /// A delegate that hands each response it receives to the test.
        final class Responses: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            let stream: AsyncStream<UNNotificationResponse>
            private let continuation: AsyncStream<UNNotificationResponse>.Continuation

            override init() {
                (stream, continuation) = AsyncStream.makeStream(of: UNNotificationResponse.self)
                super.init()
            }

            func userNotificationCenter(
                _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                withCompletionHandler completionHandler: @escaping @Sendable () -> Void
            ) {
                continuation.yield(response)
                completionHandler()
            }

            /// The next response, or nil when none comes within `seconds`.
            func next(within seconds: Double = 60) async -> UNNotificationResponse? {
                await withTaskGroup(of: UNNotificationResponse?.self) { group in
                    group.addTask {
                        var iterator = self.stream.makeAsyncIterator()
                        return await iterator.next()
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(seconds))
                        return nil
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
            }
        }

        @Test("the person's responses reach the delegate once, with the text typed, also those made while away")
        func responsesReachTheDelegate() async throws {
            let herald = try await PolicyHerald.start()
            try await herald.unlockDevice()
            let center = try await LocalNotificationTests.center(herald)
            let commentAction = UNTextInputNotificationAction(
                identifier: "comment-action", title: "Comment", options: [],
                icon: UNNotificationActionIcon(templateImageName: "text.bubble"), textInputButtonTitle: "Post",
                textInputPlaceholder: "Type here…")
            let likeAction = UNNotificationAction(
                identifier: "like-action", title: "Like", options: [],
                icon: UNNotificationActionIcon(systemImageName: "hand.thumbsup"))
            center.setNotificationCategories([
                UNNotificationCategory(
                    identifier: "update-actions", actions: [likeAction, commentAction], intentIdentifiers: [],
                    options: [])
            ])
            await center.flush()
            let content = LocalNotificationTests.content("Update")
            content.categoryIdentifier = "update-actions"
            try await center.add(UNNotificationRequest(identifier: "update", content: content, trigger: nil))
            let id = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "update")
            let person = try HeraldAPIClient(
                baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
            func respond(_ body: String) async throws -> Data {
                try await person.send(
                    "POST", path: "/v1/devices/\(herald.demo.deviceID)/notifications/\(id)/response",
                    body: try JSONParser.parse(Array(body.utf8)))
            }

            // Made while the app has no connection: it waits.
            _ = try await respond(#"{"action_identifier":"comment-action","user_text":"Nice!"}"#)
            let delegate = Responses()
            center.delegate = delegate
            let first = try #require(await delegate.next())
            #expect(first.actionIdentifier == "comment-action")
            #expect((first as? UNTextInputNotificationResponse)?.userText == "Nice!")
            #expect(first.notification.request.identifier == "update")
            #expect(first.notification.request.content.categoryIdentifier == "update-actions")

            // While connected: at once.
            try await center.waitUntilConnected()
            _ = try await respond(#"{"action_identifier":"like-action"}"#)
            let second = try #require(await delegate.next())
            #expect(second.actionIdentifier == "like-action")
            #expect(!(second is UNTextInputNotificationResponse))
            _ = try await respond(#"{"action_identifier":"default"}"#)
            #expect(try #require(await delegate.next()).actionIdentifier == UNNotificationDefaultActionIdentifier)

            // The category does not ask for dismissals: the app does not hear of one.
            _ = try await respond(#"{"action_identifier":"dismiss"}"#)
            #expect(await delegate.next(within: 1) == nil)

            // Refused: an action the category does not have, text for a plain action.
            await #expect(throws: HeraldAPIError.self) { try await respond(#"{"action_identifier":"share"}"#) }

            // A second launch of the app: every response was handed out once already.
            let relaunched = try await LocalNotificationTests.center(herald)
            let again = Responses()
            relaunched.delegate = again
            try await relaunched.waitUntilConnected()
            #expect(await again.next(within: 1) == nil)
            try await person.shutdown()
            try await herald.stop()
        }
    }
#endif
