import Foundation
import GRDB
import HeraldCore

extension Schema {
    /// Rewrites the stored decisions into the one public JSON shape (snake_case, every key written:
    /// see HeraldPolicy's `Decision+JSON.swift`), which clients now read as it is stored. Before,
    /// the store kept Swift's synthesized encoding (`"banner": 1`, `"preview": {"hidden": {"_0": …}}`,
    /// `effectiveLevel`) and only the decision endpoint showed the snake_case one.
    ///
    /// The badge trigger reads `$.badge`, which keeps its name and value, so rewriting fires it for
    /// no row. A decision already in the new shape, or not an object, is left as it is.
    static func storePublicDecisionShape(_ db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT rowid, decision FROM notifications WHERE decision IS NOT NULL")
        var updates: [(Int64, String)] = []
        while let row = try rows.next() {
            let text: String = row[1]
            guard let value = try? JSONParser.parse(Array(text.utf8)),
                let upgraded = LegacyDecisionJSON.upgrade(value)
            else { continue }
            updates.append((row[0], try LegacyDecisionJSON.text(upgraded)))
        }
        let statement = try db.makeStatement(sql: "UPDATE notifications SET decision = ? WHERE rowid = ?")
        for (rowid, text) in updates {
            try statement.execute(arguments: [text, rowid])
        }
    }
}

/// The decision JSON as the store kept it up to v9, turned into the public shape.
enum LegacyDecisionJSON {
    /// The decision in the public shape; nil when `value` is not a decision in the old shape.
    static func upgrade(_ value: JSONValue) -> JSONValue? {
        guard case .object(let old) = value, old["reason_codes"] == nil, old["reasons"] != nil else { return nil }
        var new: [String: JSONValue] = [:]
        new["disposition"] = old["disposition"] ?? .null
        let banners = ["none", "banner", "alert"]
        if case .number(let style)? = old["banner"], let index = Int(exactly: style), banners.indices.contains(index) {
            new["banner"] = .string(banners[index])
        } else {
            new["banner"] = old["banner"] ?? .string("none")
        }
        let sound = old["sound"]?.objectValue ?? [:]
        new["sound"] = .object([
            "plays": sound["plays"] ?? .bool(false),
            "bypasses_ringer": sound["bypassesRinger"] ?? .bool(false),
            "volume": sound["volume"] ?? .null,
        ])
        new["badge"] = old["badge"] ?? .bool(false)
        new["lock_screen"] = old["lockScreen"] ?? .bool(false)
        new["notification_center"] = old["notificationCenter"] ?? .bool(false)
        new["announce"] = old["announce"] ?? .bool(false)
        new["preview"] = preview(old["preview"])
        new["effective_level"] = old["effectiveLevel"] ?? .string("active")
        new["focus_id"] = old["focusID"] ?? .null
        new["reason_codes"] = old["reasons"] ?? .array([])
        new["context"] = context(old["context"])
        new["display"] = old["display"] ?? .null
        new["actions"] = old["actions"] ?? .null
        return .object(new)
    }

    /// `{"full": {}}` → `{"hidden": false}`; `{"hidden": {"_0": {…}}}` → `{"hidden": true, …}`.
    private static func preview(_ value: JSONValue?) -> JSONValue {
        guard let hidden = value?.objectValue?["hidden"]?.objectValue?["_0"]?.objectValue else {
            return .object(["hidden": .bool(false)])
        }
        return .object([
            "hidden": .bool(true),
            "placeholder": hidden["placeholder"] ?? .null,
            "thread_count": hidden["threadCount"] ?? .number(0),
            "locale": hidden["locale"] ?? .string("en"),
            "shows_title": hidden["showsTitle"] ?? .bool(false),
            "shows_subtitle": hidden["showsSubtitle"] ?? .bool(false),
        ])
    }

    /// Every key written; the sender's handle as `handle` + `handle_type` (it was `{"kind": 2, "value": …}`).
    private static func context(_ value: JSONValue?) -> JSONValue {
        let old = value?.objectValue ?? [:]
        var sender: JSONValue = .null
        if let ref = old["sender"]?.objectValue, let handle = ref["handle"]?.objectValue {
            let kinds = ["app", "email", "phone"]
            let kind = handle["kind"].flatMap { if case .number(let n) = $0 { Int(exactly: n) } else { nil } } ?? 0
            sender = .object([
                "name": ref["name"] ?? .null,
                "handle": handle["value"] ?? .null,
                "handle_type": .string(kinds.indices.contains(kind) ? kinds[kind] : "app"),
            ])
        }
        return .object([
            "focus": old["focus"] ?? .null,
            "audio_route": old["audio_route"] ?? .string("none"),
            "summary": old["summary"] ?? .null,
            "released_from": old["released_from"] ?? .null,
            "sender": sender,
            "communication_error": old["communication_error"] ?? .null,
        ])
    }

    static func text(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
