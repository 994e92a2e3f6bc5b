import Crypto
import Foundation
import HeraldCore

/// A provider's signing identity for token-based APNs authentication: team id, key id and the
/// P-256 private key of that key id (the `.p8` file Apple — or Herald — hands out).
public struct APNsCredentials: Sendable {
    /// The 10-character team id (the JWT `iss`).
    public var teamID: String
    /// The 10-character key id (the JWT `kid`).
    public var keyID: String
    /// The private key that signs provider tokens.
    public var privateKey: P256.Signing.PrivateKey

    /// Credentials from a key already in memory.
    public init(teamID: String, keyID: String, privateKey: P256.Signing.PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
    }

    /// Credentials whose key is read from a `.p8` file (PKCS#8 PEM, as Apple's download).
    public init(teamID: String, keyID: String, privateKeyFile: URL) throws {
        let pem: String
        do {
            pem = try String(contentsOf: privateKeyFile, encoding: .utf8)
        } catch {
            throw HeraldClientError("Cannot read the key file \(privateKeyFile.path): \(error.localizedDescription)")
        }
        do {
            self.init(teamID: teamID, keyID: keyID, privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
        } catch {
            throw HeraldClientError("\(privateKeyFile.path) is not a P-256 private key in PEM (.p8) format.")
        }
    }

    /// A new provider token (ES256 JWT) issued at `issuedAt`.
    public func makeToken(issuedAt: Date) throws -> String {
        try ProviderToken.make(teamID: teamID, keyID: keyID, issuedAt: issuedAt, key: privateKey)
    }
}

/// Reuses one provider token until it is due for renewal, as APNs asks: a connection that changes
/// its token more often than every 20 minutes gets 429 TooManyProviderTokenUpdates, and a token
/// older than an hour gets 403 ExpiredProviderToken.
public actor ProviderTokenCache {
    /// How long a token is reused: between APNs's 20-minute minimum and its one-hour maximum.
    public static let defaultRenewalInterval: TimeInterval = 50 * 60

    private let credentials: APNsCredentials
    private let renewalInterval: TimeInterval
    private var current: (token: String, issuedAt: Date)?

    /// A cache that signs with `credentials` and renews every `renewalInterval` seconds.
    public init(credentials: APNsCredentials, renewalInterval: TimeInterval = defaultRenewalInterval) {
        self.credentials = credentials
        self.renewalInterval = renewalInterval
    }

    /// The token to send at `now`: the current one, or a new one when it is due for renewal.
    public func token(now: Date) throws -> String {
        if let current, now.timeIntervalSince(current.issuedAt) < renewalInterval, now >= current.issuedAt {
            return current.token
        }
        let token = try credentials.makeToken(issuedAt: now)
        current = (token, now)
        return token
    }
}

extension APNsCredentials {
    /// The public key of a PEM file as PEM (SubjectPublicKeyInfo), for registering a key with
    /// Herald: the file may hold the public key, or the private key (`.p8`) it is derived from.
    public static func publicKeyPEM(fromPEM pem: String) throws -> String {
        if let publicKey = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            return publicKey.pemRepresentation
        }
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            return privateKey.publicKey.pemRepresentation
        }
        throw HeraldClientError("The file holds no P-256 public or private key in PEM format.")
    }
}
