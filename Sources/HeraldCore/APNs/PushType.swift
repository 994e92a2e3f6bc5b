/// The `apns-push-type` header's values, and the topic suffix each one requires.
public enum PushType: String, CaseIterable, Sendable, Codable {
    case alert, background, complication, controls, fileprovider, liveactivity, location, mdm, pushtotalk, voip, widgets

    /// The suffix the `apns-topic` carries after the bundle id for this push type.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// Whether the payload must carry an `aps` dictionary: alerts, background updates and Live
    /// Activities are described by it; PushKit types (VoIP, File Provider, …) may carry only custom keys.
    public var requiresAPS: Bool {
        switch self {
        case .alert, .background, .liveactivity: true
        default: false
        }
    }

    /// The largest payload APNs accepts for this push type, in bytes.
    public var maximumPayloadSize: Int { self == .voip ? 5120 : 4096 }

    /// The bundle id a topic addresses for this push type, or nil when the suffix does not match.
    public func bundleID(fromTopic topic: String) -> String? {
        let suffix = topicSuffix
        if suffix.isEmpty { return topic.isEmpty ? nil : topic }
        guard topic.hasSuffix(suffix), topic.utf8.count > suffix.utf8.count else { return nil }
        return String(topic.dropLast(suffix.count))
    }
}

/// The `apns-priority` header: 10 (immediately), 5 (power considerations), 1 (lowest).
public struct APNsPriority: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: Int
    public init?(rawValue: Int) {
        guard [10, 5, 1].contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    public static let immediately = APNsPriority(rawValue: 10)!
    public static let considerPower = APNsPriority(rawValue: 5)!
    public static let lowest = APNsPriority(rawValue: 1)!
}
