// The people of a communication notification: INPersonHandle (an address and its kind), INPerson
// (who sends, receives or calls), INImage (an avatar) and INSpeakableString (a group's name).
#if os(Linux)
    import Foundation
    import UserNotifications

    public enum INPersonHandleType: Int, Sendable {
        case unknown = 0
        case emailAddress = 1
        case phoneNumber = 2
    }

    public enum INPersonSuggestionType: Int, Sendable {
        case none = 0
        case socialProfile = 1
        case instantMessageAddress = 2
    }

    /// A handle's label, a string wrapped like Apple's (the Contacts framework's labels).
    public struct INPersonHandleLabel: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let home = INPersonHandleLabel("_$!<Home>!$_")
        public static let work = INPersonHandleLabel("_$!<Work>!$_")
        public static let iPhone = INPersonHandleLabel("iPhone")
        public static let mobile = INPersonHandleLabel("_$!<Mobile>!$_")
        public static let main = INPersonHandleLabel("_$!<Main>!$_")
        public static let homeFax = INPersonHandleLabel("_$!<HomeFAX>!$_")
        public static let workFax = INPersonHandleLabel("_$!<WorkFAX>!$_")
        public static let pager = INPersonHandleLabel("_$!<Pager>!$_")
        public static let other = INPersonHandleLabel("_$!<Other>!$_")
        public static let school = INPersonHandleLabel("_$!<School>!$_")
    }

    open class INPersonHandle: NSObject, NSCopying, @unchecked Sendable {
        open var value: String? { storedValue }
        open var type: INPersonHandleType { storedType }
        open var label: INPersonHandleLabel? { storedLabel }

        private let storedValue: String?
        private let storedType: INPersonHandleType
        private let storedLabel: INPersonHandleLabel?

        public init(value: String?, type: INPersonHandleType, label: INPersonHandleLabel?) {
            storedValue = value
            storedType = type
            storedLabel = label
            super.init()
        }

        public convenience init(value: String?, type: INPersonHandleType) {
            self.init(value: value, type: type, label: nil)
        }

        @available(*, unavailable)
        public override init() { fatalError("INPersonHandle() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? INPersonHandle else { return false }
            return value == other.value && type == other.type && label == other.label
        }

        open override var hash: Int { value.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }
    }

    /// An image for Siri and notifications: a named image of the app, an image file's URL, or bytes.
    open class INImage: NSObject, NSCopying, @unchecked Sendable {
        package enum Source: Hashable, Sendable {
            case named(String)
            case url(URL)
            case data(Data)
        }

        package let source: Source

        package init(source: Source) {
            self.source = source
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("INImage() is unavailable") }

        public convenience init(named name: String) {
            self.init(source: .named(name))
        }

        public convenience init(imageData: Data) {
            self.init(source: .data(imageData))
        }

        /// nil for a URL that is neither a file nor an http(s) URL, as Apple's returns nil for a URL it
        /// cannot load.
        public convenience init?(url: URL) {
            guard url.isFileURL || ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
            self.init(source: .url(url))
        }

        open override func isEqual(_ object: Any?) -> Bool {
            (object as? INImage)?.source == source
        }

        open override var hash: Int { source.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }
    }

    /// Something Siri can say (a person's name, a group's name).
    public protocol INSpeakable: NSObjectProtocol {
        var spokenPhrase: String { get }
        var pronunciationHint: String? { get }
        var vocabularyIdentifier: String? { get }
    }

    open class INSpeakableString: NSObject, INSpeakable, NSCopying, @unchecked Sendable {
        open var spokenPhrase: String { storedSpokenPhrase }
        open var pronunciationHint: String? { storedPronunciationHint }
        open var vocabularyIdentifier: String? { storedVocabularyIdentifier }

        private let storedSpokenPhrase: String
        private let storedPronunciationHint: String?
        private let storedVocabularyIdentifier: String?

        public init(vocabularyIdentifier: String, spokenPhrase: String, pronunciationHint: String?) {
            storedVocabularyIdentifier = vocabularyIdentifier
            storedSpokenPhrase = spokenPhrase
            storedPronunciationHint = pronunciationHint
            super.init()
        }

        public init(spokenPhrase: String) {
            storedVocabularyIdentifier = nil
            storedSpokenPhrase = spokenPhrase
            storedPronunciationHint = nil
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("INSpeakableString() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? INSpeakableString else { return false }
            return spokenPhrase == other.spokenPhrase && pronunciationHint == other.pronunciationHint
                && vocabularyIdentifier == other.vocabularyIdentifier
        }

        open override var hash: Int { spokenPhrase.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }
    }

    open class INPerson: NSObject, INSpeakable, NSCopying, @unchecked Sendable {
        open var personHandle: INPersonHandle? { storedHandle }
        open var nameComponents: PersonNameComponents? { storedNameComponents }
        /// The name given, else the name components' given and family names, else the handle's value,
        /// else "".
        open var displayName: String { storedDisplayName }
        open var image: INImage? { storedImage }
        open var contactIdentifier: String? { storedContactIdentifier }
        open var customIdentifier: String? { storedCustomIdentifier }
        open var aliases: [INPersonHandle]? { storedAliases }
        open var suggestionType: INPersonSuggestionType { storedSuggestionType }
        open var isMe: Bool { storedIsMe }
        open var isContactSuggestion: Bool { storedIsContactSuggestion }

        open var spokenPhrase: String { displayName }
        open var pronunciationHint: String? { nil }
        open var vocabularyIdentifier: String? { customIdentifier }

        private let storedHandle: INPersonHandle?
        private let storedNameComponents: PersonNameComponents?
        private let storedDisplayName: String
        private let storedImage: INImage?
        private let storedContactIdentifier: String?
        private let storedCustomIdentifier: String?
        private let storedAliases: [INPersonHandle]?
        private let storedSuggestionType: INPersonSuggestionType
        private let storedIsMe: Bool
        private let storedIsContactSuggestion: Bool

        private init(
            handle: INPersonHandle?, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
            contactIdentifier: String?, customIdentifier: String?, aliases: [INPersonHandle]?,
            suggestionType: INPersonSuggestionType, isMe: Bool, isContactSuggestion: Bool
        ) {
            storedHandle = handle
            storedNameComponents = nameComponents
            let formatted = [nameComponents?.givenName, nameComponents?.familyName].compactMap { $0 }.filter {
                !$0.isEmpty
            }.joined(separator: " ")
            storedDisplayName =
                if let displayName, !displayName.isEmpty { displayName } else if !formatted.isEmpty { formatted } else {
                    handle?.value ?? ""
                }
            storedImage = image
            storedContactIdentifier = contactIdentifier
            storedCustomIdentifier = customIdentifier
            storedAliases = aliases
            storedSuggestionType = suggestionType
            storedIsMe = isMe
            storedIsContactSuggestion = isContactSuggestion
            super.init()
        }

        public convenience init(
            personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
            contactIdentifier: String?, customIdentifier: String?
        ) {
            self.init(
                handle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
                contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, aliases: nil,
                suggestionType: .none, isMe: false, isContactSuggestion: false)
        }

        public convenience init(
            personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
            contactIdentifier: String?, customIdentifier: String?, isMe: Bool
        ) {
            self.init(
                handle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
                contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, aliases: nil,
                suggestionType: .none, isMe: isMe, isContactSuggestion: false)
        }

        public convenience init(
            personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
            contactIdentifier: String?, customIdentifier: String?, isMe: Bool, suggestionType: INPersonSuggestionType
        ) {
            self.init(
                handle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
                contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, aliases: nil,
                suggestionType: suggestionType, isMe: isMe, isContactSuggestion: false)
        }

        public convenience init(
            personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
            contactIdentifier: String?, customIdentifier: String?, aliases: [INPersonHandle]?,
            suggestionType: INPersonSuggestionType
        ) {
            self.init(
                handle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
                contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, aliases: aliases,
                suggestionType: suggestionType, isMe: false, isContactSuggestion: false)
        }

        public convenience init(
            personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
            contactIdentifier: String?, customIdentifier: String?, isContactSuggestion: Bool,
            suggestionType: INPersonSuggestionType
        ) {
            self.init(
                handle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
                contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, aliases: nil,
                suggestionType: suggestionType, isMe: false, isContactSuggestion: isContactSuggestion)
        }

        @available(*, unavailable)
        public override init() { fatalError("INPerson() is unavailable") }

        /// The person's stable identifier for Herald: the handle's value, else the custom identifier,
        /// else the contact identifier.
        package var heraldIdentifier: String? {
            [personHandle?.value, customIdentifier, contactIdentifier].compactMap { $0 }.first { !$0.isEmpty }
        }

        /// The type of `heraldIdentifier`: the handle's ("phone", "email", "unknown"), else "unknown".
        package var heraldHandleType: String {
            guard let handle = personHandle, let value = handle.value, !value.isEmpty else { return "unknown" }
            return switch handle.type {
            case .emailAddress: "email"
            case .phoneNumber: "phone"
            case .unknown: "unknown"
            }
        }

        /// The person as a notification's communication fields carry it.
        package var communicationPerson: UNCommunicationPerson {
            UNCommunicationPerson(displayName: displayName, handle: heraldIdentifier, handleType: heraldHandleType)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? INPerson else { return false }
            return personHandle == other.personHandle && nameComponents == other.nameComponents
                && displayName == other.displayName && image == other.image
                && contactIdentifier == other.contactIdentifier && customIdentifier == other.customIdentifier
                && aliases == other.aliases && suggestionType == other.suggestionType && isMe == other.isMe
                && isContactSuggestion == other.isContactSuggestion
        }

        open override var hash: Int { displayName.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }
    }
#endif
