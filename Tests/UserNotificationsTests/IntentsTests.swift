// The Intents subset and UNNotificationContent.updating(from:).
#if os(Linux)
    import Foundation
    import Intents
    import Testing
    import UserNotifications

    func person(_ name: String?, handle: String, image: INImage? = nil, isMe: Bool = false) -> INPerson {
        INPerson(
            personHandle: INPersonHandle(value: handle, type: .emailAddress), nameComponents: nil, displayName: name,
            image: image, contactIdentifier: nil, customIdentifier: nil, isMe: isMe)
    }

    @Suite("Intents and updating(from:)")
    struct IntentsTests {
        @Test("INPerson's display name falls back to the name components, then the handle, then \"\"")
        func displayNameFallback() {
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            let handle = INPersonHandle(value: "ada@example.com", type: .emailAddress, label: .work)
            let byComponents = INPerson(
                personHandle: handle, nameComponents: name, displayName: nil, image: nil, contactIdentifier: nil,
                customIdentifier: "ada")
            #expect(byComponents.displayName == "Ada Lovelace")
            #expect(byComponents.personHandle?.label == .work && byComponents.customIdentifier == "ada")
            let byHandle = INPerson(
                personHandle: handle, nameComponents: nil, displayName: nil, image: nil, contactIdentifier: nil,
                customIdentifier: nil, aliases: [INPersonHandle(value: "+1555", type: .phoneNumber)],
                suggestionType: .instantMessageAddress)
            #expect(byHandle.displayName == "ada@example.com")
            #expect(byHandle.aliases?.first?.type == .phoneNumber && byHandle.suggestionType == .instantMessageAddress)
            let nothing = INPerson(
                personHandle: INPersonHandle(value: nil, type: .unknown), nameComponents: nil, displayName: nil,
                image: nil, contactIdentifier: nil, customIdentifier: nil, isContactSuggestion: true,
                suggestionType: .socialProfile)
            #expect(nothing.displayName == "" && nothing.isContactSuggestion)
        }

        @Test("INImage: a name, bytes, or a file or web URL (other URLs are refused); INSpeakableString")
        func imagesAndSpeakables() {
            #expect(INImage(named: "avatar").source == .named("avatar"))
            #expect(INImage(imageData: Data([1, 2])).source == .data(Data([1, 2])))
            #expect(INImage(url: URL(fileURLWithPath: "/tmp/a.png")) != nil)
            #expect(INImage(url: URL(string: "https://example.com/a.png")!) != nil)
            #expect(INImage(url: URL(string: "ftp://example.com/a.png")!) == nil)
            let group = INSpeakableString(spokenPhrase: "Climbing")
            #expect(group.spokenPhrase == "Climbing" && group.vocabularyIdentifier == nil)
            let full = INSpeakableString(
                vocabularyIdentifier: "g1", spokenPhrase: "Climbing", pronunciationHint: "klai")
            #expect(full.vocabularyIdentifier == "g1" && full.pronunciationHint == "klai")
        }

        @Test("a direct message: the sender's name becomes the title, the sender's image the avatar, the body stays")
        func directMessage() throws {
            let content = UNMutableNotificationContent()
            content.title = "New message"
            content.body = "See you at 6?"
            let sender = person("Jane Appleseed", handle: "jane@example.com", image: INImage(named: "jane"))
            let intent = INSendMessageIntent(
                recipients: nil, outgoingMessageType: .outgoingMessageText, content: "See you at 6?",
                speakableGroupName: nil, conversationIdentifier: "conv-1", serviceName: "Herald", sender: sender,
                attachments: nil)
            let updated = try content.updating(from: intent)
            #expect(!(updated is UNMutableNotificationContent))
            #expect(updated.title == "Jane Appleseed" && updated.subtitle == "" && updated.body == "See you at 6?")
            let communication = try #require(updated.communication)
            #expect(communication.kind == .message && !communication.isGroup)
            #expect(
                communication.senderIdentifier == "jane@example.com" && communication.conversationIdentifier == "conv-1"
            )
            #expect(communication.avatar == .named("jane"))
            #expect(content.communication == nil && content.title == "New message")
        }

        @Test(
            "a group message: the group's name is the subtitle and its image (set for \\.speakableGroupName) the avatar"
        )
        func groupMessage() throws {
            let intent = INSendMessageIntent(
                recipients: [person("Bo", handle: "bo@x"), person("Cy", handle: "cy@x")],
                outgoingMessageType: .outgoingMessageText, content: "Hi all", speakableGroupName: nil,
                conversationIdentifier: "g", serviceName: nil, sender: person("Al", handle: "al@x"), attachments: nil)
            intent.setImage(INImage(named: "group"), forParameterNamed: \.speakableGroupName)
            #expect(intent.image(forParameterNamed: \.speakableGroupName) == INImage(named: "group"))
            let updated = try UNNotificationContent().updating(from: intent)
            #expect(updated.title == "Al" && updated.subtitle == "Bo, Cy")
            #expect(updated.communication?.avatar == .named("group"))
            let named = INSendMessageIntent(
                recipients: [person("Bo", handle: "bo@x")], outgoingMessageType: .outgoingMessageText, content: nil,
                speakableGroupName: INSpeakableString(spokenPhrase: "Climbing"), conversationIdentifier: nil,
                serviceName: nil, sender: person("Al", handle: "al@x"), attachments: nil)
            #expect(try UNNotificationContent().updating(from: named).subtitle == "Climbing")
        }

        @Test("a call: the first contact is the title; a ringtone sound can be set on content")
        func call() throws {
            let intent = INStartCallIntent(
                callRecordFilter: nil, callRecordToCallBack: nil, audioRoute: .unknown, destinationType: .normal,
                contacts: [person("Jane", handle: "+15550100")], callCapability: .videoCall)
            #expect(intent.callCapability == .videoCall && intent.destinationType == .normal)
            let updated = try UNNotificationContent().updating(from: intent)
            #expect(updated.title == "Jane" && updated.communication?.kind == .call)
        }

        @Test("refusals: a provider of one's own is 1500, a message without sender or call without contacts 1501")
        func refusals() {
            final class Mine: NSObject, UNNotificationContentProviding {}
            func code(_ provider: any UNNotificationContentProviding) -> UNError.Code? {
                let error = #expect(throws: UNError.self) { try UNNotificationContent().updating(from: provider) }
                return error?.code
            }
            #expect(code(Mine()) == .contentProvidingObjectNotAllowed)
            let noSender = INSendMessageIntent(
                recipients: nil, outgoingMessageType: .unknown, content: nil, speakableGroupName: nil,
                conversationIdentifier: nil, serviceName: nil, sender: nil, attachments: nil)
            #expect(code(noSender) == .contentProvidingInvalid)
            let noContacts = INStartCallIntent(
                callRecordFilter: nil, callRecordToCallBack: nil, audioRoute: .unknown, destinationType: .unknown,
                contacts: [], callCapability: .audioCall)
            #expect(code(noContacts) == .contentProvidingInvalid)
        }

        @Test("updated content keeps its communication fields through copies and a keyed archive")
        func communicationSurvives() throws {
            let intent = INSendMessageIntent(
                recipients: nil, outgoingMessageType: .outgoingMessageText, content: nil, speakableGroupName: nil,
                conversationIdentifier: "c", serviceName: nil, sender: person("Jane", handle: "j@x"), attachments: nil)
            let updated = try UNNotificationContent().updating(from: intent)
            let mutable = try #require(updated.mutableCopy() as? UNMutableNotificationContent)
            #expect(mutable.communication == updated.communication)
            let data = try NSKeyedArchiver.archivedData(withRootObject: updated, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: UNNotificationContent.self, from: data))
            #expect(decoded == updated && decoded.communication?.senderIdentifier == "j@x")
        }

        @Test("an interaction: intent, direction, identifiers")
        func interaction() {
            let intent = INSendMessageIntent(
                recipients: nil, outgoingMessageType: .outgoingMessageText, content: nil, speakableGroupName: nil,
                conversationIdentifier: nil, serviceName: nil, sender: person("J", handle: "j@x"), attachments: nil)
            let interaction = INInteraction(intent: intent, response: nil)
            #expect(interaction.direction == .unspecified && interaction.intent === intent)
            interaction.direction = .incoming
            interaction.groupIdentifier = "conv"
            #expect(interaction.direction == .incoming && !interaction.identifier.isEmpty)
            #expect(INInteraction(intent: intent, response: nil).identifier != interaction.identifier)
        }
    }
#endif
