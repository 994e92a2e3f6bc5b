import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore

/// A notification as the JSON API shows it: the stored row, with the payload embedded as JSON and
/// the fields a client displays extracted from it (`alert` as sent, loc keys unresolved), and
/// `display`: what the device shows (the decision's `display`, else the `alert`).
struct NotificationJSON: Encodable, Hashable {
    var id: String
    var cursor: String
    var deviceID: String
    var topic: String
    var bundleID: String
    var pushType: String
    var priority: Int
    var collapseID: String?
    var expiration: Int64?
    var receivedAt: String
    var readAt: String?
    var dismissedAt: String?
    /// The payload: `payloadText` parsed (null when it does not parse).
    var payload: JSONValue { payloadText.flatMap { try? JSONParser.parse(Array($0.utf8)) } ?? .null }
    var alert: AlertJSON?
    /// What the device shows: the stored decision's `display` when it has one (loc keys resolved,
    /// communication sender, hidden preview), else `alert`.
    var display: AlertJSON?
    var badge: Int?
    var sound: String?
    var threadID: String?
    var category: String?
    var interruptionLevel: String?
    var relevanceScore: Double?
    /// How the device's policy decided to present it (`alerted`, `heldForFocus`, …), nil before any.
    var disposition: String?
    /// The whole decision (banner, sound, preview, reasons …) in its one public shape.
    var decision: JSONValue? { decisionText.flatMap { try? JSONParser.parse(Array($0.utf8)) } }
    /// The decision's JSON text, as the store keeps it (the streams write it as it is).
    private var decisionText: String?
    /// The payload's JSON text when it parsed (it passed validation when it was pushed).
    private var payloadText: String?
    /// The files it shows, each with the URL that serves it to the device's owner.
    var attachments: [AttachmentJSON] = []
    /// The communication sender's (or group's) image when the app gave it as bytes or a file, served
    /// as the attachments are; nil otherwise (a named image or URL stays in the payload's
    /// `communication`). Written only when there is one.
    var avatar: AttachmentJSON?

    struct AttachmentJSON: Encodable, Hashable {
        var id: String
        var identifier: String
        var type: String
        var size: Int
        var thumbnailHidden: Bool
        var url: String

        enum CodingKeys: String, CodingKey {
            case id, identifier, type, size, url
            case thumbnailHidden = "thumbnail_hidden"
        }

        func write(into writer: inout JSONWriter) {
            writer.beginObject()
            writer.literalKey("id")
            writer.string(id)
            writer.literalKey("identifier")
            writer.string(identifier)
            writer.literalKey("type")
            writer.string(type)
            writer.literalKey("size")
            writer.integer(size)
            writer.literalKey("thumbnail_hidden")
            writer.bool(thumbnailHidden)
            writer.literalKey("url")
            writer.string(url)
            writer.endObject()
        }
    }

    struct AlertJSON: Encodable, Hashable {
        var title: String?
        var subtitle: String?
        var body: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            try container.encode(subtitle, forKey: .subtitle)
            try container.encode(body, forKey: .body)
        }

