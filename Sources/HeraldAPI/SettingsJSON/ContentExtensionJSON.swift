import Foundation
import HeraldCore

/// An app's web content extension (`UNNotificationContentExtension`'s counterpart): the HTML the
/// expanded notification shows for the app's `categories`, with the options Apple's extension
/// declares in its Info.plist (`UNNotificationExtensionInitialContentSizeRatio`,
/// `…DefaultContentHidden`, `…OverridesDefaultTitle`, `…UserInteractionEnabled`) and its
/// `mediaPlayPauseButtonType`.
///
/// ```json
/// {"categories": ["invite"], "html": "<!doctype html>…", "initial_content_size_ratio": 0.5,
///  "default_content_hidden": false, "overrides_default_title": false,
///  "user_interaction_enabled": true, "media_play_pause_button": "overlay"}
/// ```
struct ContentExtensionSettings: Hashable, Sendable {
    /// The largest HTML accepted: an extension is a page with its scripts inline.
    static let maximumHTMLSize = 512 * 1024
    static let mediaButtons = ["none", "default", "overlay"]

    var categories: [String]
    var html: String
    var initialContentSizeRatio: Double
    var defaultContentHidden = false
    var overridesDefaultTitle = false
    var userInteractionEnabled = false
    var mediaPlayPauseButton = "none"

    /// Reads the body of `PUT /v1/admin/apps/{bundle_id}/content-extension`; 400 naming the field.
    static func parse(_ fields: JSONFields) throws -> ContentExtensionSettings {
        try fields.allowOnly([
            "categories", "html", "initial_content_size_ratio", "default_content_hidden", "overrides_default_title",
            "user_interaction_enabled", "media_play_pause_button",
        ])
        guard let categories = try fields.strings("categories") else { throw APIError.missingField("categories") }
        guard !categories.isEmpty, categories.count <= 100 else {
            throw APIError.invalidField("categories", "must name 1 to 100 categories.")
        }
        for (index, category) in categories.enumerated() {
            guard !category.isEmpty, category.utf8.count <= 256 else {
                throw APIError.invalidField("categories[\(index)]", "must be a category identifier of 1 to 256 bytes.")
            }
        }
        guard Set(categories).count == categories.count else {
            throw APIError.invalidField("categories", "must not name a category twice.")
        }
        guard let html = try fields.string("html") else { throw APIError.missingField("html") }
        guard !html.isEmpty, html.utf8.count <= maximumHTMLSize else {
            throw APIError.invalidField("html", "must be the extension's page: 1 byte to 512 KiB of HTML.")
        }
        guard let ratioValue = fields.object["initial_content_size_ratio"] else {
            throw APIError.missingField("initial_content_size_ratio")
        }
        guard case .number(let ratio) = ratioValue, ratio.isFinite, ratio > 0, ratio <= 10 else {
            throw APIError.invalidField(
                "initial_content_size_ratio", "must be the height as a multiple of the width: above 0, at most 10.")
        }
        var settings = ContentExtensionSettings(categories: categories, html: html, initialContentSizeRatio: ratio)
        settings.defaultContentHidden = try fields.bool("default_content_hidden") ?? false
        settings.overridesDefaultTitle = try fields.bool("overrides_default_title") ?? false
        settings.userInteractionEnabled = try fields.bool("user_interaction_enabled") ?? false
        settings.mediaPlayPauseButton =
            try fields.choice("media_play_pause_button", ["none": "none", "default": "default", "overlay": "overlay"])
            ?? "none"
        return settings
    }

    /// The options as stored (the HTML is stored beside them).
    var optionsJSON: JSONValue {
        .object([
            "categories": .array(categories.map(JSONValue.string)),
            "initial_content_size_ratio": .number(initialContentSizeRatio),
            "default_content_hidden": .bool(defaultContentHidden),
            "overrides_default_title": .bool(overridesDefaultTitle),
            "user_interaction_enabled": .bool(userInteractionEnabled),
            "media_play_pause_button": .string(mediaPlayPauseButton),
        ])
    }

    /// The settings back from their stored options JSON and HTML.
    init?(optionsJSON: JSONValue, html: String) {
        guard let object = optionsJSON.objectValue, case .array(let list)? = object["categories"],
            case .number(let ratio)? = object["initial_content_size_ratio"]
        else { return nil }
        categories = list.compactMap(\.stringValue)
        self.html = html
        initialContentSizeRatio = ratio
        if case .bool(let flag)? = object["default_content_hidden"] { defaultContentHidden = flag }
        if case .bool(let flag)? = object["overrides_default_title"] { overridesDefaultTitle = flag }
        if case .bool(let flag)? = object["user_interaction_enabled"] { userInteractionEnabled = flag }
        mediaPlayPauseButton = object["media_play_pause_button"]?.stringValue ?? "none"
    }

    init(categories: [String], html: String, initialContentSizeRatio: Double) {
        self.categories = categories
        self.html = html
        self.initialContentSizeRatio = initialContentSizeRatio
    }

    /// The extension as the API answers it: the options, the HTML, and when it was set.
    func json(bundleID: String, updatedAt: Date) -> JSONValue {
        guard case .object(var object) = optionsJSON else { return .null }
        object["bundle_id"] = .string(bundleID)
        object["html"] = .string(html)
        object["updated_at"] = .string(Timestamp.string(updatedAt))
        return .object(object)
    }
}
