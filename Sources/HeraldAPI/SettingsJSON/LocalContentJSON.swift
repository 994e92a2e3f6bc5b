import Foundation
import HTTPTypes
import HeraldCore
import HeraldPolicy
import HeraldStore

/// The content of an app's local notification request (`UNNotificationContent`) as the app API
/// takes it, in Apple's names (snake_case), and the APNs-shaped payload Herald stores and decides it
/// as — so a local notification is listed, streamed, decided and explained exactly like a push:
///
/// ```json
/// {"title": "Breakfast", "subtitle": "", "body": "Eggs are ready", "badge": 1,
///  "sound": {"name": null, "critical": false, "volume": null},
///  "thread_identifier": "kitchen", "category_identifier": "FOOD", "target_content_identifier": null,
///  "launch_image_name": "", "interruption_level": "time-sensitive", "relevance_score": 0.5,
///  "summary_argument": "", "summary_argument_count": 1, "filter_criteria": null,
///  "user_info": {"order": 42}}
/// ```
/// → `{"aps": {"alert": {"title": "Breakfast", "body": "Eggs are ready"}, "badge": 1, "sound":
/// "default", "thread-id": "kitchen", "category": "FOOD", "interruption-level": "time-sensitive",
/// "relevance-score": 0.5}, "order": 42}`. Every field is optional; a sound `name` null is the
/// default sound; `critical` makes it the critical-alert dictionary. `communication` (what
/// `updating(from:)` set) becomes the payload's `communication` key, in the shape and under the rules
/// of a push's (`CommunicationContent`).
enum LocalContentJSON {
    static let fields: Set<String> = [
        "title", "subtitle", "body", "badge", "sound", "thread_identifier", "category_identifier",
        "target_content_identifier", "launch_image_name", "interruption_level", "relevance_score",
        "summary_argument", "summary_argument_count", "filter_criteria", "user_info", "communication", "attachments",
    ]

    /// The most attachments one content may show.
    static let maximumAttachments = 10

    /// An attachment the content names: one the app uploaded (`POST /v1/app/attachments`).
    /// `isAvatar`: the communication sender's (or group's) image the app gave as bytes or a file
    /// (`"avatar": true`, at most one per content, an image).
    struct AttachmentReference: Hashable, Sendable {
        var identifier: String
        var attachmentID: String
        var thumbnailHidden: Bool
        var isAvatar = false
    }

    static let levels: KeyValuePairs<String, String> = [
        "passive": "passive", "active": "active", "time-sensitive": "time-sensitive",
        "time_sensitive": "time-sensitive", "timeSensitive": "time-sensitive", "critical": "critical",
    ]

    /// The content as stored (the fields given, canonical) and its payload.
    struct Made {
        var content: JSONValue
        var payload: JSONValue
        /// The attachments named, in order (resolved against the store by the caller, which then
        /// writes them into `content` as `resolved(_:)`).
        var attachments: [AttachmentReference] = []
    }

    /// `made.content` with its attachments as the store has them (the shape `NotificationAttachment`
    /// reads back: id, identifier, type, size, thumbnail_hidden).
    static func resolved(_ made: Made, _ attachments: [NotificationAttachment]) -> JSONValue {
        guard var content = made.content.objectValue else { return made.content }
        content["attachments"] =
            attachments.isEmpty
            ? nil
            : .array(
                attachments.map {
                    var object: [String: JSONValue] = [
                        "id": .string($0.id), "identifier": .string($0.identifier), "type": .string($0.type),
                        "size": .number(Double($0.size)), "thumbnail_hidden": .bool($0.thumbnailHidden),
                    ]
                    if $0.isAvatar { object["avatar"] = .bool(true) }
                    return .object(object)
                })
        return .object(content)
    }

