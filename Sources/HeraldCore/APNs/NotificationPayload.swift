import Foundation

/// The interruption level of a notification (`interruption-level`).
public enum InterruptionLevel: String, CaseIterable, Sendable, Codable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical
}

/// A notification payload as APNs understands it: `aps` plus the custom keys beside it.
public struct NotificationPayload: Hashable, Sendable {
    /// The `aps` dictionary.
    public var aps: APS
    /// Keys beside `aps`, kept as sent for the app.
    public var custom: [String: JSONValue]

    public init(aps: APS = APS(), custom: [String: JSONValue] = [:]) {
        self.aps = aps
        self.custom = custom
    }
}

/// The keys of the `aps` dictionary.
public struct APS: Hashable, Sendable {
    public var alert: Alert?
    /// The app badge; 0 clears it, nil leaves it unchanged.
    public var badge: Int?
    public var sound: Sound?
    public var threadID: String?
    public var category: String?
    public var contentAvailable: Bool = false
    public var mutableContent: Bool = false
    public var targetContentID: String?
    /// The level as sent, when it is one APNs knows.
    public var interruptionLevel: InterruptionLevel?
    /// The `interruption-level` string as sent, also when it is not one APNs knows.
    public var interruptionLevelRaw: String?
    public var relevanceScore: Double?
    public var filterCriteria: String?
    /// Live Activity keys (`stale-date`, `content-state`, `timestamp`, `event`, `dismissal-date`,
    /// `attributes-type`, `attributes`), kept as sent.
    public var liveActivity: [String: JSONValue] = [:]

    public init() {}
}

/// The `alert` of a payload: a string (the body) or a dictionary.
public struct Alert: Hashable, Sendable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var launchImage: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String]?
    public var locKey: String?
    public var locArgs: [String]?
    public var actionLocKey: String?

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }
}

/// The `sound` of a payload: a file name (or "default"), or a critical-alert dictionary.
public struct Sound: Hashable, Sendable {
    public var name: String?
    public var isCritical: Bool
    /// The critical volume, 0…1.
    public var volume: Double?

    public init(name: String?, isCritical: Bool = false, volume: Double? = nil) {
        self.name = name
        self.isCritical = isCritical
        self.volume = volume
    }
}

/// Why a payload was refused; the message is for logs and JSON APIs, never sent on the APNs wire.
public struct PayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension NotificationPayload {
    private static let liveActivityKeys: Set<String> = [
        "stale-date", "content-state", "timestamp", "event", "dismissal-date", "attributes-type", "attributes",
    ]

