import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reading request bodies and writing JSON responses the way every route does.
enum JSONBody {
    /// The encoder of every response: compact, keys sorted, slashes unescaped (PEMs stay readable).
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as one line of JSON.
    static func encode(_ value: some Encodable) throws -> Data {
        try makeEncoder().encode(value)
    }

    /// A JSON response.
    static func response(status: HTTPResponse.Status = .ok, _ value: some Encodable) -> Response {
        // Herald's response types encode strings, numbers and JSON values only: encoding can't fail.
        let data = (try? encode(value)) ?? Data(#"{}"#.utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// Decodes the request body as `T`, with a 400 that names the field at fault when it can't.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws
        -> T
    {
        try decode(type, from: try await bytes(of: request, context: context))
    }

    /// The whole request body; 413 when it is larger than the context allows.
    static func bytes(of request: Request, context: some RequestContext) async throws -> Data {
        do {
            return Data(try await request.body.collect(upTo: context.maxUploadSize).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "payload_too_large", message: "The request body is too large.")
        }
    }

    /// Decodes a whole request body as `T`, with a 400 that names the field at fault when it can't.
    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        guard !body.isEmpty else {
            throw APIError.invalidJSON("The request body must be a JSON object.")
        }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch let error as DecodingError {
            throw Self.apiError(for: error)
        }
    }

    /// A 400 naming the field a decoding error is about.
    static func apiError(for error: DecodingError) -> APIError {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField(fieldPath(context.codingPath + [key]))
        case .valueNotFound(_, let context):
            let path = fieldPath(context.codingPath)
            return path.isEmpty ? .invalidJSON("The request body must be a JSON object.") : .missingField(path)
        case .typeMismatch(let type, let context):
            let path = fieldPath(context.codingPath)
            return path.isEmpty
                ? .invalidJSON("The request body must be a JSON object.")
                : .invalidField(path, "must be \(typeName(type)).")
        case .dataCorrupted(let context):
            let path = fieldPath(context.codingPath)
            return path.isEmpty
                ? .invalidJSON("The request body is not valid JSON.")
                : .invalidField(path, "has a value that is not valid.")
        @unknown default:
            return .invalidJSON("The request body is not valid JSON.")
        }
    }

    private static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
            .joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [String].Type: "an array of strings"
        default: type is any Collection.Type ? "an array" : "an object"
        }
    }
}

/// ISO 8601 timestamps with milliseconds, in UTC, as every JSON API timestamp is written.
enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    static func string(_ date: Date) -> String {
        fast(date) ?? date.formatted(style)
    }

    /// `2026-11-22T04:03:48.459Z` for a date on a millisecond (every stored date is) in 1970…9999,
    /// written digit by digit: the live streams write one per event, and the format style cost a
    /// third of building an event. Other dates: nil (the format style writes them).
    static func fast(_ date: Date) -> String? {
        let exact = date.timeIntervalSince1970 * 1000
        let rounded = exact.rounded()
        guard rounded >= 0, rounded < 253_402_300_800_000, abs(exact - rounded) < 0.001 else { return nil }
        let milliseconds = Int64(rounded)
        let days = milliseconds / 86_400_000
        var rest = milliseconds % 86_400_000
        // Days since 1970-01-01 to year, month, day (the civil calendar, H. Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let hour = rest / 3_600_000
        rest %= 3_600_000
        let minute = rest / 60_000
        rest %= 60_000
        let second = rest / 1000
        let millisecond = rest % 1000
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int64, _ digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(millisecond, 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    static func string(_ date: Date?) -> String? {
        date.map(string)
    }
}