        enum CodingKeys: String, CodingKey { case title, subtitle, body }
    }

    init(_ row: StoredNotification) {
        id = row.id
        cursor = String(row.seq)
        deviceID = row.deviceID
        topic = row.topic
        bundleID = row.bundleID
        pushType = row.pushType.rawValue
        priority = row.priority
        collapseID = row.collapseID
        expiration = row.expiration
        receivedAt = Timestamp.string(row.receivedAt)
        readAt = Timestamp.string(row.readAt)
        dismissedAt = Timestamp.string(row.dismissedAt)
        disposition = row.disposition?.rawValue
        decisionText = row.decisionJSON
        for attachment in row.attachments {
            let json = AttachmentJSON(
                id: attachment.id, identifier: attachment.identifier, type: attachment.type, size: attachment.size,
                thumbnailHidden: attachment.thumbnailHidden,
                url: "/v1/devices/\(row.deviceID)/notifications/\(row.id)/attachments/\(attachment.id)")
            if attachment.isAvatar { avatar = json } else { attachments.append(json) }
        }
        // The payload passed validation when it was pushed; if it no longer parses, show it bare.
        // A row on its way from a push carries it parsed (no second parse on the stream).
        let parsed: NotificationPayload?
        if let carried = row.arrival.payload {
            parsed = carried
            payloadText = row.payload
        } else {
            let value = try? JSONParser.parse(Array(row.payload.utf8))
            parsed = value.flatMap { try? NotificationPayload(jsonValue: $0) }
            payloadText = value == nil ? nil : row.payload
        }
        if let shown = row.decisionDisplay {
            display = AlertJSON(title: shown.title, subtitle: shown.subtitle, body: shown.body)
        }
        guard let parsed else { return }
        let aps = parsed.aps
        alert = aps.alert.map { AlertJSON(title: $0.title, subtitle: $0.subtitle, body: $0.body) }
        if display == nil { display = alert }
        badge = aps.badge
        sound = aps.sound?.name
        threadID = aps.threadID
        category = aps.category
        interruptionLevel = aps.interruptionLevelRaw
        relevanceScore = aps.relevanceScore
    }

    enum CodingKeys: String, CodingKey {
        case id, cursor, topic, priority, expiration, payload, alert, display, badge, sound, category
        case deviceID = "device_id"
        case bundleID = "bundle_id"
        case pushType = "push_type"
        case collapseID = "collapse_id"
        case receivedAt = "received_at"
        case readAt = "read_at"
        case dismissedAt = "dismissed_at"
        case threadID = "thread_id"
        case interruptionLevel = "interruption_level"
        case relevanceScore = "relevance_score"
        case disposition, decision, attachments, avatar
    }

    /// Every key is written, absent values as `null`, so clients see one shape.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(topic, forKey: .topic)
        try container.encode(bundleID, forKey: .bundleID)
        try container.encode(pushType, forKey: .pushType)
        try container.encode(priority, forKey: .priority)
        try container.encode(collapseID, forKey: .collapseID)
        try container.encode(expiration, forKey: .expiration)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(readAt, forKey: .readAt)
        try container.encode(dismissedAt, forKey: .dismissedAt)
        try container.encode(payload, forKey: .payload)
        try container.encode(alert, forKey: .alert)
        try container.encode(display, forKey: .display)
        try container.encode(badge, forKey: .badge)
        try container.encode(sound, forKey: .sound)
        try container.encode(threadID, forKey: .threadID)
        try container.encode(category, forKey: .category)
        try container.encode(interruptionLevel, forKey: .interruptionLevel)
        try container.encode(relevanceScore, forKey: .relevanceScore)
        try container.encode(disposition, forKey: .disposition)
        try container.encode(decision, forKey: .decision)
        try container.encode(attachments, forKey: .attachments)
        try container.encodeIfPresent(avatar, forKey: .avatar)
    }

    /// The same JSON as `encode(to:)`, written without `JSONEncoder`: the live streams write one
    /// per event, and the encoder was most of a stream's cost.
    func write(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.literalKey("id")
        writer.string(id)
        writer.literalKey("cursor")
        writer.string(cursor)
        writer.literalKey("device_id")
        writer.string(deviceID)
        writer.literalKey("topic")
        writer.string(topic)
        writer.literalKey("bundle_id")
        writer.string(bundleID)
        writer.literalKey("push_type")
        writer.string(pushType)
        writer.literalKey("priority")
        writer.integer(priority)
        writer.literalKey("collapse_id")
        writer.string(collapseID)
        writer.literalKey("expiration")
        writer.integer(expiration)
        writer.literalKey("received_at")
        writer.string(receivedAt)
        writer.literalKey("read_at")
        writer.string(readAt)
        writer.literalKey("dismissed_at")
        writer.string(dismissedAt)
        writer.literalKey("payload")
        if let payloadText { writer.raw(payloadText) } else { writer.null() }
        writer.literalKey("alert")
        Self.write(alert, into: &writer)
        writer.literalKey("display")
        Self.write(display, into: &writer)
        writer.literalKey("badge")
        writer.integer(badge)
        writer.literalKey("sound")
        writer.string(sound)
        writer.literalKey("thread_id")
        writer.string(threadID)
        writer.literalKey("category")
        writer.string(category)
        writer.literalKey("interruption_level")
        writer.string(interruptionLevel)
        writer.literalKey("relevance_score")
        writer.number(relevanceScore)
        writer.literalKey("disposition")
        writer.string(disposition)
        writer.literalKey("decision")
        // The store only keeps valid JSON there (a CHECK of the schema).
        if let decisionText { writer.raw(decisionText) } else { writer.null() }
        writer.literalKey("attachments")
        writer.beginArray()
        for attachment in attachments { attachment.write(into: &writer) }
        writer.endArray()
        if let avatar {
            writer.literalKey("avatar")
            avatar.write(into: &writer)
        }
        writer.endObject()
    }

    private static func write(_ alert: AlertJSON?, into writer: inout JSONWriter) {
        guard let alert else { return writer.null() }
        writer.beginObject()
        writer.literalKey("title")
        writer.string(alert.title)
        writer.literalKey("subtitle")
        writer.string(alert.subtitle)
        writer.literalKey("body")
        writer.string(alert.body)
        writer.endObject()
    }

    /// The JSON text of `write(into:)`.
    var jsonBytes: [UInt8] {
        // Room for everything at once (the payload and the decision are most of it): no regrowth.
        var writer = JSONWriter(capacity: 768 + (payloadText?.utf8.count ?? 0) * 2 + (decisionText?.utf8.count ?? 0))
        write(into: &writer)
        return writer.bytes
    }
}

/// A page of a device's list.
struct NotificationPageJSON: Encodable, Hashable {
    var notifications: [NotificationJSON]
    var cursor: String
}

/// A stream event as a WebSocket text message.
struct StreamMessageJSON: Encodable, Hashable {
    var type: String
    var cursor: String
    var notification: NotificationJSON
}
