import Crypto
import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdCore

/// Who may call a route: the admin, by the admin token; a device's owner, by the user's token; one
/// app on one device, by that app's credential (the app API).
struct Authenticator: Sendable {
    private let adminTokenDigest: SHA256.Digest?
    private let store: any HeraldStore

    init(adminToken: String, store: any HeraldStore) {
        self.adminTokenDigest = adminToken.isEmpty ? nil : SHA256.hash(data: Data(adminToken.utf8))
        self.store = store
    }

    /// The bearer token of `Authorization: Bearer …`; nil when the header is absent.
    /// Throws 401 when the header is there but is not a bearer token.
    static func bearerToken(in headers: HTTPFields) throws -> String? {
        guard let value = headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("The Authorization header must be `Bearer <token>`.")
        }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The bearer token of a device request: the Authorization header, else `?access_token=`
    /// (browsers can't set headers on EventSource or WebSocket).
    static func deviceToken(headers: HTTPFields, uri: URI) throws -> String? {
        if let token = try bearerToken(in: headers) { return token }
        return uri.queryParameters.get("access_token").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `handler`, run only for requests that carry the admin token (401 otherwise).
    func adminOnly(
        _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { [self] request, context in
            try requireAdmin(request)
            return try await handler(request, context)
        }
    }

    /// Throws 401 unless the request carries the admin token.
    func requireAdmin(_ request: Request) throws {
        guard let token = try Self.bearerToken(in: request.headers) else {
            throw APIError.unauthorized("This route needs the admin token: `Authorization: Bearer <admin token>`.")
        }
        // Digests compare in constant time.
        guard let adminTokenDigest, SHA256.hash(data: Data(token.utf8)) == adminTokenDigest else {
            throw APIError.unauthorized("The admin token is not valid.")
        }
    }

    /// The device, when the request's user token belongs to its owner. A device of another user
    /// answers exactly like one that does not exist.
    func requireDevice(_ deviceID: String, request: Request) async throws -> Device {
        try await requireDevice(deviceID, token: Self.deviceToken(headers: request.headers, uri: request.uri))
    }

    /// The user whose bearer token the request carries (401 otherwise).
    func requireUser(_ request: Request) async throws -> User {
        try await requireUser(token: Self.deviceToken(headers: request.headers, uri: request.uri))
    }

    /// The user whose bearer token `token` is (401 otherwise).
    func requireUser(token: String?) async throws -> User {
        guard let token else {
            throw APIError.unauthorized(
                "This route needs a user token: `Authorization: Bearer <token>` or `?access_token=`.")
        }
        guard let user = try await store.user(tokenDigest: RegistryService.tokenDigest(token)) else {
            throw APIError.unauthorized("The user token is not valid.")
        }
        return user
    }

    /// The device, when `token` is its owner's bearer token.
    func requireDevice(_ deviceID: String, token: String?) async throws -> Device {
        let user = try await requireUser(token: token)
        guard let device = try await store.device(id: deviceID), device.userID == user.userID else {
            throw APIError.deviceNotFound
        }
        return device
    }

    /// The app and device whose credential the request carries (401 otherwise). App credentials are
    /// bearer tokens only in the Authorization header (an app is not a browser).
    func requireAppCredential(_ request: Request) async throws -> AppCredentialRecord {
        guard let token = try Self.bearerToken(in: request.headers) else {
            throw APIError.unauthorized("This route needs an app credential: `Authorization: Bearer <app credential>`.")
        }
        guard let credential = try await store.appCredential(tokenDigest: RegistryService.tokenDigest(token)) else {
            throw APIError.unauthorized("The app credential is not valid.")
        }
        return credential
    }
}
