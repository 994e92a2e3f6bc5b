// The intents of communication notifications: INSendMessageIntent and INStartCallIntent with their
// iOS 15 initializers, the types those initializers take, and their UNNotificationContentProviding
// conformance (what `UNNotificationContent.updating(from:)` reads).
#if os(Linux)
    import Foundation
    import UserNotifications

    public enum INOutgoingMessageType: Int, Sendable {
        case unknown = 0
        case outgoingMessageText = 1
        case outgoingMessageAudio = 2
    }

    public enum INCallAudioRoute: Int, Sendable {
        case unknown = 0
        case speakerphoneAudioRoute = 1
        case bluetoothAudioRoute = 2
    }

    public enum INCallDestinationType: Int, Sendable {
        case unknown = 0
        case normal = 1
        case emergency = 2
        case voicemail = 3
        case redial = 4
        case callBack = 5
    }

    public enum INCallCapability: Int, Sendable {
        case unknown = 0
        case audioCall = 1
        case videoCall = 2
    }

    public enum INCallRecordType: Int, Sendable {
        case unknown = 0
        case outgoing = 1
        case missed = 2
        case received = 3
        case latest = 4
        case voicemail = 5
        case ringing = 6
        case inProgress = 7
        case onHold = 8
    }

    public struct INCallRecordTypeOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let outgoing = INCallRecordTypeOptions(rawValue: 1 << 0)
        public static let missed = INCallRecordTypeOptions(rawValue: 1 << 1)
        public static let received = INCallRecordTypeOptions(rawValue: 1 << 2)
        public static let latest = INCallRecordTypeOptions(rawValue: 1 << 3)
        public static let voicemail = INCallRecordTypeOptions(rawValue: 1 << 4)
        public static let ringing = INCallRecordTypeOptions(rawValue: 1 << 5)
        public static let inProgress = INCallRecordTypeOptions(rawValue: 1 << 6)
        public static let onHold = INCallRecordTypeOptions(rawValue: 1 << 7)
    }

    /// A file an intent carries (an audio message): its bytes or its URL, a name and a UTI.
    open class INFile: NSObject, @unchecked Sendable {
        open var data: Data { storedData ?? (fileURL.flatMap { try? Data(contentsOf: $0) } ?? Data()) }
        open var filename: String
        open var typeIdentifier: String?
        open var fileURL: URL? { storedURL }

        private let storedData: Data?
        private let storedURL: URL?

        public init(data: Data, filename: String, typeIdentifier: String?) {
            storedData = data
            storedURL = nil
            self.filename = filename
            self.typeIdentifier = typeIdentifier
            super.init()
        }

        public init(fileURL: URL, filename: String?, typeIdentifier: String?) {
            storedData = nil
            storedURL = fileURL
            self.filename = filename ?? fileURL.lastPathComponent
            self.typeIdentifier = typeIdentifier
            super.init()
        }
    }

    open class INSendMessageAttachment: NSObject, @unchecked Sendable {
        open var audioMessageFile: INFile? { storedFile }
        private let storedFile: INFile?

        private init(audioMessageFile: INFile?) {
            storedFile = audioMessageFile
            super.init()
        }

        open class func attachment(withAudioMessageFile audioMessageFile: INFile) -> INSendMessageAttachment {
            INSendMessageAttachment(audioMessageFile: audioMessageFile)
        }
    }

    /// Which calls a call intent refers to.
    open class INCallRecordFilter: NSObject, @unchecked Sendable {
        open var participants: [INPerson]? { storedParticipants }
        open var callTypes: INCallRecordTypeOptions { storedCallTypes }
        open var callCapability: INCallCapability { storedCallCapability }

        private let storedParticipants: [INPerson]?
        private let storedCallTypes: INCallRecordTypeOptions
        private let storedCallCapability: INCallCapability

        public init(participants: [INPerson]?, callTypes: INCallRecordTypeOptions, callCapability: INCallCapability) {
            storedParticipants = participants
            storedCallTypes = callTypes
            storedCallCapability = callCapability
            super.init()
        }
    }

    /// A call of the call history.
    open class INCallRecord: NSObject, @unchecked Sendable {
        open var identifier: String { storedIdentifier }
        open var dateCreated: Date? { storedDateCreated }
        open var callRecordType: INCallRecordType { storedType }
        open var callCapability: INCallCapability { storedCapability }
        open var callDuration: Double? { storedDuration }
        open var unseen: Bool? { storedUnseen }

        private let storedIdentifier: String
        private let storedDateCreated: Date?
        private let storedType: INCallRecordType
        private let storedCapability: INCallCapability
        private let storedDuration: Double?
        private let storedUnseen: Bool?

        public init(
            identifier: String, dateCreated: Date?, callRecordType: INCallRecordType, callCapability: INCallCapability,
            callDuration: Double?, unseen: Bool?
        ) {
            storedIdentifier = identifier
            storedDateCreated = dateCreated
            storedType = callRecordType
            storedCapability = callCapability
            storedDuration = callDuration
            storedUnseen = unseen
            super.init()
        }
    }

    /// The base of every intent: its identifier and the images set for its parameters.
    open class INIntent: NSObject, @unchecked Sendable {
        /// A unique identifier, made when the intent is.
        open var identifier: String? { storedIdentifier }
        private let storedIdentifier = UUID().uuidString

        /// Images set with `setImage(_:forParameterNamed:)`, by parameter.
        var parameterImages: [AnyKeyPath: INImage] = [:]

        public override init() {
            super.init()
        }
    }

    /// Apple's spelling of per-parameter images (`intent.setImage(avatar, forParameterNamed: \.sender)`).
    public protocol _INIntentSetImageKeyPath {}

    extension _INIntentSetImageKeyPath where Self: INIntent {
        public func setImage<Value>(_ image: INImage?, forParameterNamed parameterName: KeyPath<Self, Value>) {
            parameterImages[parameterName] = image
        }

        public func image<Value>(forParameterNamed parameterName: KeyPath<Self, Value>) -> INImage? {
            parameterImages[parameterName]
        }
    }

    extension INIntent: _INIntentSetImageKeyPath {}

    /// The base of intent responses (an interaction may carry one).
    open class INIntentResponse: NSObject, @unchecked Sendable {
        public override init() {
            super.init()
        }
    }

    extension INImage {
        var communicationImage: UNCommunicationImage {
            switch source {
            case .named(let name): .named(name)
            case .url(let url): .url(url)
            case .data(let data): .data(data)
            }
        }
    }

    open class INSendMessageIntent: INIntent, UNNotificationContentProviding, UNCommunicationContentSource,
        @unchecked Sendable
    {
        /// The other participants (nil for a direct message).
        open var recipients: [INPerson]? { storedRecipients }
        open var outgoingMessageType: INOutgoingMessageType { storedOutgoingMessageType }
        open var content: String? { storedContent }
        open var speakableGroupName: INSpeakableString? { storedSpeakableGroupName }
        open var conversationIdentifier: String? { storedConversationIdentifier }
        open var serviceName: String? { storedServiceName }
        open var sender: INPerson? { storedSender }
        open var attachments: [INSendMessageAttachment]? { storedAttachments }

        private let storedRecipients: [INPerson]?
        private let storedOutgoingMessageType: INOutgoingMessageType
        private let storedContent: String?
        private let storedSpeakableGroupName: INSpeakableString?
        private let storedConversationIdentifier: String?
        private let storedServiceName: String?
        private let storedSender: INPerson?
        private let storedAttachments: [INSendMessageAttachment]?

        public init(
            recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?,
            speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?,
            sender: INPerson?, attachments: [INSendMessageAttachment]?
        ) {
            storedRecipients = recipients
            storedOutgoingMessageType = outgoingMessageType
            storedContent = content
            storedSpeakableGroupName = speakableGroupName
            storedConversationIdentifier = conversationIdentifier
            storedServiceName = serviceName
            storedSender = sender
            storedAttachments = attachments
            super.init()
        }

        /// The sender is the notification's title and avatar (the image set for `\.sender`, else the
        /// sender's own); a group's avatar is the image set for `\.speakableGroupName`.
        package func communicationContext() throws(UNError) -> UNCommunicationContext {
            guard let sender else {
                throw UNError(.contentProvidingInvalid, reason: "INSendMessageIntent has no sender")
            }
            var context = UNCommunicationContext(
                kind: .message, senderDisplayName: sender.displayName, senderIdentifier: sender.heraldIdentifier,
                senderHandleType: sender.heraldHandleType, conversationIdentifier: conversationIdentifier,
                groupName: speakableGroupName?.spokenPhrase,
                otherParticipants: (recipients ?? []).filter { !$0.isMe }.map(\.communicationPerson), avatar: nil)
            // A group's own image when it has one, else the sender's (as iOS shows a group without one).
            let avatar =
                (context.isGroup ? image(forParameterNamed: \.speakableGroupName) : nil)
                ?? image(forParameterNamed: \.sender) ?? sender.image
            context.avatar = avatar?.communicationImage
            return context
        }
    }

    open class INStartCallIntent: INIntent, UNNotificationContentProviding, UNCommunicationContentSource,
        @unchecked Sendable
    {
        open var callRecordFilter: INCallRecordFilter? { storedCallRecordFilter }
        open var callRecordToCallBack: INCallRecord? { storedCallRecordToCallBack }
        open var audioRoute: INCallAudioRoute { storedAudioRoute }
        open var destinationType: INCallDestinationType { storedDestinationType }
        open var contacts: [INPerson]? { storedContacts }
        open var callCapability: INCallCapability { storedCallCapability }

        private let storedCallRecordFilter: INCallRecordFilter?
        private let storedCallRecordToCallBack: INCallRecord?
        private let storedAudioRoute: INCallAudioRoute
        private let storedDestinationType: INCallDestinationType
        private let storedContacts: [INPerson]?
        private let storedCallCapability: INCallCapability

        public init(
            callRecordFilter: INCallRecordFilter?, callRecordToCallBack: INCallRecord?, audioRoute: INCallAudioRoute,
            destinationType: INCallDestinationType, contacts: [INPerson]?, callCapability: INCallCapability
        ) {
            storedCallRecordFilter = callRecordFilter
            storedCallRecordToCallBack = callRecordToCallBack
            storedAudioRoute = audioRoute
            storedDestinationType = destinationType
            storedContacts = contacts
            storedCallCapability = callCapability
            super.init()
        }

        /// The first contact is the caller (title and avatar); the others are the other participants.
        package func communicationContext() throws(UNError) -> UNCommunicationContext {
            guard let contacts, let caller = contacts.first else {
                throw UNError(.contentProvidingInvalid, reason: "INStartCallIntent has no contacts")
            }
            return UNCommunicationContext(
                kind: .call, senderDisplayName: caller.displayName, senderIdentifier: caller.heraldIdentifier,
                senderHandleType: caller.heraldHandleType, conversationIdentifier: nil, groupName: nil,
                otherParticipants: contacts.dropFirst().map(\.communicationPerson),
                avatar: (image(forParameterNamed: \.contacts) ?? caller.image)?.communicationImage)
        }
    }

    public enum INInteractionDirection: Int, Sendable {
        case unspecified = 0
        case outgoing = 1
        case incoming = 2
    }

    /// An intent as it happened (who sent or called whom, when). `donate()` stores it with Herald for
    /// the app and the device's user; `delete(with:)` and `deleteAll()` remove donations
    /// (INInteraction+Donation.swift).
    open class INInteraction: NSObject, @unchecked Sendable {
        open var intent: INIntent { storedIntent }
        open var intentResponse: INIntentResponse? { storedResponse }
        open var direction: INInteractionDirection = .unspecified
        open var dateInterval: DateInterval?
        /// A unique identifier (a new UUID by default).
        open var identifier: String = UUID().uuidString
        open var groupIdentifier: String?

        private let storedIntent: INIntent
        private let storedResponse: INIntentResponse?

        public init(intent: INIntent, response: INIntentResponse?) {
            storedIntent = intent
            storedResponse = response
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("INInteraction() is unavailable") }
    }
#endif
