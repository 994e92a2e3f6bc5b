import Foundation

/// A file shown with a notification (`UNNotificationAttachment`), as the notification row keeps it:
/// the attachment store's id of the file (`attachments` table, the file under the data directory's
/// `attachments/`), the app's identifier, the type (a UTI) and size, and the options that concern
/// how it is shown.
public struct NotificationAttachment: Codable, Hashable, Sendable {
    /// The attachment store's id (a UUID, lowercase).
    public var id: String
    /// The app's identifier of the attachment (`UNNotificationAttachment.identifier`).
    public var identifier: String
    /// The file's type: a UTI, as sniffed from its bytes (`public.png`, `public.mpeg-4`, …).
    public var type: String
    public var size: Int
    /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`.
    public var thumbnailHidden: Bool
    /// The communication sender's (or group's) image given as bytes or a file (`INImage(imageData:)`,
    /// `INImage(url:)` of a file): kept, served and freed as the attachments are, but not one of the
    /// content's attachments (clients show it as the avatar; the summary does not count it as media).
    public var isAvatar: Bool

    public init(
        id: String, identifier: String, type: String, size: Int, thumbnailHidden: Bool = false, isAvatar: Bool = false
    ) {
        self.id = id
        self.identifier = identifier
        self.type = type
        self.size = size
        self.thumbnailHidden = thumbnailHidden
        self.isAvatar = isAvatar
    }

    enum CodingKeys: String, CodingKey {
        case id, identifier, type, size
        case thumbnailHidden = "thumbnail_hidden"
        case isAvatar = "avatar"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        identifier = try container.decode(String.self, forKey: .identifier)
        type = try container.decode(String.self, forKey: .type)
        size = try container.decode(Int.self, forKey: .size)
        thumbnailHidden = try container.decodeIfPresent(Bool.self, forKey: .thumbnailHidden) ?? false
        isAvatar = try container.decodeIfPresent(Bool.self, forKey: .isAvatar) ?? false
    }

    /// The flag is written only when set: rows without an avatar read as they did before it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(type, forKey: .type)
        try container.encode(size, forKey: .size)
        try container.encode(thumbnailHidden, forKey: .thumbnailHidden)
        if isAvatar { try container.encode(true, forKey: .isAvatar) }
    }

    /// The column's text: nil for none.
    public static func json(_ attachments: [NotificationAttachment]) -> String? {
        guard !attachments.isEmpty, let data = try? JSONEncoder().encode(attachments) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The attachments of a local request's content as the app API stores it (its `attachments`).
    public static func inContent(_ content: String) -> [NotificationAttachment] {
        struct Content: Decodable { var attachments: [NotificationAttachment]? }
        return (try? JSONDecoder().decode(Content.self, from: Data(content.utf8)))?.attachments ?? []
    }

    public static func decoded(from text: String) -> [NotificationAttachment] {
        (try? JSONDecoder().decode([NotificationAttachment].self, from: Data(text.utf8))) ?? []
    }
}

/// An attachment's record in the store.
public struct AttachmentRecord: Hashable, Sendable {
    public var id: String
    public var bundleID: String
    /// The device whose app (or whose app's extension) gave it: only that device's notifications show it.
    public var deviceID: String
    public var identifier: String
    /// The sniffed type (a UTI).
    public var type: String
    public var size: Int
    public var createdAt: Date
    /// When a notification or request first showed it; nil until then.
    public var linkedAt: Date?

    public init(
        id: String, bundleID: String, deviceID: String, identifier: String, type: String, size: Int, createdAt: Date,
        linkedAt: Date? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.deviceID = deviceID
        self.identifier = identifier
        self.type = type
        self.size = size
        self.createdAt = createdAt
        self.linkedAt = linkedAt
    }
}