    static func make(_ fields: JSONFields) throws -> Made {
        try fields.allowOnly(Self.fields)
        var content: [String: JSONValue] = [:]
        var aps: [String: JSONValue] = [:]
        var alert: [String: JSONValue] = [:]
        for (key, apsKey) in [
            ("title", "title"), ("subtitle", "subtitle"), ("body", "body"), ("launch_image_name", "launch-image"),
        ] {
            if let text = try fields.string(key), !text.isEmpty {
                content[key] = .string(text)
                alert[apsKey] = .string(text)
            } else if fields.has(key), !fields.isNull(key) {
                content[key] = .string("")
            }
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if fields.has("badge"), !fields.isNull("badge") {
            guard case .number(let number) = fields.object["badge"], let badge = Int(exactly: number), badge >= 0 else {
                throw APIError.invalidField(
                    fields.name("badge"), "must be an integer of 0 or more (0 clears the badge).")
            }
            content["badge"] = .number(Double(badge))
            aps["badge"] = .number(Double(badge))
        }
        if let sound = try fields.fields("sound") {
            try sound.allowOnly(["name", "critical", "volume"])
            let name = try sound.nullableString("name") ?? nil
            if let name, name.isEmpty {
                throw APIError.invalidField(sound.name("name"), "must not be empty (null is the default sound).")
            }
            let critical = try sound.bool("critical") ?? false
            var volume: Double?
            if sound.has("volume"), !sound.isNull("volume") {
                guard case .number(let number) = sound.object["volume"], (0...1).contains(number) else {
                    throw APIError.invalidField(sound.name("volume"), "must be a number from 0 to 1.")
                }
                guard critical else {
                    throw APIError.invalidField(sound.name("volume"), "is only for critical sounds.")
                }
                volume = number
            }
            content["sound"] = .object([
                "name": .optional(name), "critical": .bool(critical), "volume": volume.map(JSONValue.number) ?? .null,
            ])
            if critical {
                var dictionary: [String: JSONValue] = ["critical": .number(1), "name": .string(name ?? "default")]
                if let volume { dictionary["volume"] = .number(volume) }
                aps["sound"] = .object(dictionary)
            } else {
                aps["sound"] = .string(name ?? "default")
            }
        } else if fields.has("sound"), !fields.isNull("sound") {
            throw APIError.invalidField(fields.name("sound"), "must be an object or null.")
        }
        for (key, apsKey) in [
            ("thread_identifier", "thread-id"), ("category_identifier", "category"),
            ("target_content_identifier", "target-content-id"), ("summary_argument", "summary-arg"),
            ("filter_criteria", "filter-criteria"),
        ] {
            guard let text = try fields.nullableString(key), let text else { continue }
            content[key] = .string(text)
            if !text.isEmpty { aps[apsKey] = .string(text) }
        }
        if let level = try fields.choice("interruption_level", levels) {
            content["interruption_level"] = .string(level)
            aps["interruption-level"] = .string(level)
        }
        if fields.has("relevance_score"), !fields.isNull("relevance_score") {
            guard case .number(let score) = fields.object["relevance_score"], (0...1).contains(score) else {
                throw APIError.invalidField(fields.name("relevance_score"), "must be a number from 0 to 1.")
            }
            content["relevance_score"] = .number(score)
            aps["relevance-score"] = .number(score)
        }
        if fields.has("summary_argument_count"), !fields.isNull("summary_argument_count") {
            guard case .number(let number) = fields.object["summary_argument_count"], let count = Int(exactly: number),
                count >= 1
            else {
                throw APIError.invalidField(fields.name("summary_argument_count"), "must be an integer of 1 or more.")
            }
            content["summary_argument_count"] = .number(Double(count))
            aps["summary-arg-count"] = .number(Double(count))
        }
        var payload: [String: JSONValue] = [:]
        if let userInfo = try fields.fields("user_info") {
            for key in ["aps", CommunicationContent.payloadKey] where userInfo.has(key) {
                throw APIError.invalidField(userInfo.name(key), "is Herald's: user_info may hold any other key.")
            }
            content["user_info"] = .object(userInfo.object)
            payload = userInfo.object
        } else if fields.has("user_info"), !fields.isNull("user_info") {
            throw APIError.invalidField(fields.name("user_info"), "must be an object.")
        }
        // `updating(from:)`'s fields: the payload's `communication` key, checked by the same rules as a
        // push's (a push keeps an invalid key and says why; an app is told at once).
        if fields.has("communication"), !fields.isNull("communication"), let value = fields.object["communication"] {
            switch CommunicationContent.parse(json: value) {
            case .valid, .none:
                content["communication"] = value
                payload[CommunicationContent.payloadKey] = value
            case .invalid(let message):
                throw APIError(.badRequest, code: "invalid_field", message: message)
            }
        }
        var references: [AttachmentReference] = []
        if let items = try fields.array("attachments") {
            guard items.count <= maximumAttachments else {
                throw APIError.invalidField("attachments", "may hold at most \(maximumAttachments) attachments.")
            }
            for (index, item) in items.enumerated() {
                let attachment = try JSONFields(item, path: fields.name("attachments[\(index)]"))
                try attachment.allowOnly([
                    "identifier", "attachment_id", "id", "type", "size", "thumbnail_hidden", "avatar",
                ])
                guard let id = try attachment.string("attachment_id") ?? attachment.string("id") else {
                    throw APIError.missingField(attachment.name("attachment_id"))
                }
                references.append(
                    AttachmentReference(
                        identifier: try attachment.string("identifier") ?? "", attachmentID: id,
                        thumbnailHidden: try attachment.bool("thumbnail_hidden") ?? false,
                        isAvatar: try attachment.bool("avatar") ?? false))
            }
            guard references.filter(\.isAvatar).count <= 1 else {
                throw APIError.invalidField("attachments", "may name at most one avatar.")
            }
            guard references.contains(where: \.isAvatar) == false || content["communication"] != nil else {
                throw APIError.invalidField(
                    "attachments",
                    "names an avatar, which only a communication notification shows (give `communication`).")
            }
        }
        guard
            alert["title"] != nil || alert["subtitle"] != nil || alert["body"] != nil || aps["sound"] != nil
                || aps["badge"] != nil
        else {
            // UNError.notificationInvalidNoContent (1401).
            throw APIError(
                .badRequest, code: "notification_invalid_no_content",
                message: "The content has nothing to show: give a title, subtitle or body, a sound or a badge.")
        }
        payload["aps"] = .object(aps)
        return Made(content: .object(content), payload: .object(payload), attachments: references)
    }
}
