import Crypto
import Foundation
import HeraldCore
import HeraldStore

extension RegistryService {
    /// A signing key as registered, with its private key when Herald generated it.
    public struct CreatedKey: Hashable, Sendable {
        /// The key as registered (its public key as PEM).
        public var key: SigningKey
        /// The private key (PKCS#8 PEM) when Herald generated it; returned this once.
        public var privateKeyPEM: String?
        /// The file the generated private key was written to (`keys/AuthKey_<KEYID>.p8`).
        public var keyPath: String?
    }

    /// The directory generated private keys are written to.
    public var keysDirectory: URL { dataDirectory.appendingPathComponent("keys", isDirectory: true) }

    /// Registers a token-signing key of an existing team. With `publicKeyPEM`, that P-256 public
    /// key; without, Herald generates a P-256 key pair and writes the private key to
    /// `keys/AuthKey_<KEYID>.p8` (mode 0600). `keyID` (10 uppercase letters or digits) is generated
    /// when absent; `topics` limits the key to those bundle ids (nil: every app of the team).
    public func createKey(
        teamID: String, keyID: String? = nil, topics: [String]? = nil, publicKeyPEM: String? = nil
    ) async throws -> CreatedKey {
        guard Team.isValidIdentifier(teamID) else {
            throw APIError.invalidField("team_id", "must be 10 uppercase letters or digits.")
        }
        if let keyID, !Team.isValidIdentifier(keyID) {
            throw APIError.invalidField("key_id", "must be 10 uppercase letters or digits.")
        }
        if let topics {
            guard !topics.isEmpty else {
                throw APIError.invalidField(
                    "topics", "must list at least one bundle id, or be left out for a team-wide key.")
            }
            guard topics.allSatisfy(Self.isValidBundleID) else {
                throw APIError.invalidField("topics", "must be bundle ids (letters, digits, `-` and `.`).")
            }
        }
        var publicKey: P256.Signing.PublicKey?
        if let publicKeyPEM {
            guard let parsed = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) else {
                throw APIError.invalidField(
                    "public_key_pem", "must be a P-256 public key in PEM (SubjectPublicKeyInfo).")
            }
            publicKey = parsed
        }
        guard try await store.teams().contains(where: { $0.teamID == teamID }) else {
            throw APIError.notFound("team_not_found", "There is no team with this id.")
        }
        var generator = SystemRandomNumberGenerator()
        let keyID = keyID ?? Self.makeKeyID(using: &generator)
        if cache.snapshot.keys[keyID] != nil {
            throw APIError.conflict("key_exists", "A key with this id exists.")
        }

        var created = CreatedKey(
            key: SigningKey(keyID: keyID, teamID: teamID, topics: topics, publicKeyPEM: "", createdAt: now())
        )
        if let publicKey {
            created.key.publicKeyPEM = publicKey.pemRepresentation
        } else {
            let privateKey = P256.Signing.PrivateKey()
            let path = try writePrivateKey(privateKey, keyID: keyID)
            created.key.publicKeyPEM = privateKey.publicKey.pemRepresentation
            created.privateKeyPEM = privateKey.pemRepresentation
            created.keyPath = path
        }
        do {
            try await mapStoreErrors(
                conflict: ("key_exists", "A key with this id exists."),
                notFound: ("team_not_found", "There is no team with this id.")
            ) {
                try await store.createKey(created.key)
            }
        } catch {
            if let path = created.keyPath { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
        let key = created.key
        cache.update { $0.upsert(key) }
        return created
    }

    /// Writes a generated private key as `keys/AuthKey_<KEYID>.p8`; never replaces a file.
    private func writePrivateKey(_ key: P256.Signing.PrivateKey, keyID: String) throws -> String {
        let directory = keysDirectory
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        let path = directory.appendingPathComponent("AuthKey_\(keyID).p8").path
        do {
            try PrivateKeyFile.create(at: path, contents: key.pemRepresentation + "\n")
        } catch let error as PrivateKeyFile.WriteError where error.exists {
            throw APIError.conflict("key_exists", "A private key file for this key id exists in the data directory.")
        }
        return path
    }
}
