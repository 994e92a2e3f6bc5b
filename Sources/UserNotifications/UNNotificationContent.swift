// UNNotificationContent (read-only) and UNMutableNotificationContent (settable), with Foundation's
// copy semantics: `copy()` of an immutable content is itself, `copy()` of a mutable one is an
// immutable snapshot, and `mutableCopy()` of either is a new UNMutableNotificationContent with the
// same values. Equality and hash are by value (the class does not matter, as NSString and
// NSMutableString compare equal).
#if os(Linux)
    import Foundation

    /// Every value of a content, in one struct so that copies, equality and coding see all of them.
    package struct UNNotificationContentValues {
        package var title = ""
        package var subtitle = ""
        package var body = ""
        package var badge: NSNumber? = nil
        package var sound: UNNotificationSound? = nil
        package var launchImageName = ""
        package var userInfo: [AnyHashable: Any] = [:]
        package var attachments: [UNNotificationAttachment] = []
        package var categoryIdentifier = ""
        package var threadIdentifier = ""
        package var targetContentIdentifier: String? = nil
        package var summaryArgument = ""
        /// Apple's header: "Default is 1 and cannot be 0."
        package var summaryArgumentCount = 1
        package var interruptionLevel: UNNotificationInterruptionLevel = .active
        package var relevanceScore: Double = 0
        package var filterCriteria: String? = nil
        /// Set only by `updating(from:)`.
        package var communication: UNCommunicationContext? = nil

        package init() {}

        func isEqual(to other: UNNotificationContentValues) -> Bool {
            title == other.title && subtitle == other.subtitle && body == other.body && badge == other.badge
                && sound == other.sound && launchImageName == other.launchImageName
                && propertyListsEqual(userInfo, other.userInfo) && attachments == other.attachments
                && categoryIdentifier == other.categoryIdentifier && threadIdentifier == other.threadIdentifier
                && targetContentIdentifier == other.targetContentIdentifier && summaryArgument == other.summaryArgument
                && summaryArgumentCount == other.summaryArgumentCount && interruptionLevel == other.interruptionLevel
                && relevanceScore == other.relevanceScore && filterCriteria == other.filterCriteria
                && communication == other.communication
        }
    }

    open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, NSSecureCoding {
        package var values: UNNotificationContentValues

        package init(values: UNNotificationContentValues) {
            self.values = values
            super.init()
        }

        /// Empty content (every string "", no badge, no sound, level `.active`).
        public override convenience init() {
            self.init(values: UNNotificationContentValues())
        }

        open var title: String { values.title }
        open var subtitle: String { values.subtitle }
        open var body: String { values.body }
        /// nil leaves the app's badge as it is; 0 clears it.
        open var badge: NSNumber? { values.badge }
        open var sound: UNNotificationSound? { values.sound }
        open var launchImageName: String { values.launchImageName }
        open var userInfo: [AnyHashable: Any] { values.userInfo }
        open var attachments: [UNNotificationAttachment] { values.attachments }
        open var categoryIdentifier: String { values.categoryIdentifier }
        open var threadIdentifier: String { values.threadIdentifier }
        open var targetContentIdentifier: String? { values.targetContentIdentifier }
        @available(*, deprecated, message: "This property is ignored.")
        open var summaryArgument: String { values.summaryArgument }
        @available(*, deprecated, message: "This property is ignored.")
        open var summaryArgumentCount: Int { values.summaryArgumentCount }
        open var interruptionLevel: UNNotificationInterruptionLevel { values.interruptionLevel }
        open var relevanceScore: Double { values.relevanceScore }
        open var filterCriteria: String? { values.filterCriteria }

        /// The communication fields `updating(from:)` set (nil for any other content).
        package var communication: UNCommunicationContext? { values.communication }

        /// A copy of this content specialised by a communication intent (Apple's documented behaviour,
        /// the reference's section 13): the title becomes the sender's (or caller's) name, a group
        /// conversation's subtitle becomes the group's name (else the other participants' names), the
        /// body is unchanged, and the content carries the intent's communication fields. Throws
        /// `contentProvidingObjectNotAllowed` for a provider that is not one of the framework's intents
        /// and `contentProvidingInvalid` for an intent without a sender (message) or contacts (call).
        open func updating(from provider: any UNNotificationContentProviding) throws -> UNNotificationContent {
            guard let source = provider as? any UNCommunicationContentSource else {
                throw UNError(
                    .contentProvidingObjectNotAllowed,
                    reason: "Only INSendMessageIntent and INStartCallIntent provide notification content")
            }
            let context = try source.communicationContext()
            var updated = values
            if !context.senderDisplayName.isEmpty { updated.title = context.senderDisplayName }
            if let groupTitle = context.groupTitle, !groupTitle.isEmpty { updated.subtitle = groupTitle }
            updated.communication = context
            return UNNotificationContent(values: updated)
        }

        // MARK: NSObject

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationContent else { return false }
            return values.isEqual(to: other.values)
        }

        open override var hash: Int {
            var hasher = Hasher()
            hasher.combine(values.title)
            hasher.combine(values.subtitle)
            hasher.combine(values.body)
            hasher.combine(values.categoryIdentifier)
            hasher.combine(values.threadIdentifier)
            hasher.combine(values.interruptionLevel)
            return hasher.finalize()
        }

        // MARK: NSCopying, NSMutableCopying

        /// An immutable content is its own copy; a mutable one's copy is an immutable snapshot.
        open func copy(with zone: NSZone? = nil) -> Any {
            if type(of: self) == UNNotificationContent.self { return self }
            return UNNotificationContent(values: values)
        }

        open func mutableCopy(with zone: NSZone? = nil) -> Any {
            UNMutableNotificationContent(values: values)
        }

        // MARK: NSSecureCoding

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encodeString(values.title, forKey: "title")
            coder.encodeString(values.subtitle, forKey: "subtitle")
            coder.encodeString(values.body, forKey: "body")
            coder.encode(values.badge, forKey: "badge")
            coder.encode(values.sound, forKey: "sound")
            coder.encodeString(values.launchImageName, forKey: "launchImageName")
            coder.encodePropertyList(values.userInfo, forKey: "userInfo")
            coder.encode(NSArray(array: values.attachments), forKey: "attachments")
            coder.encodeString(values.categoryIdentifier, forKey: "categoryIdentifier")
            coder.encodeString(values.threadIdentifier, forKey: "threadIdentifier")
            coder.encodeString(values.targetContentIdentifier, forKey: "targetContentIdentifier")
            coder.encodeString(values.summaryArgument, forKey: "summaryArgument")
            coder.encode(values.summaryArgumentCount, forKey: "summaryArgumentCount")
            coder.encode(Int(values.interruptionLevel.rawValue), forKey: "interruptionLevel")
            coder.encode(values.relevanceScore, forKey: "relevanceScore")
            coder.encodeString(values.filterCriteria, forKey: "filterCriteria")
            if let communication = values.communication,
                let data = try? JSONEncoder().encode(CodableCommunication(communication))
            {
                coder.encode(data as NSData, forKey: "communication")
            }
        }

        public required init?(coder: NSCoder) {
            var values = UNNotificationContentValues()
            values.title = coder.decodeString(forKey: "title") ?? ""
            values.subtitle = coder.decodeString(forKey: "subtitle") ?? ""
            values.body = coder.decodeString(forKey: "body") ?? ""
            values.badge = coder.decodeOptional(of: NSNumber.self, forKey: "badge")
            values.sound = coder.decodeOptional(of: UNNotificationSound.self, forKey: "sound")
            values.launchImageName = coder.decodeString(forKey: "launchImageName") ?? ""
            values.userInfo = coder.decodePlist(forKey: "userInfo") ?? [:]
            values.attachments = coder.decodeArray(of: UNNotificationAttachment.self, forKey: "attachments") ?? []
            values.categoryIdentifier = coder.decodeString(forKey: "categoryIdentifier") ?? ""
            values.threadIdentifier = coder.decodeString(forKey: "threadIdentifier") ?? ""
            values.targetContentIdentifier = coder.decodeString(forKey: "targetContentIdentifier")
            values.summaryArgument = coder.decodeString(forKey: "summaryArgument") ?? ""
            values.summaryArgumentCount = max(1, coder.decodeInteger(forKey: "summaryArgumentCount"))
            guard
                let level = UNNotificationInterruptionLevel(
                    rawValue: UInt(clamping: coder.decodeInteger(forKey: "interruptionLevel")))
            else { return nil }
            values.interruptionLevel = level
            values.relevanceScore = coder.decodeDouble(forKey: "relevanceScore")
            values.filterCriteria = coder.decodeString(forKey: "filterCriteria")
            if let data = coder.decodeOptional(of: NSData.self, forKey: "communication") {
                guard let decoded = try? JSONDecoder().decode(CodableCommunication.self, from: Data(data)) else {
                    return nil
                }
                guard let context = decoded.context else { return nil }
                values.communication = context
            }
            self.values = values
            super.init()
        }
    }

    open class UNMutableNotificationContent: UNNotificationContent {
        open override var title: String {
            get { values.title }
            set { values.title = newValue }
        }
        open override var subtitle: String {
            get { values.subtitle }
            set { values.subtitle = newValue }
        }
        open override var body: String {
            get { values.body }
            set { values.body = newValue }
        }
        open override var badge: NSNumber? {
            get { values.badge }
            set { values.badge = newValue }
        }
        open override var sound: UNNotificationSound? {
            get { values.sound }
            set { values.sound = newValue }
        }
        open override var launchImageName: String {
            get { values.launchImageName }
            set { values.launchImageName = newValue }
        }
        open override var userInfo: [AnyHashable: Any] {
            get { values.userInfo }
            set { values.userInfo = newValue }
        }
        open override var attachments: [UNNotificationAttachment] {
            get { values.attachments }
            set { values.attachments = newValue }
        }
        open override var categoryIdentifier: String {
            get { values.categoryIdentifier }
            set { values.categoryIdentifier = newValue }
        }
        open override var threadIdentifier: String {
            get { values.threadIdentifier }
            set { values.threadIdentifier = newValue }
        }
        open override var targetContentIdentifier: String? {
            get { values.targetContentIdentifier }
            set { values.targetContentIdentifier = newValue }
        }
        @available(*, deprecated, message: "This property is ignored.")
        open override var summaryArgument: String {
            get { values.summaryArgument }
            set { values.summaryArgument = newValue }
        }
        @available(*, deprecated, message: "This property is ignored.")
        open override var summaryArgumentCount: Int {
            get { values.summaryArgumentCount }
            set { values.summaryArgumentCount = newValue }
        }
        open override var interruptionLevel: UNNotificationInterruptionLevel {
            get { values.interruptionLevel }
            set { values.interruptionLevel = newValue }
        }
        open override var relevanceScore: Double {
            get { values.relevanceScore }
            set { values.relevanceScore = newValue }
        }
        open override var filterCriteria: String? {
            get { values.filterCriteria }
            set { values.filterCriteria = newValue }
        }
    }

    extension Array {
        fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
    }

    /// The communication fields as JSON inside the archive (a keyed archive holds property-list values).
    private struct CodableCommunication: Codable {
        var kind: String
        var senderDisplayName: String
        var senderIdentifier: String?
        var senderHandleType: String?
        var conversationIdentifier: String?
        var groupName: String?
        var otherParticipantNames: [String]
        var otherParticipantHandles: [String?]?
        var otherParticipantHandleTypes: [String]?
        var avatarName: String?
        var avatarURL: URL?
        var avatarData: Data?

        init(_ context: UNCommunicationContext) {
            kind = context.kind.rawValue
            senderDisplayName = context.senderDisplayName
            senderIdentifier = context.senderIdentifier
            senderHandleType = context.senderHandleType
            otherParticipantHandles = context.otherParticipants.map(\.handle)
            otherParticipantHandleTypes = context.otherParticipants.map(\.handleType)
            conversationIdentifier = context.conversationIdentifier
            groupName = context.groupName
            otherParticipantNames = context.otherParticipantNames
            switch context.avatar {
            case .named(let name): avatarName = name
            case .url(let url): avatarURL = url
            case .data(let data): avatarData = data
            case nil: break
            }
        }

        var context: UNCommunicationContext? {
            guard let kind = UNCommunicationContext.Kind(rawValue: kind) else { return nil }
            let avatar: UNCommunicationImage? =
                if let avatarName { .named(avatarName) } else if let avatarURL {
                    .url(avatarURL)
                } else if let avatarData {
                    .data(avatarData)
                } else { nil }
            return UNCommunicationContext(
                kind: kind, senderDisplayName: senderDisplayName, senderIdentifier: senderIdentifier,
                senderHandleType: senderHandleType ?? "unknown", conversationIdentifier: conversationIdentifier,
                groupName: groupName,
                otherParticipants: otherParticipantNames.enumerated().map { index, name in
                    UNCommunicationPerson(
                        displayName: name, handle: otherParticipantHandles?[safe: index] ?? nil,
                        handleType: otherParticipantHandleTypes?[safe: index] ?? "unknown")
                }, avatar: avatar)
        }
    }
#endif
