import HTTPTypes
import HeraldStore
import Hummingbird
import NIOCore

/// An error a client of the JSON API sees: `{"error":{"code":…,"message":…}}` with an HTTP status.
///
/// The message is a sentence for people; it names the field at fault and never echoes tokens or
/// payloads. Codes are stable snake_case strings clients may branch on.
public struct APIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The stable snake_case code.
    public var code: String
    /// A sentence for people.
    public var message: String
    /// Extra response headers (`WWW-Authenticate`, `Allow`).
    public var headers: HTTPFields

    /// An error with a status, a code and a message.
    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The error as a log line.
    public var description: String { "\(status.code) \(code): \(message)" }
}

extension APIError {
    /// 400: the body is not JSON, or not the JSON the route expects.
    public static func invalidJSON(_ message: String) -> APIError {
        APIError(.badRequest, code: "invalid_json", message: message)
    }

    /// 400: a required field of the body is absent.
    public static func missingField(_ field: String) -> APIError {
        APIError(.badRequest, code: "missing_field", message: "`\(field)` is required.")
    }

    /// 400: a field of the body has a value the route does not accept.
    public static func invalidField(_ field: String, _ rule: String) -> APIError {
        APIError(.badRequest, code: "invalid_field", message: "`\(field)` \(rule)")
    }

    /// 400: a query parameter or header has a value the route does not accept.
    public static func invalidParameter(_ name: String, _ rule: String) -> APIError {
        APIError(.badRequest, code: "invalid_parameter", message: "`\(name)` \(rule)")
    }

    /// 401: no bearer token, or one that is not valid here.
    public static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, code: "unauthorized", message: message, headers: [.wwwAuthenticate: "Bearer"])
    }

    /// 404 with a code naming what was not found (`device_not_found`, `team_not_found`, …).
    public static func notFound(_ code: String, _ message: String) -> APIError {
        APIError(.notFound, code: code, message: message)
    }

    /// 409 with a code naming what exists already (`team_exists`, …).
    public static func conflict(_ code: String, _ message: String) -> APIError {
        APIError(.conflict, code: code, message: message)
    }

    /// The device answer for a device that does not exist or belongs to another user: identical.
    public static let deviceNotFound = APIError.notFound("device_not_found", "There is no device with this id.")

    /// 500 for anything unexpected; the cause goes to the log, never to the client.
    public static let internalError = APIError(
        .internalServerError, code: "internal_error", message: "The server could not complete the request."
    )

    /// The answer to a request the store could not carry out because of the storage itself: 507
    /// `insufficient_storage` when the disk is full, 500 `storage_damaged` or `storage_failure`
    /// otherwise. The store logged the cause (once); the client learns nothing about the files.
    public static func storageFault(_ fault: StorageFaultError) -> APIError {
        switch fault.kind {
        case .diskFull:
            APIError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"), code: "insufficient_storage",
                message:
                    "The server's disk is full, so nothing was changed. Try again once its operator has freed space."
            )
        case .damaged:
            APIError(
                .internalServerError, code: "storage_damaged",
                message: "The server's database is damaged; nothing was changed. Its operator must restore it.")
        case .ioFailure:
            APIError(
                .internalServerError, code: "storage_failure",
                message: "The server could not read or write its database; nothing was changed.")
        }
    }
}

extension APIError: HTTPResponseError {
    /// The error as a JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        makeResponse()
    }

    /// The error as a JSON response.
    func makeResponse() -> Response {
        var response = JSONBody.response(status: status, ErrorEnvelope(error: .init(code: code, message: message)))
        response.headers.append(contentsOf: headers)
        if status == .contentTooLarge {
            // The rest of a refused body is not read: the connection closes after this answer
            // (`CloseAfterResponse`).
            response.headers[.connection] = "close"
        }
        return response
    }
}

/// The error object of every JSON API error.
struct ErrorEnvelope: Codable, Hashable {
    struct Detail: Codable, Hashable {
        var code: String
        var message: String
    }

    var error: Detail
}
