import Foundation
import HeraldCore

/// A payload built from the parts a person types on the command line (`herald push --title …`).
///
/// Only the parts given appear; the JSON has sorted keys, so the same parts give the same bytes.
public struct AlertPayload: Hashable, Sendable {
    /// `aps.alert.title`.
    public var title: String?
    /// `aps.alert.subtitle`.
    public var subtitle: String?
    /// `aps.alert.body`.
    public var body: String?
    /// `aps.interruption-level`.
    public var interruptionLevel: InterruptionLevel?
    /// `aps.thread-id`.
    public var threadID: String?
    /// `aps.category`.
    public var category: String?
    /// `aps.badge`; 0 clears the badge.
    public var badge: Int?
    /// `aps.sound`: a sound file name or `default`. With the critical level it becomes the
    /// critical-alert dictionary `{"critical":1,"name":…,"volume":1}`.
    public var sound: String?
    /// `aps.content-available: 1`: a background update.
    public var isContentAvailable: Bool
    /// `aps.mutable-content: 1`: the service extension may modify the notification.
    public var isMutableContent: Bool

    /// A payload from its parts; every part is optional.
    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil,
        interruptionLevel: InterruptionLevel? = nil, threadID: String? = nil, category: String? = nil,
        badge: Int? = nil, sound: String? = nil, isContentAvailable: Bool = false, isMutableContent: Bool = false
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.interruptionLevel = interruptionLevel
        self.threadID = threadID
        self.category = category
        self.badge = badge
        self.sound = sound
        self.isContentAvailable = isContentAvailable
        self.isMutableContent = isMutableContent
    }

    /// The payload as a JSON value: `{"aps":{…}}`.
    public var jsonValue: JSONValue {
        var aps: [String: JSONValue] = [:]
        var alert: [String: JSONValue] = [:]
        if let title { alert["title"] = .string(title) }
        if let subtitle { alert["subtitle"] = .string(subtitle) }
        if let body { alert["body"] = .string(body) }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if let badge { aps["badge"] = .number(Double(badge)) }
        if let sound {
            aps["sound"] =
                interruptionLevel == .critical
                ? .object(["critical": .number(1), "name": .string(sound), "volume": .number(1)])
                : .string(sound)
        }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let category { aps["category"] = .string(category) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        if isContentAvailable { aps["content-available"] = .number(1) }
        if isMutableContent { aps["mutable-content"] = .number(1) }
        return .object(["aps": .object(aps)])
    }

    /// The payload as compact JSON with sorted keys.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A JSONValue without NaN or infinity always encodes.
        return (try? encoder.encode(jsonValue)) ?? Data(#"{"aps":{}}"#.utf8)
    }
}
