import Crypto
import Foundation
import HeraldCore
import Testing

@Suite("Provider tokens (JWT)")
struct ProviderAuthTests {
    let fixture = Fixture()

    func authenticate(_ state: inout ProviderAuthState, _ header: String?, at now: Date = Fixture.epoch) -> String? {
        switch state.authenticate(authorization: header, registry: fixture.registry, now: now) {
        case .success: nil
        case .failure(let failure): failure.reason.reason
        }
    }

    /// Found by the `provider-token` fuzz target: `make` put the ids into its JSON as they were, so a
    /// team id with a control character, `"` or `\` made a token that no parser reads.
    @Test("make writes any team and key id as JSON strings, and the token parses back to them")
    func makeEscapesIdentifiers() throws {
        let key = P256.Signing.PrivateKey()
        for (team, keyID) in [("TEAM\u{0}\u{1F}", "KEY"), ("a\"b", "c\\d"), ("é😀", "\n\t")] {
            let token = try ProviderToken.make(
                teamID: team, keyID: keyID, issuedAt: Date(timeIntervalSince1970: 1_700_000_000), key: key)
            let parsed = try #require(ProviderToken.parse(Substring(token)), "\(team.debugDescription)")
            #expect(parsed.claims.teamID == team)
            #expect(parsed.claims.keyID == keyID)
            #expect(parsed.claims.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(parsed.isSigned(by: key.publicKey))
        }
    }

    @Test("a missing or non-bearer authorization is MissingProviderToken")
    func missing() {
        var state = ProviderAuthState()
        #expect(authenticate(&state, nil) == "MissingProviderToken")
        #expect(authenticate(&state, "basic abc") == "MissingProviderToken")
    }

    /// Found by the `provider-token` fuzz target: the scheme's letters were compared without case by
    /// OR-ing 0x20, and so was its space — which let a NUL (0x00 | 0x20) stand for the space.
    @Test("the scheme is `bearer` in any case, then exactly a space: a NUL or a tab does not do")
    func schemeSeparator() {
        let jwt = fixture.jwt()
        var state = ProviderAuthState()
        #expect(authenticate(&state, "BeArEr \(jwt)") == nil)
        for separator in ["\u{0}", "\t", "@"] {
            var fresh = ProviderAuthState()
            #expect(
                authenticate(&fresh, "bearer\(separator)\(jwt)") == "MissingProviderToken",
                "\(separator.debugDescription)")
        }
    }

    @Test("garbage, unknown keys and bad signatures are InvalidProviderToken")
    func invalid() {
        var state = ProviderAuthState()
        #expect(authenticate(&state, "bearer abc.def.ghi") == "InvalidProviderToken")
        #expect(authenticate(&state, "bearer " + fixture.jwt(keyID: "NOSUCHKEY1")) == "InvalidProviderToken")
        #expect(authenticate(&state, "bearer " + fixture.jwt(key: P256.Signing.PrivateKey())) == "InvalidProviderToken")
    }

    @Test("a key of another team than the issuer is UnrelatedKeyIdInToken")
    func unrelatedKey() {
        var state = ProviderAuthState()
        #expect(
            authenticate(&state, "bearer " + fixture.jwt(key: fixture.otherKey, keyID: "OTHERKEY01"))
                == "UnrelatedKeyIdInToken")
    }

    @Test("DER signatures (Apple's openssl recipe) are accepted like raw R||S ones")
    func derSignature() throws {
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY1234567","typ":"JWT"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"iss":"TEAM123456","iat":"1800000000","extra":true}"#.utf8))
        let signature = try fixture.key.signature(for: Data("\(header).\(claims)".utf8))
        var state = ProviderAuthState()
        #expect(
            authenticate(&state, "bearer \(header).\(claims).\(Base64URL.encode(signature.derRepresentation))") == nil)
    }

    @Test("iat may be a float")
    func floatIssuedAt() throws {
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY1234567"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"iss":"TEAM123456","iat":1800000000.25}"#.utf8))
        let signature = try fixture.key.signature(for: Data("\(header).\(claims)".utf8))
        var state = ProviderAuthState()
        #expect(
            authenticate(&state, "bearer \(header).\(claims).\(Base64URL.encode(signature.rawRepresentation))") == nil)
    }

    @Test("a token older than an hour is ExpiredProviderToken, also when cached")
    func expiry() {
        var state = ProviderAuthState()
        let token = "bearer " + fixture.jwt()
        #expect(authenticate(&state, token, at: Fixture.epoch.addingTimeInterval(3601)) == "ExpiredProviderToken")
        #expect(authenticate(&state, token, at: Fixture.epoch.addingTimeInterval(60)) == nil)
        #expect(authenticate(&state, token, at: Fixture.epoch.addingTimeInterval(3601)) == "ExpiredProviderToken")
    }

    @Test("a token dated more than five minutes ahead is InvalidProviderToken")
    func futureToken() {
        var state = ProviderAuthState()
        #expect(
            authenticate(&state, "bearer " + fixture.jwt(issuedAt: Fixture.epoch.addingTimeInterval(301)))
                == "InvalidProviderToken")
        #expect(authenticate(&state, "bearer " + fixture.jwt(issuedAt: Fixture.epoch.addingTimeInterval(60))) == nil)
    }

    @Test("a new token within 20 minutes on one connection is TooManyProviderTokenUpdates")
    func refreshRate() {
        var state = ProviderAuthState()
        #expect(authenticate(&state, "bearer " + fixture.jwt()) == nil)
        let second = "bearer " + fixture.jwt(issuedAt: Fixture.epoch.addingTimeInterval(60))
        #expect(
            authenticate(&state, second, at: Fixture.epoch.addingTimeInterval(120)) == "TooManyProviderTokenUpdates")
        // The refused token changed nothing: the first one still works.
        #expect(authenticate(&state, "bearer " + fixture.jwt(), at: Fixture.epoch.addingTimeInterval(130)) == nil)
        let later = "bearer " + fixture.jwt(issuedAt: Fixture.epoch.addingTimeInterval(1300))
        #expect(authenticate(&state, later, at: Fixture.epoch.addingTimeInterval(1300)) == nil)
    }

    @Test("the connection is bound to the team of its first token")
    func teamBinding() {
        var state = ProviderAuthState()
        #expect(authenticate(&state, "bearer " + fixture.jwt()) == nil)
        let other =
            "bearer "
            + fixture.jwt(
                key: fixture.otherKey, keyID: "OTHERKEY01", teamID: "OTHERTEAM1",
                issuedAt: Fixture.epoch.addingTimeInterval(1300))
        #expect(authenticate(&state, other, at: Fixture.epoch.addingTimeInterval(1300)) == "InvalidProviderToken")
        #expect(state.boundTeamID == "TEAM123456")
    }

    @Test("a topic-scoped key can't push to other topics")
    func scopedKey() {
        let token = fixture.jwt(key: fixture.scopedKey, keyID: "SCOPEDKEY1")
        let demo = fixture.request(headers: [("authorization", "bearer \(token)"), ("apns-topic", "com.example.demo")])
        #expect(fixture.reason(demo) == "InvalidProviderToken")
        let other = fixture.request(
            token: fixture.otherAppToken,
            headers: [("authorization", "bearer \(token)"), ("apns-topic", "com.example.other")])
        #expect(fixture.reason(other) == nil)
    }
}
