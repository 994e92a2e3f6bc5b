import Crypto
import Foundation
import HeraldClient
import HeraldCore
import Testing

extension ClientTests {
    @Suite("Provider tokens signed from a .p8 file")
    struct ProviderTokenSigningTests {
        private static let issuedAt = Date(timeIntervalSince1970: 1_700_000_000)

        @Test func aTokenFromAP8FileVerifiesWithItsPublicKey() throws {
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let key = P256.Signing.PrivateKey()
            let file = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
            try key.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)

            let credentials = try APNsCredentials(teamID: "ABCDE12345", keyID: "ABC123DEFG", privateKeyFile: file)
            let token = try credentials.makeToken(issuedAt: Self.issuedAt)

            let parsed = try #require(ProviderToken.parse(Substring(token)))
            #expect(parsed.claims.teamID == "ABCDE12345")
            #expect(parsed.claims.keyID == "ABC123DEFG")
            #expect(parsed.claims.issuedAt == Self.issuedAt)
            #expect(parsed.isSigned(by: key.publicKey))
            #expect(!parsed.isSigned(by: P256.Signing.PrivateKey().publicKey))
        }

        @Test(.enabled(if: isInstalled("openssl"), "needs openssl"))
        func aKeyMadeByOpenSSLLikeApplesDownloadWorks() throws {
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("AuthKey.p8")
            let generated = try runProcess(
                "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", file.path])
            #expect(generated.status == 0, "\(generated.standardError)")

            let credentials = try APNsCredentials(teamID: "ABCDE12345", keyID: "ABC123DEFG", privateKeyFile: file)
            let parsed = try #require(
                ProviderToken.parse(Substring(try credentials.makeToken(issuedAt: Self.issuedAt))))
            #expect(parsed.isSigned(by: credentials.privateKey.publicKey))
            let publicPEM = try APNsCredentials.publicKeyPEM(fromPEM: String(contentsOf: file, encoding: .utf8))
            #expect(parsed.isSigned(by: try P256.Signing.PublicKey(pemRepresentation: publicPEM)))
        }

        @Test func aFileThatIsNotAKeyIsRefusedWithItsPath() throws {
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("not-a-key.p8")
            try "hello".write(to: file, atomically: true, encoding: .utf8)
            let error = #expect(throws: HeraldClientError.self) {
                try APNsCredentials(teamID: "ABCDE12345", keyID: "ABC123DEFG", privateKeyFile: file)
            }
            #expect(error?.description.contains(file.path) == true)
        }

        @Test func theCacheReusesATokenUntilItIsDueForRenewal() async throws {
            let credentials = APNsCredentials(
                teamID: "ABCDE12345", keyID: "ABC123DEFG", privateKey: P256.Signing.PrivateKey())
            let cache = ProviderTokenCache(credentials: credentials)
            let first = try await cache.token(now: Self.issuedAt)
            // Within 50 minutes: the same token, so APNs never answers TooManyProviderTokenUpdates.
            #expect(try await cache.token(now: Self.issuedAt.addingTimeInterval(49 * 60)) == first)
            // After 50 minutes (before APNs's one-hour expiry): a new token dated now.
            let renewed = try await cache.token(now: Self.issuedAt.addingTimeInterval(50 * 60))
            #expect(renewed != first)
            #expect(
                ProviderToken.parse(Substring(renewed))?.claims.issuedAt == Self.issuedAt.addingTimeInterval(50 * 60))
        }
    }
}
