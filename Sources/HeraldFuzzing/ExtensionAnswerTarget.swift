import HeraldAPI
import HeraldCore

/// `ExtensionContent.merge` (HeraldAPI): what a notification service extension's answer — content
/// in the app API's shape, from a process Herald does not trust — makes of the payload the provider
/// sent.
///
/// The property: the input, read as JSON, is either refused (`Invalid`) or merged into a payload
/// that is an object with an `aps` object, where every `aps` key the content model does not carry
/// (`mutable-content`, an unknown key) is as sent, the custom keys are the answer's `user_info`
/// when it changed it and as sent otherwise, and each alert text the answer changed is its text
/// (an empty one removes it) with the loc key of that text gone.
enum ExtensionAnswerTarget {
    static let target = FuzzTarget(
        name: "extension-answer",
        property:
            "ExtensionContent.merge: refused, or aps keys it does not model kept, changed texts and user_info written, loc keys of changed texts dropped",
        check: run
    )

    /// The push as the provider sent it.
    static let original: JSONValue = .object([
        "aps": .object([
            "alert": .object([
                "title": .string("New Video"), "loc-key": .string("BODY_KEY"), "loc-args": .array([.string("a")]),
            ]),
            "mutable-content": .number(1), "x-unknown": .string("kept"), "badge": .number(2),
        ]),
        "type": .string("video"), "video-url": .string("https://example.com/v.mp4"),
    ])

    /// The content the extension was given (as its host builds it from `original`).
    static let before: JSONValue = .object([
        "title": .string("New Video"), "subtitle": .string(""), "body": .string(""), "badge": .number(2),
        "launch_image_name": .string(""), "thread_identifier": .string(""), "category_identifier": .string(""),
        "summary_argument": .string(""), "summary_argument_count": .number(1),
        "interruption_level": .string("active"), "relevance_score": .number(0),
        "user_info": .object(["type": .string("video"), "video-url": .string("https://example.com/v.mp4")]),
    ])

    static func run(_ input: [UInt8]) throws {
        guard let after = try? JSONParser.parse(input) else { return }
        let merged: ExtensionContent.Merged
        do {
            merged = try ExtensionContent.merge(payload: original, before: before, after: after)
        } catch {
            return
        }
        guard let payload = merged.payload.objectValue, let aps = payload["aps"]?.objectValue else {
            throw PropertyViolation("the merged payload has no aps object: \(merged.payload)")
        }
        let sent = original.objectValue!["aps"]!.objectValue!
        for key in ["mutable-content", "x-unknown"] {
            try require(aps[key] == sent[key], "aps.\(key) is \(String(describing: aps[key])), sent \(sent[key]!)")
        }
        let new = after.objectValue ?? [:]
        let old = before.objectValue!
        func changed(_ field: String) -> Bool { (new[field] ?? .null) != (old[field] ?? .null) }
        let alert = aps["alert"]?.objectValue ?? [:]
        for (field, key, locKey) in [("title", "title", "title-loc-key"), ("body", "body", "loc-key")]
        where changed(field) {
            let text = new[field]?.stringValue ?? ""
            try require(
                alert[key] == (text.isEmpty ? nil : .string(text)),
                "\(field) changed to \(String(describing: new[field])) but the alert's \(key) is \(String(describing: alert[key]))"
            )
            try require(alert[locKey] == nil, "\(field) changed but \(locKey) stayed")
        }
        if !changed("body") {
            try require(alert["loc-key"] == .string("BODY_KEY"), "the body did not change but its loc key went")
        }
        let custom = payload.filter { $0.key != "aps" && $0.key != "communication" }
        if changed("user_info") {
            try require(
                custom
                    == (new["user_info"]?.objectValue ?? [:]).filter { $0.key != "aps" && $0.key != "communication" },
                "user_info changed to \(String(describing: new["user_info"])) but the custom keys are \(custom)")
        } else {
            try require(
                custom == original.objectValue!.filter { $0.key != "aps" },
                "user_info did not change but the custom keys are \(custom)")
        }
        let fields = Set(old.keys).union(new.keys)
        try require(
            merged.changed == fields.contains(where: changed),
            "changed is \(merged.changed), but the fields that differ are \(fields.filter(changed).sorted())")
    }
}
