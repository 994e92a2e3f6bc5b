import Foundation
import HeraldCore

/// A notification category of an app (`UNNotificationCategory`), validated and written in one
/// canonical shape — what the store keeps and the server reads:
///
/// ```json
/// {"identifier": "MESSAGE",
///  "actions": [{"identifier": "REPLY", "title": "Reply", "options": ["authentication_required"],
///               "icon": {"system_image_name": "arrowshape.turn.up.left"},
///               "text_input": {"button_title": "Send", "placeholder": "Message"}}],
///  "intent_identifiers": ["INSendMessageIntent"],
///  "hidden_previews_body_placeholder": "%u new messages",
///  "category_summary_format": "%u more messages from %@",
///  "options": ["hidden_previews_show_title"]}
/// ```
/// `icon` and `text_input` are null when absent; so are the placeholder and the summary format.
enum CategoryJSON {
    static let actionOptions = ["authentication_required", "destructive", "foreground"]
    static let categoryOptions = [
        "custom_dismiss_action", "allow_in_car_play", "hidden_previews_show_title", "hidden_previews_show_subtitle",
    ]

    /// The canonical category from a request body; `identifier` is the path's.
    static func make(_ fields: JSONFields, identifier: String) throws -> JSONValue {
        try fields.allowOnly([
            "identifier", "actions", "intent_identifiers", "hidden_previews_body_placeholder",
            "category_summary_format", "options",
        ])
        guard !identifier.isEmpty else { throw APIError.invalidField("identifier", "must not be empty.") }
        if let bodyIdentifier = try fields.string("identifier"), bodyIdentifier != identifier {
            throw APIError.invalidField("identifier", "must be the path's identifier (`\(identifier)`) when given.")
        }
        var actions: [JSONValue] = []
        var actionIDs = Set<String>()
        for (index, item) in (try fields.array("actions") ?? []).enumerated() {
            let action = try JSONFields(item, path: "actions[\(index)]")
            let made = try makeAction(action)
            if case .string(let id)? = made.objectValue?["identifier"], !actionIDs.insert(id).inserted {
                throw APIError.invalidField(action.name("identifier"), "repeats the identifier of another action.")
            }
            actions.append(made)
        }
        let intents = try fields.strings("intent_identifiers") ?? []
        if let index = intents.firstIndex(where: \.isEmpty) {
            throw APIError.invalidField("intent_identifiers[\(index)]", "must not be empty.")
        }
        let placeholder = try fields.nullableString("hidden_previews_body_placeholder") ?? nil
        let summary = try fields.nullableString("category_summary_format") ?? nil
        let options = try optionList(fields, "options", allowed: categoryOptions)
        return .object([
            "identifier": .string(identifier),
            "actions": .array(actions),
            "intent_identifiers": .strings(intents),
            "hidden_previews_body_placeholder": .optional(placeholder),
            "category_summary_format": .optional(summary),
            "options": .strings(options),
        ])
    }

    static func makeAction(_ action: JSONFields) throws -> JSONValue {
        try action.allowOnly(["identifier", "title", "options", "icon", "text_input"])
        guard let identifier = try action.string("identifier") else {
            throw APIError.missingField(action.name("identifier"))
        }
        guard !identifier.isEmpty else { throw APIError.invalidField(action.name("identifier"), "must not be empty.") }
        guard let title = try action.string("title") else { throw APIError.missingField(action.name("title")) }
        guard !title.isEmpty else { throw APIError.invalidField(action.name("title"), "must not be empty.") }
        let options = try optionList(action, "options", allowed: actionOptions)
        var icon: JSONValue = .null
        // null is no icon (and no text input): what this type writes back is accepted as it is.
        if !action.isNull("icon"), let iconFields = try action.fields("icon") {
            try iconFields.allowOnly(["system_image_name", "template_image_name"])
            let system = try iconFields.string("system_image_name")
            let template = try iconFields.string("template_image_name")
            switch (system, template) {
            case (let name?, nil) where !name.isEmpty: icon = .object(["system_image_name": .string(name)])
            case (nil, let name?) where !name.isEmpty: icon = .object(["template_image_name": .string(name)])
            default:
                throw APIError.invalidField(
                    action.name("icon"), "must have exactly one non-empty `system_image_name` or `template_image_name`."
                )
            }
        }
        var textInput: JSONValue = .null
        if !action.isNull("text_input"), let input = try action.fields("text_input") {
            try input.allowOnly(["button_title", "placeholder"])
            guard let button = try input.string("button_title") else {
                throw APIError.missingField(input.name("button_title"))
            }
            guard !button.isEmpty else { throw APIError.invalidField(input.name("button_title"), "must not be empty.") }
            textInput = .object([
                "button_title": .string(button), "placeholder": .string(try input.string("placeholder") ?? ""),
            ])
        }
        return .object([
            "identifier": .string(identifier), "title": .string(title), "options": .strings(options),
            "icon": icon, "text_input": textInput,
        ])
    }

    /// A list of option names; camelCase spellings (`authenticationRequired`) are accepted too.
    static func optionList(_ fields: JSONFields, _ key: String, allowed: [String]) throws -> [String] {
        var seen: [String] = []
        for (index, name) in (try fields.strings(key) ?? []).enumerated() {
            let snake = snakeCase(name)
            guard allowed.contains(snake) else {
                throw APIError.invalidField(
                    "\(fields.name(key))[\(index)]", "must be one of \(JSONFields.list(allowed)).")
            }
            if !seen.contains(snake) { seen.append(snake) }
        }
        return allowed.filter(seen.contains)
    }

    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
