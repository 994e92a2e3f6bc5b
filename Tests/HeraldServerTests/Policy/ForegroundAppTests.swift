#if os(Linux)
    import Foundation
    import HeraldClient
    import HeraldCore
    import HeraldDelivery
    import HeraldPolicy
    import HeraldServer
    import HeraldStore
    import Synchronization
    import Testing
    import UserNotifications

    /// A foreground app's `willPresent` through a real Herald: while the app is in front of the
    /// unlocked device and its delegate is connected, the delegate sees each notification about to be
    /// delivered (a push, a local one) and its answer decides the presentation; no answer in time
    /// means not presented; a locked device or an answer fixed in the device state asks nobody.
    @Suite("willPresent: the foreground app decides", .serialized)
    struct ForegroundAppTests {
        /// Answers with the completion-handler spelling: a banner, sound and list entry for a title
        /// starting with "Loud", the list only otherwise; keeps what it was asked.
        final class Presenter: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            let asked = Mutex<[UNNotification]>([])

            func userNotificationCenter(
                _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
            ) {
                asked.withLock { $0.append(notification) }
                completionHandler(
                    notification.request.content.title.hasPrefix("Loud") ? [.banner, .sound, .list] : [.list])
            }
        }

        /// Implements only the async spelling (Apple's other one): the deprecated `.alert`.
        final class AsyncPresenter: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification)
                async -> UNNotificationPresentationOptions
            {
                [.alert]
            }
        }

        /// Never calls the completion handler.
        final class Mute: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            let handlers = Mutex<[@Sendable (UNNotificationPresentationOptions) -> Void]>([])

            func userNotificationCenter(
                _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
            ) {
                handlers.withLock { $0.append(completionHandler) }
            }
        }

        static func foreground(_ herald: PolicyHerald, locked: Bool = false, willPresent: PresentationOptions? = nil)
            async throws
        {
            try await herald.store.setDeviceState(
                DeviceState(
                    isLocked: locked,
                    foregroundApp: ForegroundApp(bundleID: herald.demo.topic, willPresent: willPresent)),
                deviceID: herald.demo.deviceID)
            await herald.application.policy.deviceStateChanged(deviceID: herald.demo.deviceID)
        }

        static let loudPush = #"{"alert":{"title":"Loud news","body":"b"},"sound":"default"}"#
        static let quietPush = #"{"alert":{"title":"Quiet news","body":"b"},"sound":"default"}"#

        @Test("the delegate's answer decides a push and a local notification, and it sees each as iOS shows it")
        func answerDecides() async throws {
            // A timeout no loaded machine reaches: the delegate answers at once.
            let herald = try await PolicyHerald.start(willPresentTimeout: 30)
            try await Self.foreground(herald)
            let center = try await LocalNotificationTests.center(herald)
            let presenter = Presenter()
            center.delegate = presenter
            try await center.waitUntilConnected()
            let client = try herald.apnsClient()

            let loud = try await herald.push(Self.loudPush, client: client)
            let loudDecision = try #require(loud.decision?.decision)
            #expect(loudDecision.disposition == .alerted)
            #expect(loudDecision.banner != AlertStyle.none)
            #expect(loudDecision.sound.plays)
            #expect(loudDecision.notificationCenter)
            #expect(loudDecision.reasons.contains(.foregroundWillPresent))

            let quiet = try await herald.push(Self.quietPush, client: client)
            let quietDecision = try #require(quiet.decision?.decision)
            #expect(quietDecision.disposition == .listedSilently)
            #expect(quietDecision.banner == AlertStyle.none)
            #expect(!quietDecision.sound.plays)
            #expect(quietDecision.notificationCenter)

            try await center.add(
                UNNotificationRequest(
                    identifier: "local-loud", content: LocalNotificationTests.content("Loud reminder"), trigger: nil))
            let localID = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "local-loud")
            let local = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: localID))
            #expect(local.decision?.decision.disposition == .alerted)
            #expect(local.decision?.decision.reasons.contains(.foregroundWillPresent) == true)

            let asked = presenter.asked.withLock { $0 }
            #expect(asked.map(\.request.identifier) == [loud.id, quiet.id, "local-loud"])
            #expect(asked.map(\.request.content.title) == ["Loud news", "Quiet news", "Loud reminder"])
            #expect(asked[0].request.trigger is UNPushNotificationTrigger)
            #expect(asked[2].request.trigger == nil)
            #expect(asked[0].date == loud.receivedAt)

            // Locked, or an answer the device state fixes: nobody is asked.
            try await Self.foreground(herald, locked: true)
            let whileLocked = try await herald.push(Self.loudPush, client: client)
            #expect(whileLocked.decision?.decision.reasons.contains(.foregroundWillPresent) == false)
            try await Self.foreground(herald, willPresent: [.badge])
            let fixed = try await herald.push(Self.loudPush, client: client)
            #expect(fixed.decision?.decision.disposition == .listedSilently)
            #expect(fixed.decision?.decision.notificationCenter == false)
            #expect(presenter.asked.withLock { $0.count } == 3)
            try await client.shutdown()
            try await herald.stop()
        }

        @Test("no answer in time: not presented; the async spelling is asked too")
        func silenceAndAsyncSpelling() async throws {
            let herald = try await PolicyHerald.start(willPresentTimeout: 2)
            try await Self.foreground(herald)
            let center = try await LocalNotificationTests.center(herald)
            let mute = Mute()
            center.delegate = mute
            try await center.waitUntilConnected()
            let client = try herald.apnsClient()

            let unanswered = try await herald.push(Self.loudPush, client: client)
            let decision = try #require(unanswered.decision?.decision)
            #expect(decision.reasons.contains(.foregroundNoDelegate))
            #expect(decision.banner == AlertStyle.none)
            #expect(!decision.sound.plays)
            #expect(!decision.notificationCenter)
            #expect(mute.handlers.withLock { $0.count } == 1)
            // Answering after the timeout changes nothing (the server has forgotten the question).
            mute.handlers.withLock { $0.first?([.banner]) }

            let asyncPresenter = AsyncPresenter()
            center.delegate = asyncPresenter
            let answered = try await herald.push(Self.loudPush, client: client)
            #expect(answered.decision?.decision.reasons.contains(.foregroundWillPresent) == true)
            #expect(answered.decision?.decision.banner != AlertStyle.none)
            #expect(answered.decision?.decision.notificationCenter == true)
            #expect(answered.decision?.decision.sound.plays == false)
            let stored = try await herald.store.notification(deviceID: herald.demo.deviceID, id: unanswered.id)
            #expect(stored?.decision?.decision.reasons.contains(.foregroundNoDelegate) == true)
            try await client.shutdown()
            try await herald.stop()
        }
    }
#endif
