// Categories, their actions (plain and text-input) and the actions' icons (iOS 15).
#if os(Linux)
    import Foundation

    /// An action's icon: a system symbol or an image of the app's asset catalog, used as a template.
    /// Apple gives it no public getters; the package-level ones let Herald's wiring send it.
    open class UNNotificationActionIcon: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        package enum Source: Hashable, Sendable {
            case systemImage(String)
            case templateImage(String)
        }

        package let source: Source

        package init(source: Source) {
            self.source = source
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotificationActionIcon() is unavailable") }

        public convenience init(templateImageName: String) {
            self.init(source: .templateImage(templateImageName))
        }

        public convenience init(systemImageName: String) {
            self.init(source: .systemImage(systemImageName))
        }

        open override func isEqual(_ object: Any?) -> Bool {
            (object as? UNNotificationActionIcon)?.source == source
        }

        open override var hash: Int { source.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            switch source {
            case .systemImage(let name): coder.encodeString(name, forKey: "systemImageName")
            case .templateImage(let name): coder.encodeString(name, forKey: "templateImageName")
            }
        }

        public required init?(coder: NSCoder) {
            if let name = coder.decodeString(forKey: "systemImageName") {
                source = .systemImage(name)
            } else if let name = coder.decodeString(forKey: "templateImageName") {
                source = .templateImage(name)
            } else {
                return nil
            }
            super.init()
        }
    }

    open class UNNotificationAction: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        open var identifier: String { storedIdentifier }
        open var title: String { storedTitle }
        open var options: UNNotificationActionOptions { storedOptions }
        open var icon: UNNotificationActionIcon? { storedIcon }

        private let storedIdentifier: String
        private let storedTitle: String
        private let storedOptions: UNNotificationActionOptions
        private let storedIcon: UNNotificationActionIcon?

        public init(
            identifier: String, title: String, options: UNNotificationActionOptions = [],
            icon: UNNotificationActionIcon?
        ) {
            storedIdentifier = identifier
            storedTitle = title
            storedOptions = options
            storedIcon = icon
            super.init()
        }

        public convenience init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
            self.init(identifier: identifier, title: title, options: options, icon: nil)
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotificationAction() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationAction, type(of: other) == type(of: self) else { return false }
            return identifier == other.identifier && title == other.title && options == other.options
                && icon == other.icon
        }

        open override var hash: Int { identifier.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encodeString(identifier, forKey: "identifier")
            coder.encodeString(title, forKey: "title")
            coder.encode(Int(options.rawValue), forKey: "options")
            coder.encode(icon, forKey: "icon")
        }

        public required init?(coder: NSCoder) {
            guard let identifier = coder.decodeString(forKey: "identifier"),
                let title = coder.decodeString(forKey: "title")
            else { return nil }
            storedIdentifier = identifier
            storedTitle = title
            storedOptions = UNNotificationActionOptions(
                rawValue: UInt(clamping: coder.decodeInteger(forKey: "options")))
            storedIcon = coder.decodeOptional(of: UNNotificationActionIcon.self, forKey: "icon")
            super.init()
        }
    }

    open class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
        open var textInputButtonTitle: String { storedButtonTitle }
        open var textInputPlaceholder: String { storedPlaceholder }

        private let storedButtonTitle: String
        private let storedPlaceholder: String

        public init(
            identifier: String, title: String, options: UNNotificationActionOptions = [],
            icon: UNNotificationActionIcon?,
            textInputButtonTitle: String, textInputPlaceholder: String
        ) {
            storedButtonTitle = textInputButtonTitle
            storedPlaceholder = textInputPlaceholder
            super.init(identifier: identifier, title: title, options: options, icon: icon)
        }

        public convenience init(
            identifier: String, title: String, options: UNNotificationActionOptions = [], textInputButtonTitle: String,
            textInputPlaceholder: String
        ) {
            self.init(
                identifier: identifier, title: title, options: options, icon: nil,
                textInputButtonTitle: textInputButtonTitle, textInputPlaceholder: textInputPlaceholder)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNTextInputNotificationAction else { return false }
            return super.isEqual(other) && textInputButtonTitle == other.textInputButtonTitle
                && textInputPlaceholder == other.textInputPlaceholder
        }

        open override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            coder.encodeString(textInputButtonTitle, forKey: "textInputButtonTitle")
            coder.encodeString(textInputPlaceholder, forKey: "textInputPlaceholder")
        }

        public required init?(coder: NSCoder) {
            guard let buttonTitle = coder.decodeString(forKey: "textInputButtonTitle"),
                let placeholder = coder.decodeString(forKey: "textInputPlaceholder")
            else { return nil }
            storedButtonTitle = buttonTitle
            storedPlaceholder = placeholder
            super.init(coder: coder)
        }
    }

    open class UNNotificationCategory: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        open var identifier: String { storedIdentifier }
        /// The actions in the order shown (only the first two when space is limited).
        open var actions: [UNNotificationAction] { storedActions }
        open var intentIdentifiers: [String] { storedIntentIdentifiers }
        open var options: UNNotificationCategoryOptions { storedOptions }
        /// The body shown when previews are hidden; "%u" is the number of notifications of the thread.
        open var hiddenPreviewsBodyPlaceholder: String { storedPlaceholder }
        /// The summary line of a group: "%u" the count and "%@" the summary argument.
        open var categorySummaryFormat: String { storedSummaryFormat }

        private let storedIdentifier: String
        private let storedActions: [UNNotificationAction]
        private let storedIntentIdentifiers: [String]
        private let storedOptions: UNNotificationCategoryOptions
        private let storedPlaceholder: String
        private let storedSummaryFormat: String

        public init(
            identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
            hiddenPreviewsBodyPlaceholder: String?, categorySummaryFormat: String?,
            options: UNNotificationCategoryOptions = []
        ) {
            storedIdentifier = identifier
            storedActions = actions
            storedIntentIdentifiers = intentIdentifiers
            storedOptions = options
            storedPlaceholder = hiddenPreviewsBodyPlaceholder ?? ""
            storedSummaryFormat = categorySummaryFormat ?? ""
            super.init()
        }

        public convenience init(
            identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
            options: UNNotificationCategoryOptions = []
        ) {
            self.init(
                identifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers,
                hiddenPreviewsBodyPlaceholder: nil, categorySummaryFormat: nil, options: options)
        }

        public convenience init(
            identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
            hiddenPreviewsBodyPlaceholder: String, options: UNNotificationCategoryOptions = []
        ) {
            self.init(
                identifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers,
                hiddenPreviewsBodyPlaceholder: .some(hiddenPreviewsBodyPlaceholder), categorySummaryFormat: nil,
                options: options)
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotificationCategory() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationCategory else { return false }
            return identifier == other.identifier && actions == other.actions
                && intentIdentifiers == other.intentIdentifiers && options == other.options
                && hiddenPreviewsBodyPlaceholder == other.hiddenPreviewsBodyPlaceholder
                && categorySummaryFormat == other.categorySummaryFormat
        }

        /// By identifier, so that a `Set<UNNotificationCategory>` holds distinct categories.
        open override var hash: Int { identifier.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encodeString(identifier, forKey: "identifier")
            coder.encode(NSArray(array: actions), forKey: "actions")
            coder.encode(NSArray(array: intentIdentifiers.map { NSString(string: $0) }), forKey: "intentIdentifiers")
            coder.encode(Int(options.rawValue), forKey: "options")
            coder.encodeString(hiddenPreviewsBodyPlaceholder, forKey: "hiddenPreviewsBodyPlaceholder")
            coder.encodeString(categorySummaryFormat, forKey: "categorySummaryFormat")
        }

        public required init?(coder: NSCoder) {
            guard let identifier = coder.decodeString(forKey: "identifier"),
                let actions = coder.decodeArray(
                    of: UNNotificationAction.self, subclasses: [UNTextInputNotificationAction.self], forKey: "actions"),
                let intents = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "intentIdentifiers")
                    as? NSArray
            else { return nil }
            storedIdentifier = identifier
            storedActions = actions
            storedIntentIdentifiers = intents.map { String(describing: $0) }
            storedOptions = UNNotificationCategoryOptions(
                rawValue: UInt(clamping: coder.decodeInteger(forKey: "options")))
            storedPlaceholder = coder.decodeString(forKey: "hiddenPreviewsBodyPlaceholder") ?? ""
            storedSummaryFormat = coder.decodeString(forKey: "categorySummaryFormat") ?? ""
            super.init()
        }
    }
#endif
