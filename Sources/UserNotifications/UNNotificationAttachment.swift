// UNNotificationAttachment: a local media file shown with the notification, validated when it is
// made as Apple validates it (the reference's section 8): a file URL of an existing regular file
// (else attachmentInvalidURL), a supported type from the type hint or the file's extension (else
// attachmentUnrecognizedType), within the type's size limit (else attachmentInvalidFileSize), and
// bytes that start as that format does (else attachmentCorrupt). Moving the file into the attachment
// store happens when a request is added (the wiring slice), as on Apple's platforms.
#if os(Linux)
    import Foundation

    /// The value is a UTI string that names the file's type instead of its extension.
    public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
    /// The value is a Bool: hide the attachment's thumbnail.
    public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
    /// The value is a normalized rectangle dictionary: the part of the image shown as the thumbnail.
    public let UNNotificationAttachmentOptionsThumbnailClippingRectKey =
        "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
    /// The value is a time in seconds (or a CMTime dictionary): the movie frame used as the thumbnail.
    public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"

    /// The media types Apple accepts, with their UTIs, extensions, size limits and leading bytes.
    package enum UNAttachmentMediaType: CaseIterable, Sendable {
        case aiff, wav, mp3, m4a
        case jpeg, gif, png
        case mpeg, mpeg2, mpeg4, avi

        package var uti: String {
            switch self {
            case .aiff: "public.aiff-audio"
            case .wav: "com.microsoft.waveform-audio"
            case .mp3: "public.mp3"
            case .m4a: "public.mpeg-4-audio"
            case .jpeg: "public.jpeg"
            case .gif: "com.compuserve.gif"
            case .png: "public.png"
            case .mpeg: "public.mpeg"
            case .mpeg2: "public.mpeg-2-video"
            case .mpeg4: "public.mpeg-4"
            case .avi: "public.avi"
            }
        }

        var extensions: [String] {
            switch self {
            case .aiff: ["aiff", "aif", "aifc"]
            case .wav: ["wav", "wave"]
            case .mp3: ["mp3"]
            case .m4a: ["m4a"]
            case .jpeg: ["jpg", "jpeg", "jpe"]
            case .gif: ["gif"]
            case .png: ["png"]
            case .mpeg: ["mpg", "mpeg"]
            case .mpeg2: ["m2v", "mp2", "ts", "m2ts"]
            case .mpeg4: ["mp4", "m4v"]
            case .avi: ["avi"]
            }
        }

        /// Apple's limits: audio 5 MB, images 10 MB, movies 50 MB.
        package var maximumSize: Int {
            switch self {
            case .aiff, .wav, .mp3, .m4a: 5_000_000
            case .jpeg, .gif, .png: 10_000_000
            case .mpeg, .mpeg2, .mpeg4, .avi: 50_000_000
            }
        }

        static func from(uti: String) -> UNAttachmentMediaType? {
            allCases.first { $0.uti == uti }
        }

        static func from(pathExtension: String) -> UNAttachmentMediaType? {
            let lowered = pathExtension.lowercased()
            return allCases.first { $0.extensions.contains(lowered) }
        }

        /// Whether the file's first bytes are this format's signature.
        func matchesSignature(_ head: [UInt8]) -> Bool {
            func at(_ offset: Int, _ ascii: String) -> Bool {
                let bytes = Array(ascii.utf8)
                return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
            }
            switch self {
            case .aiff: return at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC"))
            case .wav: return at(0, "RIFF") && at(8, "WAVE")
            case .avi: return at(0, "RIFF") && at(8, "AVI ")
            case .mp3:
                // An ID3 tag, or an MPEG audio frame sync (11 set bits).
                return at(0, "ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0)
            case .m4a, .mpeg4: return at(4, "ftyp") || at(4, "moov") || at(4, "mdat") || at(4, "wide")
            case .jpeg: return head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
            case .gif: return at(0, "GIF87a") || at(0, "GIF89a")
            case .png: return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            case .mpeg, .mpeg2:
                // A program stream pack header, a video sequence header, or a transport stream sync byte.
                return head.starts(with: [0x00, 0x00, 0x01, 0xBA]) || head.starts(with: [0x00, 0x00, 0x01, 0xB3])
                    || (head.first == 0x47 && (head.count < 189 || head[188] == 0x47))
            }
        }
    }

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
