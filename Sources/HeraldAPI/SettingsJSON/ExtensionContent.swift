import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore

/// What a notification service extension's answer makes of a push: its content (the app API's
/// `LocalContentJSON` shape, checked by the same rules) merged into the payload the provider sent.
///
/// Only the fields the extension changed are written — each compared with the content it was given
/// (`before`, as its host built it from the payload) — so what the content model does not carry
/// stays as sent: `mutable-content`, `content-available`, a loc key whose text the extension left
/// alone, keys of `aps` Herald does not know. A changed title, subtitle or body replaces the alert's
/// text and drops its loc key; a changed `user_info` replaces the payload's custom keys; a changed
/// communication sets (or removes) the `communication` key.
public enum ExtensionContent {
    /// The merged payload, and whether anything changed.
    public struct Merged: Sendable {
        public var payload: JSONValue
        public var changed: Bool
        /// The attachments the content names (uploaded by the extension as the app on the device).
        var attachments: [LocalContentJSON.AttachmentReference] = []

        /// Whether the content names attachments.
        public var hasAttachments: Bool { !attachments.isEmpty }

        /// The attachments the content names, as the store has them; `APIError`
        /// `attachment_not_in_data_store` when one is not the app's on the device.
        public func resolveAttachments(bundleID: String, deviceID: String, store: any HeraldStore) async throws
            -> [NotificationAttachment]
        {
            try await AttachmentRoutes.resolve(attachments, bundleID: bundleID, deviceID: deviceID, store: store)
        }
    }

    /// Why an answer could not be taken (the message of the field it broke, or of the shape).
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    private static let alertFields: [(field: String, key: String, locKeys: [String])] = [
        ("title", "title", ["title-loc-key", "title-loc-args"]),
        ("subtitle", "subtitle", ["subtitle-loc-key", "subtitle-loc-args"]),
        ("body", "body", ["loc-key", "loc-args"]),
        ("launch_image_name", "launch-image", []),
    ]
    private static let apsFields: [(field: String, key: String)] = [
        ("badge", "badge"), ("sound", "sound"), ("thread_identifier", "thread-id"),
        ("category_identifier", "category"), ("target_content_identifier", "target-content-id"),
        ("interruption_level", "interruption-level"), ("relevance_score", "relevance-score"),
        ("summary_argument", "summary-arg"), ("summary_argument_count", "summary-arg-count"),
        ("filter_criteria", "filter-criteria"),
    ]

    public static func merge(payload: JSONValue, before: JSONValue, after: JSONValue) throws(Invalid) -> Merged {
        guard var object = payload.objectValue, let old = before.objectValue, let new = after.objectValue else {
            throw Invalid(description: "The extension's content is not a JSON object.")
        }
        let made: LocalContentJSON.Made
        do {
            made = try LocalContentJSON.make(try JSONFields(after))
        } catch let error as APIError {
            throw Invalid(description: error.message)
        } catch {
            throw Invalid(description: "\(error)")
        }
        let madePayload = made.payload.objectValue ?? [:]
        let madeAPS = madePayload["aps"]?.objectValue ?? [:]
        let madeAlert = madeAPS["alert"]?.objectValue ?? [:]
        func changed(_ field: String) -> Bool { (old[field] ?? .null) != (new[field] ?? .null) }

        var aps = object["aps"]?.objectValue ?? [:]
        var alert: [String: JSONValue] =
            switch aps["alert"] {
            case .object(let alert)?: alert
            case .string(let body)?: ["body": .string(body)]
            default: [:]
            }
        var anything = false
        for (field, key, locKeys) in alertFields where changed(field) {
            anything = true
            alert[key] = madeAlert[key]
            for locKey in locKeys { alert[locKey] = nil }
        }
        aps["alert"] = alert.isEmpty ? nil : .object(alert)
        for (field, key) in apsFields where changed(field) {
            anything = true
            aps[key] = madeAPS[key]
        }
        if changed("user_info") {
            anything = true
            for key in object.keys where key != "aps" && key != CommunicationContent.payloadKey {
                object[key] = nil
            }
            for (key, value) in madePayload where key != "aps" && key != CommunicationContent.payloadKey {
                object[key] = value
            }
        }
        if changed("communication") {
            anything = true
            object[CommunicationContent.payloadKey] = madePayload[CommunicationContent.payloadKey]
        }
        if changed("attachments") { anything = true }
        object["aps"] = .object(aps)
        return Merged(payload: .object(object), changed: anything, attachments: made.attachments)
    }
}

extension ExtensionContent {
    /// The largest payload an extension's content may make: what APNs takes for an alert push.
    public static let maximumPayloadBytes = 4096
}
