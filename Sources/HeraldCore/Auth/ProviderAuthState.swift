import Foundation

/// The provider-token state of one APNs connection.
///
/// A token is verified once per connection and its result cached; the team of the first accepted
/// token is bound to the connection, and a new token within 20 minutes of the current one is refused.
public struct ProviderAuthState: Sendable {
    /// How old a token's `iat` may be before APNs calls it expired.
    public static let tokenLifetime: TimeInterval = 3600
    /// How soon after the current token a new one may be sent on the same connection.
    public static let minimumRefreshInterval: TimeInterval = 20 * 60
    /// How far in the future an `iat` may be (clock skew) before the token is refused: a token
    /// dated ahead would sidestep the one-hour lifetime.
    public static let allowedClockSkew: TimeInterval = 5 * 60

    /// The team bound to the connection at its first accepted push.
    public private(set) var boundTeamID: String?
    private var currentToken: String?
    /// The `authorization` header that carried `currentToken`, as sent: a request with the same header
    /// is checked without making the token a string of its own (a ~170-byte copy on every push).
    private var currentHeader: String?
    private var currentClaims: ProviderTokenClaims?

    public init() {}

    /// The token of a `bearer <token>` header (scheme in any case, spaces around the token
    /// ignored), without going through Foundation's string functions: this runs on every push.
    static func bearerToken(_ header: String) -> String? {
        let utf8 = header.utf8
        guard utf8.count > 7 else { return nil }
        // The letters in any case (`| 0x20` lowercases an ASCII letter), then exactly a space: folding
        // the space too let a NUL (0x00 | 0x20 == 0x20) pass for it (found by the provider-token fuzz target).
        let scheme = Array("bearer".utf8)
        for (offset, byte) in utf8.prefix(6).enumerated() where byte | 0x20 != scheme[offset] {
            return nil
        }
        guard utf8[utf8.index(utf8.startIndex, offsetBy: 6)] == 0x20 else { return nil }
        let rest = utf8.dropFirst(7)
        guard let first = rest.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = rest.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return nil }
        return String(Substring(rest[first...last]))
    }

    /// Authenticates the `authorization` header of one request.
    public mutating func authenticate(
        authorization: String?,
        registry: RegistrySnapshot,
        now: Date
    ) -> Result<ProviderTokenClaims, APNsFailure> {
        if let authorization, authorization == currentHeader, let claims = currentClaims {
            return Self.cached(claims, registry: registry, now: now)
        }
        guard let authorization, let token = Self.bearerToken(authorization) else {
            return .failure(APNsFailure(.missingProviderToken))
        }

        if token == currentToken, let claims = currentClaims {
            currentHeader = authorization
            return Self.cached(claims, registry: registry, now: now)
        }

        guard let parsed = ProviderToken.parse(Substring(token)),
            let key = registry.keys[parsed.claims.keyID],
            let publicKey = registry.publicKeys[parsed.claims.keyID]
        else { return .failure(APNsFailure(.invalidProviderToken)) }
        let claims = parsed.claims
        guard key.teamID == claims.teamID else { return .failure(APNsFailure(.unrelatedKeyIdInToken)) }
        guard parsed.isSigned(by: publicKey) else { return .failure(APNsFailure(.invalidProviderToken)) }
        if let boundTeamID, boundTeamID != claims.teamID { return .failure(APNsFailure(.invalidProviderToken)) }
        guard now.timeIntervalSince(claims.issuedAt) <= Self.tokenLifetime else {
            return .failure(APNsFailure(.expiredProviderToken))
        }
        guard claims.issuedAt.timeIntervalSince(now) <= Self.allowedClockSkew else {
            return .failure(APNsFailure(.invalidProviderToken))
        }
        // The same claims signed again (ECDSA signatures differ each time) are the same token.
        if let currentClaims, currentClaims != claims,
            now.timeIntervalSince(currentClaims.issuedAt) < Self.minimumRefreshInterval
        {
            return .failure(APNsFailure(.tooManyProviderTokenUpdates))
        }
        currentToken = token
        currentHeader = authorization
        currentClaims = claims
        boundTeamID = claims.teamID
        return .success(claims)
    }

    /// A token whose signature was verified when it first arrived: still valid while its key is
    /// registered and it is not older than an hour.
    private static func cached(
        _ claims: ProviderTokenClaims, registry: RegistrySnapshot, now: Date
    ) -> Result<ProviderTokenClaims, APNsFailure> {
        guard registry.keys[claims.keyID] != nil else { return .failure(APNsFailure(.invalidProviderToken)) }
        guard now.timeIntervalSince(claims.issuedAt) <= tokenLifetime else {
            return .failure(APNsFailure(.expiredProviderToken))
        }
        return .success(claims)
    }
}
