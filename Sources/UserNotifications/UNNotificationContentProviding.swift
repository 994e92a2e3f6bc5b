// UNNotificationContentProviding and what `UNNotificationContent.updating(from:)` reads from it.
//
// The protocol is Apple's: public, no requirements, and only the framework's own types conform
// (INSendMessageIntent and INStartCallIntent, in the Intents module). Those two also conform to the
// package-level `UNCommunicationContentSource`, which hands `updating(from:)` the communication
// fields; a type outside this package cannot conform to it, so `updating(from:)` refuses it with
// `UNError.contentProvidingObjectNotAllowed` (1500), as Apple does for "objects you conform yourself".
#if os(Linux)
    import Foundation

    public protocol UNNotificationContentProviding: NSObjectProtocol {}

    /// An avatar as Herald stores it with a communication notification: the image's name in the app,
    /// a URL, or its bytes (INImage's three initializers).
    package enum UNCommunicationImage: Hashable, Sendable {
        case named(String)
        case url(URL)
        case data(Data)
    }

    /// A participant of a conversation as Herald sends it: the name shown, and the handle a Focus's
    /// allowed people are matched with ("phone", "email" or "unknown").
    package struct UNCommunicationPerson: Hashable, Sendable {
        package var displayName: String
        package var handle: String?
        package var handleType: String

        package init(displayName: String, handle: String?, handleType: String) {
            self.displayName = displayName
            self.handle = handle
            self.handleType = handleType
        }
    }

    /// The communication fields of content made by `updating(from:)` (docs: the reference's section 13):
    /// who it is from, which conversation, whether it is a group, and the avatar. Sent with the content
    /// as its `communication` key (`HeraldWireFormat`), which the server treats as a push's.
    package struct UNCommunicationContext: Hashable, Sendable {
        package enum Kind: String, Hashable, Sendable {
            case message
            case call
        }

        package var kind: Kind
        /// The sender (message) or the caller (call), as shown.
        package var senderDisplayName: String
        /// The sender's handle value, else its custom identifier, else its contact identifier (nil: none).
        package var senderIdentifier: String?
        /// The type of the sender's handle: "phone", "email" or "unknown" (an identifier of the app's).
        package var senderHandleType: String
        package var conversationIdentifier: String?
        /// The speakable group name, else nil.
        package var groupName: String?
        /// The other participants (recipients of a message, the other callees of a call).
        package var otherParticipants: [UNCommunicationPerson]
        package var avatar: UNCommunicationImage?

        package init(
            kind: Kind, senderDisplayName: String, senderIdentifier: String?, senderHandleType: String = "unknown",
            conversationIdentifier: String?, groupName: String?, otherParticipants: [UNCommunicationPerson],
            avatar: UNCommunicationImage?
        ) {
            self.kind = kind
            self.senderDisplayName = senderDisplayName
            self.senderIdentifier = senderIdentifier
            self.senderHandleType = senderHandleType
            self.conversationIdentifier = conversationIdentifier
            self.groupName = groupName
            self.otherParticipants = otherParticipants
            self.avatar = avatar
        }

        /// The other participants' display names.
        package var otherParticipantNames: [String] { otherParticipants.map(\.displayName) }

        /// A group conversation: a speakable group name, or at least two other participants.
        package var isGroup: Bool { groupName != nil || otherParticipantNames.count >= 2 }

        /// The group's title line: its name, else the other participants' names joined with ", ".
        package var groupTitle: String? {
            guard isGroup else { return nil }
            return groupName ?? otherParticipantNames.joined(separator: ", ")
        }
    }

    /// Implemented by the Intents module's INSendMessageIntent and INStartCallIntent only.
    package protocol UNCommunicationContentSource {
        /// The communication fields, or `UNError.contentProvidingInvalid` (1501) when the intent lacks
        /// what the notification needs (a message's sender, a call's contacts).
        func communicationContext() throws(UNError) -> UNCommunicationContext
    }
#endif
