// UNError: Apple's error domain and codes, shaped like Foundation's bridged error structs (URLError,
// CocoaError): `UNError(.notificationsNotAllowed)`, `error.code`, `UNError.errorDomain`, and
// `catch let error as UNError where error.code == .notificationsNotAllowed`.
#if os(Linux)
    import Foundation

    public let UNErrorDomain = "UNErrorDomain"

    public struct UNError: CustomNSError, Hashable, Sendable {
        public enum Code: Int, Sendable, Hashable {
            case notificationsNotAllowed = 1
            case attachmentInvalidURL = 100
            case attachmentUnrecognizedType = 101
            case attachmentInvalidFileSize = 102
            case attachmentNotInDataStore = 103
            case attachmentMoveIntoDataStoreFailed = 104
            case attachmentCorrupt = 105
            case notificationInvalidNoDate = 1400
            case notificationInvalidNoContent = 1401
            case contentProvidingObjectNotAllowed = 1500
            case contentProvidingInvalid = 1501
            case badgeInputInvalid = 1600
        }

        public let code: Code
        /// Why, in English (`NSLocalizedDescriptionKey`); empty when the code says it all.
        public let localizedReason: String

        public init(_ code: Code, userInfo: [String: Any] = [:]) {
            self.code = code
            self.localizedReason = userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        }

        package init(_ code: Code, reason: String) {
            self.code = code
            self.localizedReason = reason
        }

        public static var errorDomain: String { UNErrorDomain }
        public var errorCode: Int { code.rawValue }
        public var errorUserInfo: [String: Any] {
            localizedReason.isEmpty ? [:] : [NSLocalizedDescriptionKey: localizedReason]
        }

        public static var notificationsNotAllowed: Code { .notificationsNotAllowed }
        public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
        public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
        public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
        public static var attachmentNotInDataStore: Code { .attachmentNotInDataStore }
        public static var attachmentMoveIntoDataStoreFailed: Code { .attachmentMoveIntoDataStoreFailed }
        public static var attachmentCorrupt: Code { .attachmentCorrupt }
        public static var notificationInvalidNoDate: Code { .notificationInvalidNoDate }
        public static var notificationInvalidNoContent: Code { .notificationInvalidNoContent }
        public static var contentProvidingObjectNotAllowed: Code { .contentProvidingObjectNotAllowed }
        public static var contentProvidingInvalid: Code { .contentProvidingInvalid }
        public static var badgeInputInvalid: Code { .badgeInputInvalid }
    }
#endif
