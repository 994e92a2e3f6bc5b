import Foundation
import HeraldCore

/// A JSON object that prints its keys in the order they were added (Foundation's encoder does not
/// keep an order), for output people read and scripts parse: one object per line.
public struct OrderedJSONObject: Sendable {
    private var members: [(key: String, value: JSONValue)] = []

    /// An empty object.
    public init() {}

    /// An object with `members` in this order.
    public init(_ members: KeyValuePairs<String, JSONValue>) {
        for (key, value) in members { self.members.append((key, value)) }
    }

    /// Adds a member at the end (an existing key is replaced in place).
    public mutating func append(_ key: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
    }

    /// The object as compact JSON on one line; nested objects have sorted keys.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = members.map { member in
            "\(Self.encode(JSONValue.string(member.key), encoder)):\(Self.encode(member.value, encoder))"
        }
        return "{" + body.joined(separator: ",") + "}"
    }

    private static func encode(_ value: JSONValue, _ encoder: JSONEncoder) -> String {
        // Encoding a JSONValue cannot fail: it holds only JSON.
        String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }
}

extension JSONValue {
    /// A string, or null when nil.
    public static func string(orNull value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }
}
