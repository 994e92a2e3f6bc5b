// UNNotificationRequest (what an app schedules), UNNotification (a delivered request and its date)
// and the responses a person gives to one (a tap, a dismissal, an action, a typed reply).
#if os(Linux)
    import Foundation

    open class UNNotificationRequest: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        open var identifier: String { storedIdentifier }
        /// An immutable snapshot of the content given (Apple's property is `@NSCopying`): changing the
        /// mutable content afterwards does not change the request.
        open var content: UNNotificationContent { storedContent }
        /// nil: deliver now.
        open var trigger: UNNotificationTrigger? { storedTrigger }

        private let storedIdentifier: String
        private let storedContent: UNNotificationContent
        private let storedTrigger: UNNotificationTrigger?

        public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
            storedIdentifier = identifier
            storedContent = content.copy() as! UNNotificationContent
            storedTrigger = trigger.map { $0.copy() as! UNNotificationTrigger }
            super.init()
        }

        @available(*, unavailable, message: "Use init(identifier:content:trigger:)")
        public override init() { fatalError("UNNotificationRequest() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationRequest else { return false }
            return identifier == other.identifier && content == other.content && trigger == other.trigger
        }

        open override var hash: Int { identifier.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encodeString(identifier, forKey: "identifier")
            coder.encode(content, forKey: "content")
            coder.encode(trigger, forKey: "trigger")
        }

        public required init?(coder: NSCoder) {
            guard let identifier = coder.decodeString(forKey: "identifier"),
                let content = coder.decodeObject(
                    of: [UNNotificationContent.self, UNMutableNotificationContent.self], forKey: "content")
                    as? UNNotificationContent
            else { return nil }
            storedIdentifier = identifier
            storedContent = content
            storedTrigger =
                coder.decodeOptional(of: UNNotificationTrigger.archivableClasses, forKey: "trigger")
                as? UNNotificationTrigger
            super.init()
        }
    }

    open class UNNotification: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        /// When it was delivered.
        open var date: Date { storedDate }
        open var request: UNNotificationRequest { storedRequest }

        private let storedDate: Date
        private let storedRequest: UNNotificationRequest

        /// Made by the system (Herald's wiring), never by an app.
        package init(date: Date, request: UNNotificationRequest) {
            storedDate = date
            storedRequest = request
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotification() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotification else { return false }
            return date == other.date && request == other.request
        }

        open override var hash: Int { request.hash }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encode(date.timeIntervalSinceReferenceDate, forKey: "date")
            coder.encode(request, forKey: "request")
        }

        public required init?(coder: NSCoder) {
            guard let request = coder.decodeOptional(of: UNNotificationRequest.self, forKey: "request") else {
                return nil
            }
            storedDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "date"))
            storedRequest = request
            super.init()
        }
    }

    open class UNNotificationResponse: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        open var notification: UNNotification { storedNotification }
        /// The action's identifier, or `UNNotificationDefaultActionIdentifier` /
        /// `UNNotificationDismissActionIdentifier`.
        open var actionIdentifier: String { storedActionIdentifier }

        private let storedNotification: UNNotification
        private let storedActionIdentifier: String

        /// Made by the system (Herald's wiring), never by an app.
        package init(notification: UNNotification, actionIdentifier: String) {
            storedNotification = notification
            storedActionIdentifier = actionIdentifier
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotificationResponse() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationResponse, type(of: other) == type(of: self) else { return false }
            return notification == other.notification && actionIdentifier == other.actionIdentifier
        }

        open override var hash: Int { actionIdentifier.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encode(notification, forKey: "notification")
            coder.encodeString(actionIdentifier, forKey: "actionIdentifier")
        }

        public required init?(coder: NSCoder) {
            guard let notification = coder.decodeOptional(of: UNNotification.self, forKey: "notification"),
                let actionIdentifier = coder.decodeString(forKey: "actionIdentifier")
            else { return nil }
            storedNotification = notification
            storedActionIdentifier = actionIdentifier
            super.init()
        }
    }

    open class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {
        /// What the person typed.
        open var userText: String { storedUserText }

        private let storedUserText: String

        /// Made by the system (Herald's wiring), never by an app.
        package init(notification: UNNotification, actionIdentifier: String, userText: String) {
            storedUserText = userText
            super.init(notification: notification, actionIdentifier: actionIdentifier)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNTextInputNotificationResponse else { return false }
            return super.isEqual(other) && userText == other.userText
        }

        open override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            coder.encodeString(userText, forKey: "userText")
        }

        public required init?(coder: NSCoder) {
            guard let userText = coder.decodeString(forKey: "userText") else { return nil }
            storedUserText = userText
            super.init(coder: coder)
        }
    }
#endif
