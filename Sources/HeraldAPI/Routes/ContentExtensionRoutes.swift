import Foundation
import HeraldCore
import HeraldStore
import Hummingbird

/// An app's web content extension (`UNNotificationContentExtension`'s counterpart, see
/// ``ContentExtensionSettings``):
/// - `PUT|GET|DELETE /v1/admin/apps/{bundle_id}/content-extension` (the admin token): set it, read it,
///   remove it. One per app, for the categories it names.
/// - `GET /v1/apps/{bundle_id}/content-extension` (a signed-in user): the same JSON, which the
///   notification center reads to show the extension in a sandboxed frame.
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

    @Sendable func getForUser(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try await authenticator.requireUser(request)
        return JSONBody.response(try await stored(try await requireApp(context)))
    }

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
        let bundleID = try context.parameters.require("bundle_id")
        guard try await store.apps().contains(where: { $0.bundleID == bundleID }) else {
            throw APIError.notFound("app_not_found", "There is no app with this bundle id.")
        }
        return bundleID
    }
}
