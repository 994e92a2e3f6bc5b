import Foundation
import HeraldCore
import Hummingbird
import NIOCore

/// The fields of a JSON object in a request body, read one by one so that each error names its
/// field (`schedules[0].start`) and an absent field can be told from a `null` one (partial `PUT`s).
struct JSONFields {
    let object: [String: JSONValue]
    /// The path of this object in the body (`""` for the body itself).
    let path: String

    init(_ value: JSONValue, path: String = "") throws {
        guard let object = value.objectValue else {
            throw path.isEmpty
                ? APIError.invalidJSON("The request body must be a JSON object.")
                : APIError.invalidField(path, "must be an object.")
        }
        self.object = object
        self.path = path
    }

    /// The body of a request as a JSON object.
    static func body(_ request: Request, context: some RequestContext) async throws -> JSONFields {
        try body(try await JSONBody.bytes(of: request, context: context))
    }

    /// A whole body as a JSON object.
    ///
    /// Read with HeraldCore's `JSONParser`, which stops at the first fault in byte order. Foundation's
    /// decoder into a `JSONValue` visited an object's members in its dictionary's order, so one
    /// malformed body got `invalid_json` or `invalid_field` depending on that order (found by the
    /// api-request-body fuzz target).
    static func body(_ body: Data) throws -> JSONFields {
        guard !body.isEmpty else { throw APIError.invalidJSON("The request body must be a JSON object.") }
        return try JSONFields(try parse(body))
    }

    /// The body, or an empty object when the request has none.
    static func optionalBody(_ request: Request, context: some RequestContext) async throws -> JSONFields {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return try optionalBody(Data(buffer.readableBytesView))
    }

    /// A whole optional body as a JSON object: an empty one when there is none.
    static func optionalBody(_ body: Data) throws -> JSONFields {
        guard !body.isEmpty else { return try JSONFields(.object([:])) }
        return try JSONFields(try parse(body))
    }

    private static func parse(_ body: Data) throws -> JSONValue {
        do {
            return try JSONParser.parse([UInt8](body))
        } catch {
            throw APIError.invalidJSON("The request body is not valid JSON.")
        }
    }

    /// The full name of a field of this object.
    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// 400 naming the first field that is not one of `keys`.
    func allowOnly(_ keys: Set<String>) throws {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw APIError.invalidField(name(unknown), "is not a field of this object.")
        }
    }

    /// Whether the field is present (null included).
    func has(_ key: String) -> Bool { object[key] != nil }

    /// Whether the field is present and `null`.
    func isNull(_ key: String) -> Bool { object[key] == .null }

    func bool(_ key: String) throws -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else { throw APIError.invalidField(name(key), "must be true or false.") }
        return flag
    }

    func string(_ key: String) throws -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw APIError.invalidField(name(key), "must be a string.") }
        return text
    }

    /// A string that may be `null`: nil when absent, `.some(nil)` when null.
    func nullableString(_ key: String) throws -> String?? {
        guard let value = object[key] else { return nil }
        if value == .null { return .some(nil) }
        return .some(try string(key))
    }

    func strings(_ key: String) throws -> [String]? {
        guard let items = try array(key) else { return nil }
        return try items.enumerated().map { index, item in
            guard case .string(let text) = item else {
                throw APIError.invalidField("\(name(key))[\(index)]", "must be a string.")
            }
            return text
        }
    }

    func array(_ key: String) throws -> [JSONValue]? {
        guard let value = object[key] else { return nil }
        guard case .array(let items) = value else { throw APIError.invalidField(name(key), "must be an array.") }
        return items
    }

    func fields(_ key: String) throws -> JSONFields? {
        guard let value = object[key] else { return nil }
        return try JSONFields(value, path: name(key))
    }

    /// One of the names of `table`; the error lists them.
    func choice<Value>(_ key: String, _ table: KeyValuePairs<String, Value>) throws -> Value? {
        guard let text = try string(key) else {
            if has(key) { throw APIError.invalidField(name(key), "must be one of \(Self.list(table.map(\.key))).") }
            return nil
        }
        guard let match = table.first(where: { $0.key == text }) else {
            throw APIError.invalidField(name(key), "must be one of \(Self.list(table.map(\.key))).")
        }
        return match.value
    }

    /// `a`, `b` or `c`.
    static func list(_ names: [String]) -> String {
        let quoted = names.map { "`\($0)`" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}

extension JSONValue {
    /// `nil` as `null`.
    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    static func strings(_ items: some Sequence<String>) -> JSONValue { .array(items.map(JSONValue.string)) }
}

/// `HH:MM` times of day.
enum ClockTime {
    /// Parses `HH:MM` (00:00…23:59).
    static func parse(_ text: String) -> (hour: Int, minute: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return (hour, minute)
    }
}

/// Checks of identifiers in paths and bodies.
enum Identifiers {
    /// An IANA time zone identifier this system knows (`Europe/Paris`, `Asia/Kolkata`, `UTC`): a name
    /// of the system's time-zone database, canonical or a `backward` link.
    ///
    /// Foundation's `knownTimeZoneIdentifiers` alone is not enough: on Linux its list lags the
    /// database (it lacks `Asia/Kolkata`, India's canonical name, while `TimeZone(identifier:)` knows
    /// it), so a name is also looked up as a file of the database itself.
    static func isTimeZone(_ text: String) -> Bool {
        text == "UTC" || text == "GMT" || TimeZone.knownTimeZoneIdentifiers.contains(text)
            || TimeZoneDatabase.contains(text)
    }

    /// A BCP 47-like locale identifier: `en`, `pt-BR`, `zh-Hans`, `sr-Latn-RS`, `en_GB`.
    static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter })
        else {
            return false
        }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// A Focus id: 1–64 lowercase letters, digits, `_` and `-`.
    static func isFocusID(_ text: String) -> Bool {
        (1...64).contains(text.count)
            && text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}

/// The system's time-zone database (`TZDIR`, else `/usr/share/zoneinfo`): one TZif file per zone name.
enum TimeZoneDatabase {
    static let directory =
        ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"

    /// Whether `name` is a zone of the database: made of the characters zone names use, a relative
    /// path without `.` or `..` components, naming a TZif file that Foundation can load.
    static func contains(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128,
            name.utf8.allSatisfy({ byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "+")
            }),
            name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty })
        else { return false }
        guard let file = FileHandle(forReadingAtPath: directory + "/" + name) else { return false }
        defer { try? file.close() }
        guard let magic = try? file.read(upToCount: 4), magic == Data("TZif".utf8) else { return false }
        return TimeZone(identifier: name) != nil
    }
}
