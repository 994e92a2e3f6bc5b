import Foundation
import HeraldCore

/// The JSON text the store keeps for the HeraldPolicy types (user-side state).
///
/// Keys are sorted and dates are whole milliseconds since 1970 (as the store's INTEGER columns), so
/// a value reads back equal to what was written once its dates are rounded to the millisecond.
public enum PolicyJSON {
    /// The JSON text of `value`, validated by decoding it back: what is stored can always be read.
    public static func encode<Value: Codable>(_ value: Value, _ what: String) throws -> String {
        let data: Data
        do {
            data = try makeEncoder().encode(value)
            _ = try makeDecoder().decode(Value.self, from: data)
        } catch {
            throw StoreError(.invalid, "The \(what) cannot be stored: it does not read back as \(what).")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The value stored as `text`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String, _ what: String) throws -> Value {
        do {
            return try makeDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(.invalid, "The stored \(what) cannot be read by this version.")
        }
    }

    /// Whether `text` is a JSON object (for JSON the store keeps without reading it).
    public static func isObject(_ text: String) -> Bool {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return false }
        return value.objectValue != nil
    }

    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.storedMilliseconds)
        }
        return encoder
    }

    private static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            Date(storedMilliseconds: try decoder.singleValueContainer().decode(Int64.self))
        }
        return decoder
    }
}