    /// Parses a payload body: strict about its shape, lenient about numbers the way APNs is
    /// (numbers may arrive as doubles, numeric strings or booleans).
    /// - Parameter requiresAPS: refuse a payload without an `aps` dictionary.
    public init(json data: some DataProtocol, requiresAPS: Bool = false) throws(PayloadError) {
        let bytes = Array(data)
        if let payload = Self.read(bytes, requiresAPS: requiresAPS) {
            self = payload
            return
        }
        // Refused (or a key given twice, an earlier value of it invalid): the tree says why, or reads
        // what the last of each key makes valid.
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw PayloadError("The payload is not valid JSON: \(error.message)")
        }
        try self.init(jsonValue: value, requiresAPS: requiresAPS)
    }

    /// The payload read straight from its bytes: `aps` and its `alert` go into their fields with no
    /// dictionary in between (the rest of the payload is `custom`'s tree, as before). Every push's
    /// payload is read here: the dictionaries and their hashing were a fifth of the push logic's CPU
    /// (herald-push-logic-bench). The same value as `init(jsonValue:)` of the parsed tree; nil for
    /// anything that reading refuses, which the tree then reads again for its error.
    static func read(_ bytes: [UInt8], requiresAPS: Bool) -> NotificationPayload? {
        var parser = JSONParser(bytes)
        var aps: APS?
        var custom: [String: JSONValue] = [:]
        do throws(PayloadError) {
            parser.skipWhitespace()
            try parser.members { key, parser throws(PayloadError) in
                guard key == "aps" else {
                    custom[key] = try parser.parseValue()
                    return
                }
                var fields = APS()
                try parser.members { key, parser throws(PayloadError) in
                    if key == "alert", parser.next == UInt8(ascii: "{") {
                        var alert = Alert()
                        try parser.members { key, parser throws(PayloadError) in
                            try Self.apply(key, try parser.parseValue(), to: &alert)
                        }
                        fields.alert = alert
                    } else {
                        try Self.apply(key, try parser.parseValue(), to: &fields)
                    }
                }
                aps = fields
            }
            try parser.finish()
        } catch {
            return nil
        }
        guard aps != nil || !requiresAPS else { return nil }
        return NotificationPayload(aps: aps ?? APS(), custom: custom)
    }

    /// Reads a payload already parsed as JSON.
    public init(jsonValue value: JSONValue, requiresAPS: Bool = false) throws(PayloadError) {
        guard case .object(var object) = value else {
            throw PayloadError("The payload must be a JSON object.")
        }
        var aps = APS()
        if let apsValue = object.removeValue(forKey: "aps") {
            guard case .object(let dictionary) = apsValue else {
                throw PayloadError("`aps` must be a dictionary.")
            }
            aps = try Self.parseAPS(dictionary)
        } else if requiresAPS {
            throw PayloadError("The payload has no `aps` dictionary.")
        }
        self.init(aps: aps, custom: object)
    }

    private static func parseAPS(_ dictionary: [String: JSONValue]) throws(PayloadError) -> APS {
        var aps = APS()
        for (key, value) in dictionary { try apply(key, value, to: &aps) }
        return aps
    }

    /// One member of `aps`.
    private static func apply(_ key: String, _ value: JSONValue, to aps: inout APS) throws(PayloadError) {
        switch key {
        case "alert":
            aps.alert = try parseAlert(value)
        case "badge":
            guard let number = value.lenientNumber, number.isFinite, number >= 0, number <= Double(Int32.max) else {
                throw PayloadError("`badge` must be a non-negative number.")
            }
            aps.badge = Int(number)
        case "sound":
            aps.sound = try parseSound(value)
        case "thread-id":
            aps.threadID = try string(value, key)
        case "category":
            aps.category = try string(value, key)
        case "content-available":
            aps.contentAvailable = try flag(value, key)
        case "mutable-content":
            aps.mutableContent = try flag(value, key)
        case "target-content-id":
            aps.targetContentID = try string(value, key)
        case "interruption-level":
            let raw = try string(value, key)
            aps.interruptionLevelRaw = raw
            aps.interruptionLevel = InterruptionLevel(rawValue: raw)
        case "relevance-score":
            guard let number = value.lenientNumber, number.isFinite else {
                throw PayloadError("`relevance-score` must be a number from 0 to 1.")
            }
            aps.relevanceScore = number
        case "filter-criteria":
            aps.filterCriteria = try string(value, key)
        default:
            if liveActivityKeys.contains(key) {
                aps.liveActivity[key] = value
            }
        // Other keys inside `aps` are ignored, as APNs ignores them.
        }
    }

    private static func parseAlert(_ value: JSONValue) throws(PayloadError) -> Alert {
        switch value {
        case .string(let body):
            return Alert(body: body)
        case .object(let dictionary):
            var alert = Alert()
            for (key, value) in dictionary { try apply(key, value, to: &alert) }
            return alert
        default:
            throw PayloadError("`alert` must be a string or a dictionary.")
        }
    }

    /// One member of an `alert` dictionary.
    private static func apply(_ key: String, _ value: JSONValue, to alert: inout Alert) throws(PayloadError) {
        switch key {
        case "title": alert.title = try string(value, "alert.title")
        case "subtitle": alert.subtitle = try string(value, "alert.subtitle")
        case "body": alert.body = try string(value, "alert.body")
        case "launch-image": alert.launchImage = try string(value, "alert.launch-image")
        case "title-loc-key": alert.titleLocKey = try string(value, "alert.title-loc-key")
        case "title-loc-args": alert.titleLocArgs = try stringArray(value, "alert.title-loc-args")
        case "subtitle-loc-key": alert.subtitleLocKey = try string(value, "alert.subtitle-loc-key")
        case "subtitle-loc-args": alert.subtitleLocArgs = try stringArray(value, "alert.subtitle-loc-args")
        case "loc-key": alert.locKey = try string(value, "alert.loc-key")
        case "loc-args": alert.locArgs = try stringArray(value, "alert.loc-args")
        case "action-loc-key": alert.actionLocKey = try? string(value, "alert.action-loc-key")
        default: break
        }
    }

    private static func parseSound(_ value: JSONValue) throws(PayloadError) -> Sound {
        switch value {
        case .string(let name):
            return Sound(name: name)
        case .object(let dictionary):
            var sound = Sound(name: nil)
            if let name = dictionary["name"] { sound.name = try string(name, "sound.name") }
            if let critical = dictionary["critical"] { sound.isCritical = try flag(critical, "sound.critical") }
            if let volume = dictionary["volume"] {
                guard let number = volume.lenientNumber, number >= 0, number <= 1 else {
                    throw PayloadError("`sound.volume` must be a number from 0 to 1.")
                }
                sound.volume = number
            }
            return sound
        default:
            throw PayloadError("`sound` must be a string or a dictionary.")
        }
    }

    private static func string(_ value: JSONValue, _ key: String) throws(PayloadError) -> String {
        switch value {
        case .string(let string): return string
        case .number(let number):
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: throw PayloadError("`\(key)` must be a string.")
        }
    }

    private static func stringArray(_ value: JSONValue, _ key: String) throws(PayloadError) -> [String] {
        guard case .array(let items) = value else { throw PayloadError("`\(key)` must be an array of strings.") }
        var strings: [String] = []
        for item in items { strings.append(try string(item, key)) }
        return strings
    }

    private static func flag(_ value: JSONValue, _ key: String) throws(PayloadError) -> Bool {
        guard let number = value.lenientNumber else { throw PayloadError("`\(key)` must be 0 or 1.") }
        return number != 0
    }
}
