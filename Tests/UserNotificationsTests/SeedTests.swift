// The seeds' code blocks (../shared/seeds/: WWDC21 "Send communication and Time Sensitive
// notifications", 000/001, and WWDC17 "Best Practices and What's New in User Notifications", 004)
// that use this slice's types, each copied token for token into a function (scripts/format may
// re-indent them), compiled, run, and checked for what the session says it does.
//
// Blocks not here, and why: the interruption-level enum and the UNNotificationContentProviding
// excerpt are header listings, not code (`let enum …`, `{ get }`, `// ...`); the incoming message,
// incoming call and outgoing message blocks leave their intents as `= // ...` placeholders and call
// `INInteraction.donate`, which comes with the wiring slice; the hidden-previews blocks that call
// `NSLocalizedString("COMMENT_KEY", "comment placeholder")` lack the `comment:` label Foundation's
// function requires (they do not compile on Apple's platforms either); the content-extension blocks
// need UIKit and AVFoundation. The service-extension template is here with the two edits any
// compiler needs (its `@escaping` stands before the argument label, `...` stands for the app's own
// code, an assignment ends in a comma, and an override in a public class lacks `public`); the comments
// at those lines say so.
#if os(Linux)
    import Foundation
    import Intents
    import Testing
    import UserNotifications

    /// The seeds' service extension (the blocks "Modifying Push Content", joined).
    public class NotificationService: UNNotificationServiceExtension {
        var contentHandler: ((UNNotificationContent) -> Void)?
        var bestAttemptContent: UNMutableNotificationContent?
        var downloads: URL!
        // Seed: `@escaping` moved after the argument label (the seed's text has it before).
        override public func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            self.contentHandler = contentHandler
            self.bestAttemptContent =
                (request.content.mutableCopy()
                    as? UNMutableNotificationContent)
            // Seed: `... // Handle request before presenting` — the next block is that code.
            if let mutableContent = self.bestAttemptContent,
                let urlString = mutableContent.userInfo["video-url"] as? String
            {
                self.download(url: urlString) { (fileLocation) in
                    if let attachment = try? UNNotificationAttachment(
                        identifier: "video",
                        url: fileLocation)
                    {
                        mutableContent.attachments = [attachment]
                        contentHandler(mutableContent)
                    }
                }
            }
        }

        // Seed: `public` added (an override in a public class must be as visible as the class).
        override public func serviceExtensionTimeWillExpire() {
            if let contentHandler = self.contentHandler,
                let bestAttemptContent = self.bestAttemptContent,
                let mediaType = bestAttemptContent.userInfo["type"] as? String
            {
                // Seed: the trailing comma after this assignment removed.
                bestAttemptContent.title = "Incoming \(mediaType)!"
                contentHandler(bestAttemptContent)
            }
        }

        /// The app's download: an MPEG-4 file in the test's directory.
        func download(url: String, completion: (URL) -> Void) {
            let file = downloads.appendingPathComponent("myvideo.m4a")
            try? Data([0, 0, 0, 0x18] + Array("ftypM4A ".utf8)).write(to: file)
            completion(file)
        }
    }

    @Suite("Seeds: the sessions' code blocks")
    struct SeedTests {
        @Test("1:57 Notification Action Icons: the category shows two actions with their icons")
        func actionIcons() throws {
            // Setting up notification actions with icons

            let likeActionIcon = UNNotificationActionIcon(systemImageName: "hand.thumbsup")
            let likeAction = UNNotificationAction(
                identifier: "like-action",
                title: "Like",
                options: [],
                icon: likeActionIcon)

            let commentActionIcon = UNNotificationActionIcon(templateImageName: "text.bubble")
            let commentAction = UNTextInputNotificationAction(
                identifier: "comment-action",
                title: "Comment",
                options: [],
                icon: commentActionIcon,
                textInputButtonTitle: "Post",
                textInputPlaceholder: "Type here…")

            let category = UNNotificationCategory(
                identifier: "update-actions",
                actions: [likeAction, commentAction],
                intentIdentifiers: [], options: [])

            #expect(category.identifier == "update-actions")
            #expect(category.actions.map(\.identifier) == ["like-action", "comment-action"])
            #expect(category.actions.map(\.title) == ["Like", "Comment"])
            #expect(
                category.actions.map { $0.icon?.source } == [
                    .systemImage("hand.thumbsup"), .templateImage("text.bubble"),
                ])
            let comment = try #require(category.actions.last as? UNTextInputNotificationAction)
            #expect(comment.textInputButtonTitle == "Post" && comment.textInputPlaceholder == "Type here…")
        }

        @Test("8:31 Passive Notification: Local — a passive request, due in 5 s, that will not interrupt")
        func passiveLocal() throws {
            // Interruption levels
            // Local notification

            let content = UNMutableNotificationContent()
            content.title = "Passive"
            content.body = "I’m a passive notification, so I won’t interrupt you."
            content.interruptionLevel = .passive

            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 5, repeats: false)

            let request = UNNotificationRequest(
                identifier: "passive-request-example",
                content: content,
                trigger: trigger)

            #expect(request.identifier == "passive-request-example")
            #expect(request.content.interruptionLevel == .passive)
            #expect(request.content.title == "Passive")
            let due = try #require(request.trigger as? UNTimeIntervalNotificationTrigger)
            #expect(due.timeInterval == 5 && !due.repeats)
            #expect(due.nextTriggerDate(after: Date(timeIntervalSince1970: 0)) == Date(timeIntervalSince1970: 5))
        }

        @Test(
            "11:13 Time Sensitive Notification: Local — its zero interval stops the program, as Apple's exception does")
        func timeSensitiveLocal() async {
            // The block as written asks for `timeInterval: 0`, which Apple refuses with an exception
            // ("time interval must be greater than 0"): the process ends, here as there.
            await #expect(processExitsWith: .failure) {
                // Time Sensitive
                // Local notification

                let content = UNMutableNotificationContent()
                content.title = "Urgent"
                content.body = "Your account requires attention."
                content.interruptionLevel = .timeSensitive

                let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 0, repeats: false)

                let request = UNNotificationRequest(
                    identifier: "time-sensitive—example",
                    content: content,
                    trigger: trigger)
                _ = request
            }
        }

        @Test("18:29 and 18:43 INPerson and INSendMessageIntent: the message becomes a communication notification")
        func communication() throws {
            let handle = INPersonHandle(value: "jane@example.com", type: .emailAddress)
            var nameComponents = PersonNameComponents()
            nameComponents.givenName = "Jane"
            let displayName = "Jane Appleseed"
            let image = INImage(named: "jane")
            let contactIdentifier: String? = nil
            let customIdentifier = "user-42"
            let suggestionType = INPersonSuggestionType.instantMessageAddress

            // Create INPerson

            let person = INPerson(
                personHandle: handle,
                nameComponents: nameComponents,
                displayName: displayName,
                image: image,
                contactIdentifier: contactIdentifier,
                customIdentifier: customIdentifier,
                aliases: nil,
                suggestionType: suggestionType)

            #expect(person.displayName == "Jane Appleseed" && person.customIdentifier == "user-42")

            let person1 = person
            let person2 = INPerson(
                personHandle: INPersonHandle(value: "me@example.com", type: .emailAddress), nameComponents: nil,
                displayName: "Me", image: nil, contactIdentifier: nil, customIdentifier: nil, isMe: true)
            let content = "Running late, see you at 6"
            let speakableGroupName: INSpeakableString? = nil
            let conversationIdentifier = "conversation-7"
            let serviceName = "Herald Chat"

            // Create INSendMessageIntent
            // In your notification service extension

            let intent = INSendMessageIntent(
                recipients: [person2],
                outgoingMessageType: .outgoingMessageText,
                content: content,
                speakableGroupName: speakableGroupName,
                conversationIdentifier: conversationIdentifier,
                serviceName: serviceName,
                sender: person1,
                attachments: nil)

            let interaction = INInteraction(intent: intent, response: nil)
            interaction.direction = .incoming

            #expect(interaction.direction == .incoming && interaction.intent === intent)
            let notification = UNMutableNotificationContent()
            notification.body = content
            let updated = try notification.updating(from: intent)
            #expect(updated.title == "Jane Appleseed" && updated.body == content && updated.subtitle == "")
            #expect(updated.communication?.avatar == .named("jane"))
            #expect(updated.communication?.conversationIdentifier == "conversation-7")
        }

        @Test("Hidden Notification Content: the categories' placeholders")
        func hiddenPreviews() {
            let first: UNNotificationCategory
            do {
                let commentCategory = UNNotificationCategory(
                    identifier: "comment-category",
                    actions: [],
                    intentIdentifiers: [],
                    hiddenPreviewsBodyPlaceholder: "Comment")
                first = commentCategory
            }
            let counted: UNNotificationCategory
            do {
                let commentCategory = UNNotificationCategory(
                    identifier: "comment-category",
                    actions: [],
                    intentIdentifiers: [],
                    hiddenPreviewsBodyPlaceholder: "%u Comments")
                counted = commentCategory
            }
            #expect(first.hiddenPreviewsBodyPlaceholder == "Comment" && first.options == [])
            #expect(counted.hiddenPreviewsBodyPlaceholder == "%u Comments")
        }

        @Test("Modifying Push Content: the service extension's mutable copy, attachment and expiry")
        func serviceExtension() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }

            let original = UNMutableNotificationContent()
            original.title = "New video"
            original.userInfo = [
                "type": "video", "video-url": "https://www.example.com/media/myvideo.m4a",
                "video-location": "Skate Park, SF", "video-user": "John Appleseed",
            ]
            let request = UNNotificationRequest(identifier: "push", content: original, trigger: nil)
            let service = NotificationService()
            service.downloads = directory
            var shown: [UNNotificationContent] = []
            service.didReceive(request) { shown.append($0) }
            #expect(shown.count == 1)
            #expect(shown.first?.attachments.first?.identifier == "video")
            #expect(shown.first?.attachments.first?.type == "public.mpeg-4-audio")
            #expect(request.content.attachments.isEmpty)  // the request's own content is unchanged
            service.serviceExtensionTimeWillExpire()
            #expect(shown.last?.title == "Incoming video!")
        }
    }
#endif
