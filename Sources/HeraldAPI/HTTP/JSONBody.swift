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
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "payload_too_large", message: "The request body is too large.")
        }
        guard buffer.readableBytes > 0 else {
            throw APIError.invalidJSON("The request body must be a JSON object.")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
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
        date.formatted(style)
    }

    static func string(_ date: Date?) -> String? {
        date.map(string)
    }
}
