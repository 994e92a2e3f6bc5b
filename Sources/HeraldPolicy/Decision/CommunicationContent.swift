import HeraldCore

/// The message or call a push carries in its top-level `communication` key: the data an app's
/// notification service extension would give `UNNotificationContent.updating(from:)` as an
/// `INSendMessageIntent` or `INStartCallIntent` (Herald runs no extensions, so the provider sends it):
///
/// ```json
/// "communication": {
///   "kind": "message",                       // or "call"
///   "sender": {"handle": "+1 555 010 0200", "handle_type": "phone",   // "email", "unknown"
///              "display_name": "Ana", "id": "ana-42", "avatar": "ana.png"},
///   "group": "Lunch crew",                   // optional: the speakable group name
///   "recipients": [{"handle": "ben@example.com", "handle_type": "email", "display_name": "Ben"}]
/// }
/// ```
///
/// Strict: `kind` and `sender` are required; a person needs a non-empty `handle` and a `handle_type`
/// (`app` is accepted for `unknown`, as the Focus API names app-specific handles);
/// `display_name`, `id` and `avatar` are optional non-empty strings; `group` an optional non-empty
/// string; `recipients` an optional array of persons; any other key is an error. A phone handle needs
/// a digit, an e-mail handle an `@`. Handles are compared as `PersonHandle`s (the Focus's allowed
/// people): phone numbers by their digits, e-mail addresses case-insensitively.
public struct CommunicationContent: Sendable, Hashable {
    /// The top-level payload key.
    public static let payloadKey = "communication"

    /// `INSendMessageIntent` or `INStartCallIntent`.
    public enum Kind: String, Sendable, Hashable {
        case message
        case call
    }

    /// An `INPerson`: the handle the Focus matches, and the name the device shows.
    public struct Person: Sendable, Hashable {
        public var handle: PersonHandle
        public var displayName: String?
        /// The app's own identifier of the person (`customIdentifier`).
        public var identifier: String?
        /// The avatar image name or URL, kept as sent.
        public var avatar: String?

        /// The name shown: the display name, else the handle as sent.
        public var name: String { displayName ?? rawHandle }
        /// The handle as sent.
        public var rawHandle: String

        public init(
            handle: String, kind: PersonHandle.Kind, displayName: String? = nil, identifier: String? = nil,
            avatar: String? = nil
        ) {
            self.handle = PersonHandle(handle, kind: kind)
            self.rawHandle = handle
            self.displayName = displayName
            self.identifier = identifier
            self.avatar = avatar
        }
    }

    /// What a payload says about communication.
    public enum Parsed: Sendable, Hashable {
        /// No `communication` key: an ordinary notification.
        case none
        case valid(CommunicationContent)
        /// A `communication` key that is not valid: not treated as communication; the message says why.
        case invalid(String)

        /// The content when it is valid.
        public var content: CommunicationContent? {
            if case .valid(let content) = self { return content }
            return nil
        }
    }

    public var kind: Kind
    public var sender: Person
    /// The group conversation's name (`speakableGroupName`).
    public var group: String?
    public var recipients: [Person]

    public init(kind: Kind, sender: Person, group: String? = nil, recipients: [Person] = []) {
        self.kind = kind
        self.sender = sender
        self.group = group
        self.recipients = recipients
    }

    /// The communication of `payload` (its custom `communication` key).
    public static func parse(_ payload: NotificationPayload) -> Parsed {
        guard let value = payload.custom[payloadKey] else { return .none }
        return parse(json: value)
    }

    /// The communication of a `communication` key's value (an app's content, an extension's answer).
    public static func parse(json value: JSONValue) -> Parsed {
        do throws(Invalid) {
            return .valid(try CommunicationContent(json: value))
        } catch {
            return .invalid(error.message)
        }
    }

    private struct Invalid: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static let keys: Set<String> = ["kind", "sender", "group", "recipients"]
    private static let personKeys: Set<String> = ["handle", "handle_type", "display_name", "id", "avatar"]
    private static let handleTypes: [String: PersonHandle.Kind] = [
        "phone": .phoneNumber, "email": .emailAddress, "unknown": .appSpecific, "app": .appSpecific,
    ]

    private init(json value: JSONValue) throws(Invalid) {
        guard let object = value.objectValue else { throw Invalid("communication must be an object.") }
        if let key = object.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw Invalid("communication has an unknown key \(key).")
        }
        guard let kindName = object["kind"]?.stringValue, let kind = Kind(rawValue: kindName) else {
            throw Invalid("communication.kind must be \"message\" or \"call\".")
        }
        guard let sender = object["sender"] else { throw Invalid("communication.sender is missing.") }
        self.kind = kind
        self.sender = try Self.person(sender, path: "communication.sender")
        self.group = try Self.optionalString(object["group"], path: "communication.group")
        switch object["recipients"] {
        case nil, .null?:
            recipients = []
        case .array(let items)?:
            var recipients: [Person] = []
            for (index, item) in items.enumerated() {
                recipients.append(try Self.person(item, path: "communication.recipients[\(index)]"))
            }
            self.recipients = recipients
        default:
            throw Invalid("communication.recipients must be an array of persons.")
        }
    }

    private static func person(_ value: JSONValue, path: String) throws(Invalid) -> Person {
        guard let object = value.objectValue else { throw Invalid("\(path) must be an object.") }
        if let key = object.keys.sorted().first(where: { !personKeys.contains($0) }) {
            throw Invalid("\(path) has an unknown key \(key).")
        }
        guard let handle = object["handle"]?.stringValue, !handle.trimmingWhitespace().isEmpty else {
            throw Invalid("\(path).handle must be a non-empty string.")
        }
        guard let typeName = object["handle_type"]?.stringValue, let type = handleTypes[typeName] else {
            throw Invalid("\(path).handle_type must be \"phone\", \"email\" or \"unknown\".")
        }
        let person = Person(
            handle: handle, kind: type,
            displayName: try optionalString(object["display_name"], path: "\(path).display_name"),
            identifier: try optionalString(object["id"], path: "\(path).id"),
            avatar: try optionalString(object["avatar"], path: "\(path).avatar")
        )
        switch type {
        case .phoneNumber where !person.handle.value.contains(where: \.isNumber):
            throw Invalid("\(path).handle is not a phone number.")
        case .emailAddress where !person.handle.value.contains("@"):
            throw Invalid("\(path).handle is not an e-mail address.")
        default:
            return person
        }
    }

    private static func optionalString(_ value: JSONValue?, path: String) throws(Invalid) -> String? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let string)? where !string.trimmingWhitespace().isEmpty:
            return string
        default:
            throw Invalid("\(path) must be a non-empty string.")
        }
    }
}
