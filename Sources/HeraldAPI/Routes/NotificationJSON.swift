import Foundation
import HeraldCore

/// A notification as the JSON API shows it: the stored row, with the payload embedded as JSON and
/// the fields a client displays extracted from it (`alert` as sent, loc keys unresolved).
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
    var payload: JSONValue
    var alert: AlertJSON?
    var badge: Int?
    var sound: String?
    var threadID: String?
    var category: String?
    var interruptionLevel: String?
    var relevanceScore: Double?

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
        let data = Data(row.payload.utf8)
        payload = (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .null
        // The payload passed validation when it was pushed; if it no longer parses, show it bare.
        guard let parsed = try? NotificationPayload(json: data) else { return }
        let aps = parsed.aps
        alert = aps.alert.map { AlertJSON(title: $0.title, subtitle: $0.subtitle, body: $0.body) }
        badge = aps.badge
        sound = aps.sound?.name
        threadID = aps.threadID
        category = aps.category
        interruptionLevel = aps.interruptionLevelRaw
        relevanceScore = aps.relevanceScore
    }

    enum CodingKeys: String, CodingKey {
        case id, cursor, topic, priority, expiration, payload, alert, badge, sound, category
        case deviceID = "device_id", bundleID = "bundle_id", pushType = "push_type", collapseID = "collapse_id"
        case receivedAt = "received_at", readAt = "read_at", dismissedAt = "dismissed_at"
        case threadID = "thread_id", interruptionLevel = "interruption_level", relevanceScore = "relevance_score"
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
        try container.encode(badge, forKey: .badge)
        try container.encode(sound, forKey: .sound)
        try container.encode(threadID, forKey: .threadID)
        try container.encode(category, forKey: .category)
        try container.encode(interruptionLevel, forKey: .interruptionLevel)
        try container.encode(relevanceScore, forKey: .relevanceScore)
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
