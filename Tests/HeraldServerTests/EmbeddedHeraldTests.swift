#if os(Linux)
    import Foundation
    import FoundationNetworking
    import HeraldCore
    import HeraldDelivery
    import HeraldEmbedded
    import HeraldPolicy
    import HeraldServer
    import HeraldStore
    import Intents
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
            try await center.waitUntilConnected()
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

        @Test("INInteraction.donate stores the seeds' incoming message with Herald; delete removes donations")
        func donations() async throws {
            // Without a server (no environment, no embedded Herald): Apple's error, the reason beneath.
            let lonely = INInteraction(
                intent: INStartCallIntent(
                    callRecordFilter: nil, callRecordToCallBack: nil, audioRoute: .unknown, destinationType: .normal,
                    contacts: [], callCapability: .audioCall), response: nil)
            let offline = await #expect(throws: INIntentError.self) { try await lonely.donate() }
            #expect(offline?.code == .donatingInteraction)
            #expect(offline?.reason.contains("HERALD_URL") == true)

            let herald = try await EmbeddedHerald.start()
            try await herald.makeCurrent()
            // WWDC21 10091: the incoming message a notification service extension donates.
            let handle = INPersonHandle(value: "unique-user-id-1", type: .unknown)
            let sender = INPerson(
                personHandle: handle, nameComponents: nil, displayName: "Ana", image: nil, contactIdentifier: nil,
                customIdentifier: nil)
            let intent = INSendMessageIntent(
                recipients: nil, outgoingMessageType: .outgoingMessageText, content: "Message content",
                speakableGroupName: nil, conversationIdentifier: "unique-conversation-id-1", serviceName: nil,
                sender: sender, attachments: nil)
            let interaction = INInteraction(intent: intent, response: nil)
            interaction.direction = .incoming
            interaction.groupIdentifier = "conversation-1"
            try await interaction.donate()
            // The completion-handler spelling, an outgoing call.
            let call = INInteraction(
                intent: INStartCallIntent(
                    callRecordFilter: nil, callRecordToCallBack: nil, audioRoute: .unknown, destinationType: .normal,
                    contacts: [sender], callCapability: .audioCall), response: nil)
            call.direction = .outgoing
            let done = await withCheckedContinuation { continuation in
                call.donate { error in continuation.resume(returning: error == nil) }
            }
            #expect(done)

            let store = herald.application.store
            let userID = try #require(try await store.device(id: herald.demo.deviceID)?.userID)
            var stored = try await store.interactions(userID: userID, bundleID: herald.demo.topic)
            #expect(stored.map(\.identifier) == [interaction.identifier, call.identifier])
            #expect(stored.map(\.direction) == [.incoming, .outgoing])
            #expect(stored.map(\.kind) == [.message, .call])
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(stored[0].json.utf8)) as? [String: Any])
            let sent = try #require(json["intent"] as? [String: Any])
            #expect((sent["sender"] as? [String: Any])?["handle"] as? String == "unique-user-id-1")
            #expect(sent["conversation_identifier"] as? String == "unique-conversation-id-1")

            // Donating the same interaction again replaces it; delete by group, then all.
            try await interaction.donate()
            #expect(try await store.interactions(userID: userID, bundleID: herald.demo.topic).count == 2)
            try await INInteraction.delete(with: "conversation-1")
            stored = try await store.interactions(userID: userID, bundleID: herald.demo.topic)
            #expect(stored.map(\.identifier) == [call.identifier])
            try await INInteraction.deleteAll()
            #expect(try await store.interactions(userID: userID, bundleID: herald.demo.topic).isEmpty)
            try await herald.stop()
        }

        @Test(
            "a local message made with updating(from:) shows the sender and group and breaks through a Focus that allows her"
        )
        func communicationContent() async throws {
            let herald = try await EmbeddedHerald.start()
            let center = try await herald.makeCurrent()
            let store = herald.application.store
            let userID = try #require(try await store.device(id: herald.demo.deviceID)?.userID)
            // The Work Focus allows no app, but Ana.
            let work = FocusMode(
                id: "work", name: "Work", kind: .work,
                allowedPeople: [PersonHandle("ana@example.com", kind: .emailAddress)],
                manual: .on(since: Date().addingTimeInterval(-60), until: nil))
            try await store.upsertFocusMode(work, userID: userID)
            await herald.application.policy.userStateChanged(userID: userID)

            func person(_ handle: String, _ name: String, me: Bool = false) -> INPerson {
                INPerson(
                    personHandle: INPersonHandle(value: handle, type: .emailAddress), nameComponents: nil,
                    displayName: name, image: INImage(named: "\(name.lowercased()).png"), contactIdentifier: nil,
                    customIdentifier: nil, isMe: me)
            }
            let intent = INSendMessageIntent(
                recipients: [person("ben@example.com", "Ben"), person("me@example.com", "Me", me: true)],
                outgoingMessageType: .outgoingMessageText, content: "On my way",
                speakableGroupName: INSpeakableString(spokenPhrase: "Lunch crew"), conversationIdentifier: "lunch",
                serviceName: nil, sender: person("Ana@Example.com", "Ana"), attachments: nil)
            intent.setImage(INImage(named: "lunch.png"), forParameterNamed: \.speakableGroupName)
            let content = UNMutableNotificationContent()
            content.body = "On my way"
            content.userInfo = ["conversation": "lunch"]
            try await center.add(
                UNNotificationRequest(identifier: "m1", content: try content.updating(from: intent), trigger: nil))
            let plain = UNMutableNotificationContent()
            plain.title = "Sale"
            plain.body = "50% off"
            try await center.add(UNNotificationRequest(identifier: "p1", content: plain, trigger: nil))

            func stored(_ identifier: String) async throws -> StoredNotification {
                let id = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: identifier)
                return try #require(try await store.notification(deviceID: herald.demo.deviceID, id: id))
            }
            let message = try await stored("m1")
            #expect(message.disposition == .alerted)
            #expect(message.decision?.decision.reasons.contains(.focusAllowedPerson) == true)
            #expect(
                message.decision?.display
                    == NotificationDisplay(title: "Ana", subtitle: "Lunch crew", body: "On my way"))
            #expect(try await stored("p1").disposition == .heldForFocus)

            // The app reads it back as it made it: the communication fields, its own userInfo only.
            let delivered = try #require(
                try await center.deliveredNotifications().first { $0.request.identifier == "m1" })
            let read = delivered.request.content
            #expect(read.title == "Ana" && read.subtitle == "Lunch crew" && read.body == "On my way")
            #expect(read.communication?.senderIdentifier == "Ana@Example.com")
            #expect(read.communication?.senderHandleType == "email")
            #expect(read.communication?.avatar == .named("lunch.png"))
            #expect(read.communication?.otherParticipantNames == ["Ben"])
            #expect(read.userInfo.count == 1 && read.userInfo["conversation"] as? String == "lunch")

            // userInfo may not carry Herald's own key.
            let sneaky = UNMutableNotificationContent()
            sneaky.body = "x"
            sneaky.userInfo = ["communication": ["kind": "message"]]
            await #expect(throws: (any Error).self) {
                try await center.add(UNNotificationRequest(identifier: "s1", content: sneaky, trigger: nil))
            }
            try await herald.stop()
        }

        @Test("a Focus's suggested people are those the user messaged or called, never who reached them")
        func suggestedPeople() async throws {
            let herald = try await EmbeddedHerald.start()
            _ = try await herald.makeCurrent()
            func person(_ value: String, _ type: INPersonHandleType, _ name: String, me: Bool = false) -> INPerson {
                INPerson(
                    personHandle: INPersonHandle(value: value, type: type), nameComponents: nil, displayName: name,
                    image: nil, contactIdentifier: nil, customIdentifier: nil, isMe: me)
            }
            let me = person("me@example.com", .emailAddress, "Me", me: true)
            func message(to recipients: [INPerson], from sender: INPerson, _ direction: INInteractionDirection)
                async throws
            {
                let interaction = INInteraction(
                    intent: INSendMessageIntent(
                        recipients: recipients, outgoingMessageType: .outgoingMessageText, content: "hi",
                        speakableGroupName: nil, conversationIdentifier: nil, serviceName: nil, sender: sender,
                        attachments: nil), response: nil)
                interaction.direction = direction
                try await interaction.donate()
            }
            // Ben twice (his number written two ways), Cara called once, a spam caller who called in.
            try await message(to: [person("+1 555 010 0300", .phoneNumber, "Ben"), me], from: me, .outgoing)
            try await message(to: [person("555-010-0300", .phoneNumber, "Ben")], from: me, .outgoing)
            let call = INInteraction(
                intent: INStartCallIntent(
                    callRecordFilter: nil, callRecordToCallBack: nil, audioRoute: .unknown, destinationType: .normal,
                    contacts: [person("cara@example.com", .emailAddress, "Cara")], callCapability: .audioCall),
                response: nil)
            call.direction = .outgoing
            try await call.donate()
            let spam = INInteraction(
                intent: INStartCallIntent(
                    callRecordFilter: nil, callRecordToCallBack: nil, audioRoute: .unknown, destinationType: .normal,
                    contacts: [person("+1 900 555 0199", .phoneNumber, "Prize Desk")], callCapability: .audioCall),
                response: nil)
            spam.direction = .incoming
            try await spam.donate()
            try await message(to: [me], from: person("+1 900 555 0199", .phoneNumber, "Prize Desk"), .incoming)

            func suggested(_ focus: String) async throws -> (Int, [[String: Any]]) {
                var request = URLRequest(
                    url: URL(string: "\(herald.runtime.apiURL)/v1/me/focus-modes/\(focus)/suggested-people")!)
                request.setValue("Bearer \(herald.demo.userToken)", forHTTPHeaderField: "Authorization")
                let (data, response) = try await URLSession.shared.data(for: request)
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, object?["people"] as? [[String: Any]] ?? [])
            }
            let (status, people) = try await suggested("work")
            #expect(status == 200)
            #expect(people.map { $0["display_name"] as? String } == ["Ben", "Cara"])
            #expect(people.map { $0["interactions"] as? Int } == [2, 1])
            #expect(people.first?["type"] as? String == "phone" && people.last?["type"] as? String == "email")
            #expect(people.first?["bundle_ids"] as? [String] == [herald.demo.topic])

            // Once Ben is allowed in the Work Focus, he is no longer suggested for it.
            let store = herald.application.store
            let userID = try #require(try await store.device(id: herald.demo.deviceID)?.userID)
            try await store.upsertFocusMode(
                FocusMode(
                    id: "work", name: "Work", kind: .work,
                    allowedPeople: [PersonHandle("+15550100300", kind: .phoneNumber)]), userID: userID)
            #expect(try await suggested("work").1.map { $0["display_name"] as? String } == ["Cara"])
            #expect(try await suggested("reading").1.count == 2)
            #expect(try await suggested("nope").0 == 404)
            try await herald.stop()
        }

        @Test(
            "an app's attachment goes to Herald's store with its notification; the store's refusals are Apple's UNErrors"
        )
        func attachments() async throws {
            let herald = try await EmbeddedHerald.start(attachmentQuota: 7000)
            do {
                try await attachments(herald)
            } catch {
                Issue.record(error)
            }
            try await herald.stop()
        }

        private func attachments(_ herald: EmbeddedHerald) async throws {
            let center = try await herald.makeCurrent()
            // Apple moves an attachment's file into its store when the request is added: each request
            // gets a file of its own, and the file is gone once added.
            func content() throws -> (UNMutableNotificationContent, URL) {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "herald-\(UUID().uuidString).png")
                try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 3, count: 3000)).write(
                    to: file)
                let content = UNMutableNotificationContent()
                content.title = "Look"
                content.attachments = [
                    try UNNotificationAttachment(
                        identifier: "photo", url: file,
                        options: [UNNotificationAttachmentOptionsThumbnailHiddenKey: true])
                ]
                return (content, file)
            }
            // Triggered: the pending request keeps it; firing shows it.
            let (later, laterFile) = try content()
            try await center.add(
                UNNotificationRequest(
                    identifier: "later", content: later,
                    trigger: UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)))
            #expect(!FileManager.default.fileExists(atPath: laterFile.path))
            try await center.add(UNNotificationRequest(identifier: "now", content: try content().0, trigger: nil))
            let store = herald.application.store
            let row = try #require(
                try await store.notification(
                    deviceID: herald.demo.deviceID,
                    id: LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "now")))
            #expect(row.attachments.map(\.identifier) == ["photo"])
            #expect(row.attachments.map(\.type) == ["public.png"] && row.attachments.first?.thumbnailHidden == true)
            #expect(row.attachments.first?.size == 3008)
            // Both kept while shown or pending.
            #expect(try await herald.application.attachments.sweep().isEmpty)

            // The quota (7,000 bytes, 2 × 3,008 taken): Apple's "could not move into the data store".
            let (third, thirdFile) = try content()
            defer { try? FileManager.default.removeItem(at: thirdFile) }
            let error = await #expect(throws: UNError.self) {
                try await center.add(UNNotificationRequest(identifier: "third", content: third, trigger: nil))
            }
            #expect(error?.code == .attachmentMoveIntoDataStoreFailed)
            // Refused: nothing was moved, the app keeps its file.
            #expect(FileManager.default.fileExists(atPath: thirdFile.path))

            // The pending request removed: its copy is freed; the delivered one stays.
            center.removePendingNotificationRequests(withIdentifiers: ["later"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await herald.application.attachments.sweep().count == 1)
            #expect(try await herald.application.attachments.sweep().isEmpty)
        }

        @Test("the wall clock cannot be moved")
        func wallClock() async throws {
            let herald = try await EmbeddedHerald.start()
            await #expect(throws: EmbeddedHeraldError.self) { try await herald.advanceClock(by: 1) }
            try await herald.stop()
        }
    }
#endif
