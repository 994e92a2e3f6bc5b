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

    public init(id: String, identifier: String, type: String, size: Int, thumbnailHidden: Bool = false) {
        self.id = id
        self.identifier = identifier
        self.type = type
        self.size = size
        self.thumbnailHidden = thumbnailHidden
    }

    enum CodingKeys: String, CodingKey {
        case id, identifier, type, size
        case thumbnailHidden = "thumbnail_hidden"
    }

    /// The column's text: nil for none.
    static func json(_ attachments: [NotificationAttachment]) -> String? {
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
