import Crypto
import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// An app's web content extension (`UNNotificationContentExtension`'s counterpart, see
/// ``ContentExtensionSettings``):
/// - `PUT|GET|DELETE /v1/admin/apps/{bundle_id}/content-extension` (the admin token): set it, read it,
///   remove it. One per app, for the categories it names.
/// - `GET /v1/apps/{bundle_id}/content-extension` (a signed-in user): the same JSON, which the
///   notification center reads to show the extension in a sandboxed frame.
/// - `GET /v1/content-extensions` (a signed-in user): every app's extension without its HTML, so the
///   page knows which categories expand into one without asking app by app.
struct ContentExtensionRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.put, "/v1/admin/apps/{bundle_id}/content-extension", authenticator.adminOnly(put)),
            APIRoute(.get, "/v1/admin/apps/{bundle_id}/content-extension", authenticator.adminOnly(get)),
            APIRoute(.delete, "/v1/admin/apps/{bundle_id}/content-extension", authenticator.adminOnly(delete)),
            APIRoute(.get, "/v1/apps/{bundle_id}/content-extension", getForUser),
            APIRoute(.get, "/v1/content-extensions", list),
            APIRoute(.get, "/v1/content-extension-frames/{bundle_id}", frame),
        ]
    }

    @Sendable func put(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let settings = try ContentExtensionSettings.parse(try await JSONFields.body(request, context: context))
        let options = String(decoding: try JSONBody.encode(settings.optionsJSON), as: UTF8.self)
        let record = ContentExtensionRecord(
            bundleID: bundleID, options: options, html: settings.html, updatedAt: dependencies.now())
        try await mapStoreErrors { try await store.putContentExtension(record) }
        return JSONBody.response(settings.json(bundleID: bundleID, updatedAt: record.updatedAt))
    }

    @Sendable func get(_ request: Request, context: APIRequestContext) async throws -> Response {
        JSONBody.response(try await stored(try await requireApp(context)))
    }

    /// With `frame_url`: where the page's sandboxed frame loads the extension (a ticket, not the token).
    @Sendable func getForUser(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try await authenticator.requireUser(request)
        let bundleID = try await requireApp(context)
        guard case .object(var object) = try await stored(bundleID) else { throw Self.notFound }
        object["frame_url"] = .string(
            ContentExtensionFrame.path(bundleID: bundleID, now: dependencies.now(), key: frameKey))
        return JSONBody.response(JSONValue.object(object))
    }

    /// `{"content_extensions": [...]}`: each app's options and `frame_url`, not its HTML.
    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try await authenticator.requireUser(request)
        let now = dependencies.now()
        let listed: [JSONValue] = try await store.contentExtensions().compactMap { record in
            guard let options = try? JSONParser.parse(Array(record.options.utf8)),
                let settings = ContentExtensionSettings(optionsJSON: options, html: record.html),
                case .object(var object) = settings.json(bundleID: record.bundleID, updatedAt: record.updatedAt)
            else { return nil }
            object["html"] = nil
            object["frame_url"] = .string(
                ContentExtensionFrame.path(bundleID: record.bundleID, now: now, key: frameKey))
            return .object(object)
        }
        return JSONBody.response(JSONValue.object(["content_extensions": .array(listed)]))
    }

    /// `GET /v1/content-extension-frames/{bundle_id}?expires=&signature=`: the extension's document,
    /// for a ticket from `frame_url` (403 `invalid_frame_ticket` otherwise).
    @Sendable func frame(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        let query = request.uri.queryParameters
        guard
            ContentExtensionFrame.isValid(
                bundleID: bundleID, expires: query.get("expires"), signature: query.get("signature"),
                now: dependencies.now(), key: frameKey)
        else {
            throw APIError(
                .forbidden, code: "invalid_frame_ticket",
                message: "This frame address is not valid (or expired): read frame_url again.")
        }
        guard let record = try await store.contentExtension(bundleID: bundleID) else { throw Self.notFound }
        let document = Data(ContentExtensionFrame.document(html: record.html).utf8)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = ContentExtensionFrame.securityPolicy
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
    }

    private var frameKey: SymmetricKey { ContentExtensionFrame.key(adminToken: dependencies.adminToken) }

    @Sendable func delete(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        guard try await store.deleteContentExtension(bundleID: bundleID) else { throw Self.notFound }
        return Response(status: .noContent)
    }

    static let notFound = APIError.notFound("content_extension_not_found", "The app has no content extension.")

    private func stored(_ bundleID: String) async throws -> JSONValue {
        guard let record = try await store.contentExtension(bundleID: bundleID),
            let options = try? JSONParser.parse(Array(record.options.utf8)),
            let settings = ContentExtensionSettings(optionsJSON: options, html: record.html)
        else { throw Self.notFound }
        return settings.json(bundleID: bundleID, updatedAt: record.updatedAt)
    }

    private func requireApp(_ context: APIRequestContext) async throws -> String {
        try await AppResourceRoutes.requireApp(context, dependencies: dependencies)
    }
}
