import Foundation
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// An app's webhook for the person's responses (the provider's side of `didReceive`), admin only:
/// - `PUT /v1/admin/apps/{bundle_id}/webhook` `{"url"}`: sets it, with a new signing secret (shown
///   once, `whsec_…`); deliveries still pending go to the new url with the new secret;
/// - `GET …/webhook`: its url and how its deliveries stand (pending, delivered, the last error);
/// - `DELETE …/webhook`: removes it and drops the deliveries still pending.
///
/// Each response of the app, from then on, is POSTed to the url (`WebhookService`, HeraldServer),
/// signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), until the
/// webhook answers 2xx — retried with backoff, across restarts.
struct WebhookRoutes: Sendable {
    static let maximumURLLength = 2048

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.put, "/v1/admin/apps/{bundle_id}/webhook", authenticator.adminOnly(setWebhook)),
            APIRoute(.get, "/v1/admin/apps/{bundle_id}/webhook", authenticator.adminOnly(webhook)),
            APIRoute(.delete, "/v1/admin/apps/{bundle_id}/webhook", authenticator.adminOnly(removeWebhook)),
        ]
    }

    static let notFound = APIError.notFound("webhook_not_found", "This app has no webhook.")

    /// A new signing secret as Standard Webhooks write it: `whsec_` and 32 random bytes in base64.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "whsec_" + Data(key).base64EncodedString()
    }

    @Sendable func setWebhook(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        let url = try Self.webhookURL(try await JSONFields.body(request, context: context))
        let webhook = AppWebhookRecord(
            bundleID: bundleID, url: url, secret: Self.newSecret(), createdAt: dependencies.now())
        do {
            try await store.setAppWebhook(webhook)
        } catch let error as StoreError where error.kind == .notFound {
            throw APIError.notFound("app_not_found", "There is no app with this bundle id.")
        }
        dependencies.webhooksChanged()
        return JSONBody.response(
            JSONValue.object([
                "bundle_id": .string(bundleID), "url": .string(url), "secret": .string(webhook.secret),
                "created_at": .string(Timestamp.string(webhook.createdAt)),
            ]))
    }

    @Sendable func webhook(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        guard let (webhook, status) = try await store.appWebhook(bundleID: bundleID) else { throw Self.notFound }
        return JSONBody.response(
            JSONValue.object([
                "bundle_id": .string(bundleID), "url": .string(webhook.url),
                "created_at": .string(Timestamp.string(webhook.createdAt)),
                "pending": .number(Double(status.pending)), "delivered": .number(Double(status.delivered)),
                "last_error": .optional(status.lastError),
                "last_failed_at": .optional(status.lastFailedAt.map(Timestamp.string)),
            ]))
    }

    @Sendable func removeWebhook(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        guard try await store.removeAppWebhook(bundleID: bundleID) else { throw Self.notFound }
        return Response(status: .noContent)
    }

    /// The body of `PUT …/webhook`: its `url`, checked.
    static func webhookURL(_ fields: JSONFields) throws -> String {
        try fields.allowOnly(["url"])
        guard let url = try fields.string("url") else { throw APIError.missingField("url") }
        try validate(url: url)
        return url
    }

    /// An absolute http(s) URL with a host, at most 2,048 bytes.
    static func validate(url text: String) throws {
        guard text.utf8.count <= maximumURLLength else {
            throw APIError.invalidField("url", "must be at most \(maximumURLLength) bytes long.")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, !text.contains(where: \.isWhitespace)
        else {
            throw APIError.invalidField("url", "must be an absolute http or https URL with a host.")
        }
    }

    /// What a webhook receives for a response: Standard Webhooks' envelope (`type`, `timestamp`,
    /// `data`), the response as the app's live connection sends it.
    static func body(_ response: NotificationResponseRecord) throws -> String {
        let envelope = JSONValue.object([
            "type": .string("notification.response"),
            "timestamp": .string(Timestamp.string(response.respondedAt)),
            "data": .object([
                "device_id": .string(response.deviceID), "bundle_id": .string(response.bundleID),
                "response": ResponseRoutes.json(response),
            ]),
        ])
        return String(decoding: try JSONBody.encode(envelope), as: UTF8.self)
    }
}
