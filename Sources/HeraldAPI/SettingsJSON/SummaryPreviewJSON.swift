import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore

/// The JSON of a summary preview: when, how many, and the digest per app.
enum SummaryPreviewJSON {
    static func json(_ preview: SummaryPreview, rows: [StoredNotification]) -> JSONValue {
        var byID: [String: StoredNotification] = [:]
        for row in rows { byID[row.id] = row }
        let featured = Set(preview.digest.featured.map(\.id))
        return .object([
            "deliver_at": .optional(Timestamp.string(preview.at)),
            "count": .number(Double(preview.digest.count)),
            "apps": .array(
                preview.digest.apps.map { section in
                    .object([
                        "bundle_id": .string(section.bundleID),
                        "featured": .bool(section.isFeatured),
                        "notifications": .array(
                            section.notifications.map { facts in
                                let alert = byID[facts.id].flatMap { NotificationJSON($0).alert }
                                return .object([
                                    "id": .string(facts.id),
                                    "device_id": .optional(byID[facts.id]?.deviceID),
                                    "interruption_level": .string(facts.level.rawValue),
                                    "relevance_score": .number(facts.relevanceScore),
                                    "thread_id": .optional(facts.threadID),
                                    "received_at": .string(Timestamp.string(facts.receivedAt)),
                                    "featured": .bool(featured.contains(facts.id)),
                                    "title": .optional(alert?.title),
                                    "body": .optional(alert?.body),
                                ])
                            }),
                    ])
                }),
        ])
    }
}
