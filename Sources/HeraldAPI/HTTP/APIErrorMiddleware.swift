import HTTPTypes
import HeraldStore
import Hummingbird
import Logging
import NIOCore

/// Turns everything a route throws into the JSON error object: `APIError`s as they are, a path
/// without a route into 404 (or 405 when the path exists with other methods), Hummingbird's own
/// errors by their status, a storage fault (a full disk, a damaged database) into its own 5xx (the
/// store logs those once, not once per request), and anything else into an opaque 500 whose cause
/// goes to the log.
struct APIErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    let endpoints: [APIEndpoint]
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.makeResponse()
        } catch let error as HTTPError where error.status == .notFound {
            return routeNotFound(request).makeResponse()
        } catch let error as any HTTPResponseError {
            return Self.apiError(status: error.status).makeResponse()
        } catch let error as DecodingError {
            return JSONBody.apiError(for: error).makeResponse()
        } catch let fault as StorageFaultError {
            logger.debug(
                "Request failed: storage fault",
                metadata: [
                    "http.method": .string(request.method.rawValue),
                    "http.route": .string(context.endpointPath ?? "?"),
                    "storage.fault": .string(fault.kind.rawValue),
                ])
            return APIError.storageFault(fault).makeResponse()
        } catch {
            logger.error(
                "Request failed",
                metadata: [
                    "http.method": .string(request.method.rawValue),
                    "http.route": .string(context.endpointPath ?? "?"),
                    "error.type": .string(String(describing: type(of: error))),
                    "error.description": .string(String(describing: error)),
                ])
            return APIError.internalError.makeResponse()
        }
    }

    /// 405 with `Allow` when the path has routes for other methods, else 404.
    private func routeNotFound(_ request: Request) -> APIError {
        let path = request.uri.path
        let methods = endpoints.filter { $0.matches(path: path) }.map(\.method)
        if !methods.isEmpty, !methods.contains(request.method) {
            let allowed = methods.map(\.rawValue).sorted().joined(separator: ", ")
            return APIError(
                .methodNotAllowed, code: "method_not_allowed",
                message: "\(request.method.rawValue) is not allowed here; use \(allowed).",
                headers: [.allow: allowed]
            )
        }
        return APIError.notFound("not_found", "There is no route for this path.")
    }

    /// A JSON error for one of Hummingbird's own errors.
    static func apiError(status: HTTPResponse.Status) -> APIError {
        switch status {
        case .contentTooLarge:
            APIError(status, code: "payload_too_large", message: "The request body is too large.")
        case .badRequest:
            APIError(status, code: "bad_request", message: "The request is not valid.")
        case .unauthorized:
            APIError.unauthorized("Authentication is required.")
        case .methodNotAllowed:
            APIError(status, code: "method_not_allowed", message: "This method is not allowed here.")
        case .notFound:
            APIError.notFound("not_found", "There is no route for this path.")
        default:
            status.kind == .clientError
                ? APIError(status, code: "bad_request", message: "The request is not valid.")
                : APIError.internalError
        }
    }
}

/// A method and an OpenAPI-style path (`/v1/devices/{device_id}/stream`).
struct APIEndpoint: Hashable, Sendable, CustomStringConvertible {
    var method: HTTPRequest.Method
    var path: String

    var description: String { "\(method.rawValue) \(path)" }

    /// Whether a request path matches this endpoint's path (a `{parameter}` matches one segment).
    func matches(path requestPath: String) -> Bool {
        let pattern = path.split(separator: "/", omittingEmptySubsequences: false)
        let actual = requestPath.split(separator: "/", omittingEmptySubsequences: false)
        guard pattern.count == actual.count else { return false }
        return zip(pattern, actual).allSatisfy { expected, segment in
            expected.hasPrefix("{") && expected.hasSuffix("}") ? !segment.isEmpty : expected == segment
        }
    }
}
