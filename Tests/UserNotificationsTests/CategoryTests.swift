// Categories, actions and their icons, responses and settings.
#if os(Linux)
    import Foundation
    import Testing
    import UserNotifications

    @Suite("Categories, actions, icons, responses")
    struct CategoryTests {
        @Test("both category initializers, with Apple's defaults for what is not given")
        func categories() {
            let plain = UNNotificationCategory(identifier: "c", actions: [], intentIdentifiers: ["INSendMessageIntent"])
            #expect(
                plain.options == [] && plain.hiddenPreviewsBodyPlaceholder == "" && plain.categorySummaryFormat == "")
            #expect(plain.intentIdentifiers == ["INSendMessageIntent"])
            let full = UNNotificationCategory(
                identifier: "c", actions: [], intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: "%u Comments",
                categorySummaryFormat: "%u more messages from %@",
                options: [.customDismissAction, .hiddenPreviewsShowTitle])
            #expect(full.hiddenPreviewsBodyPlaceholder == "%u Comments")
            #expect(full.categorySummaryFormat == "%u more messages from %@")
            #expect(full.options == [.customDismissAction, .hiddenPreviewsShowTitle])
        }

        @Test("actions keep their icons; the icon says whether it is a system or a template image")
        func icons() {
            let system = UNNotificationActionIcon(systemImageName: "hand.thumbsup")
            let template = UNNotificationActionIcon(templateImageName: "text.bubble")
            #expect(system.source == .systemImage("hand.thumbsup"))
            #expect(template.source == .templateImage("text.bubble"))
            #expect(system != UNNotificationActionIcon(templateImageName: "hand.thumbsup"))
            let action = UNNotificationAction(identifier: "like", title: "Like", options: [.foreground], icon: system)
            #expect(action.icon == system && action.options == [.foreground])
            #expect(UNNotificationAction(identifier: "a", title: "A").icon == nil)
            let text = UNTextInputNotificationAction(
                identifier: "reply", title: "Reply", options: [.authenticationRequired], textInputButtonTitle: "Send",
                textInputPlaceholder: "Message")
            #expect(text.textInputButtonTitle == "Send" && text.textInputPlaceholder == "Message" && text.icon == nil)
            #expect(
                text != UNNotificationAction(identifier: "reply", title: "Reply", options: [.authenticationRequired]))
        }

        @Test("a category with both kinds of action and icons survives a secure keyed archive")
        func roundTrip() throws {
            let category = UNNotificationCategory(
                identifier: "update-actions",
                actions: [
                    UNNotificationAction(
                        identifier: "like-action", title: "Like", options: [],
                        icon: UNNotificationActionIcon(systemImageName: "hand.thumbsup")),
                    UNTextInputNotificationAction(
                        identifier: "comment-action", title: "Comment", options: [],
                        icon: UNNotificationActionIcon(templateImageName: "text.bubble"), textInputButtonTitle: "Post",
                        textInputPlaceholder: "Type here"),
                ], intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: "Update", options: [.customDismissAction])
            let data = try NSKeyedArchiver.archivedData(withRootObject: category, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: UNNotificationCategory.self, from: data))
            #expect(decoded == category)
            #expect(decoded.actions.last is UNTextInputNotificationAction)
        }

        @Test("a set of categories holds one per identifier")
        func setByIdentifier() {
            let a = UNNotificationCategory(identifier: "a", actions: [], intentIdentifiers: [])
            let b = UNNotificationCategory(identifier: "b", actions: [], intentIdentifiers: [])
            let a2 = UNNotificationCategory(identifier: "a", actions: [], intentIdentifiers: [])
            #expect(Set([a, b, a2]).count == 2)
        }

        @Test("responses carry the notification, the action and the typed text")
        func responses() throws {
            let request = UNNotificationRequest(identifier: "r", content: UNNotificationContent(), trigger: nil)
            let notification = UNNotification(date: Date(timeIntervalSince1970: 1_800_000_000), request: request)
            let tap = UNNotificationResponse(
                notification: notification, actionIdentifier: UNNotificationDefaultActionIdentifier)
            #expect(tap.notification.request.identifier == "r")
            let reply = UNTextInputNotificationResponse(
                notification: notification, actionIdentifier: "comment-action", userText: "Nice!")
            let asResponse: UNNotificationResponse = reply
            #expect((asResponse as? UNTextInputNotificationResponse)?.userText == "Nice!")
            let data = try NSKeyedArchiver.archivedData(withRootObject: reply, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: UNTextInputNotificationResponse.self, from: data))
            #expect(decoded == reply && decoded.notification.date == notification.date)
        }

        @Test("settings expose every field the wiring sets, and survive an archive")
        func settings() throws {
            var values = UNNotificationSettings.Values()
            values.authorizationStatus = .provisional
            values.alertSetting = .enabled
            values.showPreviewsSetting = .whenAuthenticated
            values.timeSensitiveSetting = .disabled
            values.scheduledDeliverySetting = .enabled
            values.providesAppNotificationSettings = true
            let settings = UNNotificationSettings(values: values)
            #expect(settings.authorizationStatus == .provisional && settings.alertSetting == .enabled)
            #expect(settings.showPreviewsSetting == .whenAuthenticated && settings.timeSensitiveSetting == .disabled)
            #expect(settings.scheduledDeliverySetting == .enabled && settings.providesAppNotificationSettings)
            #expect(settings.soundSetting == .notSupported && settings.alertStyle == .none)
            let data = try NSKeyedArchiver.archivedData(withRootObject: settings, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: UNNotificationSettings.self, from: data))
            #expect(decoded == settings)
        }

        @Test("the service extension's base class hands back the original content; subclasses override both methods")
        func serviceExtension() {
            final class Extension: UNNotificationServiceExtension {
                var expired = false
                override func didReceive(
                    _ request: UNNotificationRequest,
                    withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
                ) {
                    let content = request.content.mutableCopy() as! UNMutableNotificationContent
                    content.title = "[edited] " + content.title
                    contentHandler(content)
                }
                override func serviceExtensionTimeWillExpire() { expired = true }
            }
            let content = UNMutableNotificationContent()
            content.title = "Hello"
            let request = UNNotificationRequest(identifier: "r", content: content, trigger: nil)
            var shown: [String] = []
            UNNotificationServiceExtension().didReceive(request) { shown.append($0.title) }
            let custom = Extension()
            custom.didReceive(request) { shown.append($0.title) }
            custom.serviceExtensionTimeWillExpire()
            #expect(shown == ["Hello", "[edited] Hello"])
            #expect(custom.expired)
        }
    }
#endif
