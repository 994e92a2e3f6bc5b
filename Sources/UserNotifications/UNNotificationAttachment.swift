// UNNotificationAttachment: a local media file shown with the notification, validated when it is
// made as Apple validates it (the reference's section 8): a file URL of an existing regular file
// (else attachmentInvalidURL), a supported type from the type hint or the file's extension (else
// attachmentUnrecognizedType), within the type's size limit (else attachmentInvalidFileSize), and
// bytes that start as that format does (else attachmentCorrupt). Moving the file into the attachment
// store happens when a request is added (the wiring slice), as on Apple's platforms.
#if os(Linux)
    import Foundation
    import HeraldAttachments

    /// The value is a UTI string that names the file's type instead of its extension.
    public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
    /// The value is a Bool: hide the attachment's thumbnail.
    public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
    /// The value is a normalized rectangle dictionary: the part of the image shown as the thumbnail.
    public let UNNotificationAttachmentOptionsThumbnailClippingRectKey =
        "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
    /// The value is a time in seconds (or a CMTime dictionary): the movie frame used as the thumbnail.
    public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"

    /// The media types Apple accepts (HeraldAttachments, shared with the server's sniffing).
    package typealias UNAttachmentMediaType = AttachmentMediaType

    open class UNNotificationAttachment: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        open var identifier: String { storedIdentifier }
        open var url: URL { storedURL }
        /// The file's UTI (for example "public.png").
        open var type: String { storedType }

        private let storedIdentifier: String
        private let storedURL: URL
        private let storedType: String
        /// The options given (thumbnail hidden, clipping rectangle, time), as property-list values.
        package let options: [AnyHashable: Any]

        package init(identifier: String, url: URL, type: String, options: [AnyHashable: Any]) {
            storedIdentifier = identifier
            storedURL = url
            storedType = type
            self.options = options
            super.init()
        }

        @available(*, unavailable, message: "Use init(identifier:url:options:)")
        public override init() { fatalError("UNNotificationAttachment() is unavailable") }

        /// An empty identifier gets a unique one, as Apple's does.
        public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
            let options = options ?? [:]
            guard URL.isFileURL else {
                throw UNError(.attachmentInvalidURL, reason: "Attachment URL is not a file URL: \(URL.absoluteString)")
            }
            let path = URL.path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw UNError(.attachmentInvalidURL, reason: "Attachment file does not exist: \(path)")
            }
            let media: UNAttachmentMediaType
            if let hint = options[UNNotificationAttachmentOptionsTypeHintKey] {
                guard let uti = hint as? String, let hinted = UNAttachmentMediaType.from(uti: uti) else {
                    throw UNError(.attachmentUnrecognizedType, reason: "Unsupported attachment type hint: \(hint)")
                }
                media = hinted
            } else {
                guard let byExtension = UNAttachmentMediaType.from(pathExtension: URL.pathExtension) else {
                    throw UNError(
                        .attachmentUnrecognizedType, reason: "Unsupported attachment type: .\(URL.pathExtension)")
                }
                media = byExtension
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= media.maximumSize else {
                throw UNError(
                    .attachmentInvalidFileSize,
                    reason: "Attachment is \(size) bytes; the limit for \(media.uti) is \(media.maximumSize)")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw UNError(.attachmentInvalidURL, reason: "Attachment file cannot be read: \(path)")
            }
            defer { try? handle.close() }
            let head = [UInt8]((try? handle.read(upToCount: 256)) ?? Data())
            guard media.matchesSignature(head) else {
                throw UNError(.attachmentCorrupt, reason: "Attachment is not a valid \(media.uti) file")
            }
            self.init(
                identifier: identifier.isEmpty ? UUID().uuidString : identifier, url: URL, type: media.uti,
                options: options)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationAttachment else { return false }
            return identifier == other.identifier && url == other.url && type == other.type
                && propertyListsEqual(options, other.options)
        }

        open override var hash: Int {
            var hasher = Hasher()
            hasher.combine(identifier)
            hasher.combine(url)
            return hasher.finalize()
        }

        /// Immutable: its own copy.
        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encodeString(identifier, forKey: "identifier")
            coder.encodeString(url.absoluteString, forKey: "url")
            coder.encodeString(type, forKey: "type")
            coder.encodePropertyList(options, forKey: "options")
        }

        public required init?(coder: NSCoder) {
            guard let identifier = coder.decodeString(forKey: "identifier"),
                let url = coder.decodeString(forKey: "url").flatMap(URL.init(string:)),
                let type = coder.decodeString(forKey: "type")
            else { return nil }
            storedIdentifier = identifier
            storedURL = url
            storedType = type
            options = coder.decodePlist(forKey: "options") ?? [:]
            super.init()
        }
    }
#endif
