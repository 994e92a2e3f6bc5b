import Crypto
import Foundation
import HeraldCore

/// The provider token (JWT) check: `ProviderToken.parse` and `ProviderAuthState.authenticate`
/// (HeraldCore), with `Base64URL` and `ProviderToken.make` as their inverses.
///
/// The input is read three ways:
/// - as an `authorization` header (`$TOKEN` stands for a validly signed token): a token is accepted
///   only when its signature really verifies with the registry's key for its `kid`, its `iss` is that
///   key's team, and its `iat` is within the last hour (and at most 5 minutes ahead); the answer is the
///   same when asked twice; a refusal leaves the connection's state unchanged;
/// - as bytes: `Base64URL.decode(Base64URL.encode(bytes))` gives the bytes back;
/// - as a team id, a key id and a time: `ProviderToken.make` of them parses back to the same claims.
enum ProviderTokenTarget {
    static let target = FuzzTarget(
        name: "provider-token",
        property: "ProviderToken/ProviderAuthState: only a verified, current token of the key's team is accepted; "
            + "Base64URL and make/parse round-trip",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        try authenticate(input)
        let encoded = Base64URL.encode(input)
        try require(
            Base64URL.decode(Substring(encoded)).map(Array.init) == input, "Base64URL does not round-trip \(input)")
        try roundTrip(input)
    }

    private static func authenticate(_ input: [UInt8]) throws {
        let registry = PushValidatorTarget.registry
        let now = PushValidatorTarget.now
        let header = String(decoding: input, as: UTF8.self)
            .replacingOccurrences(of: "$TOKEN", with: PushValidatorTarget.providerToken)
        var state = ProviderAuthState()
        let result = state.authenticate(authorization: header, registry: registry, now: now)
        var again = ProviderAuthState()
        let second = again.authenticate(authorization: header, registry: registry, now: now)
        try require("\(result)" == "\(second)", "two checks of one token differ: \(result), \(second)")
        switch result {
        case .failure(let failure):
            try require(state.boundTeamID == nil, "a refused token (\(failure.reason)) bound a team")
        case .success(let claims):
            // Re-check independently of ProviderAuthState: the header's token, split by hand.
            let words = header.split(whereSeparator: { $0 == " " || $0 == "\t" })
            try require(words.count == 2 && words[0].lowercased() == "bearer", "accepted header \(header)")
            let parts = words[1].split(separator: ".", omittingEmptySubsequences: false)
            try require(parts.count == 3, "accepted a token of \(parts.count) parts")
            guard let signature = Base64URL.decode(parts[2]) else {
                throw PropertyViolation("accepted a token whose signature is not base64url")
            }
            let signed = Data("\(parts[0]).\(parts[1])".utf8)
            let key = PushValidatorTarget.privateKey.publicKey
            let verifies =
                (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map {
                    key.isValidSignature($0, for: signed)
                } ?? false
                || (try? P256.Signing.ECDSASignature(derRepresentation: signature)).map {
                    key.isValidSignature($0, for: signed)
                } ?? false
            try require(verifies, "accepted a token whose signature does not verify: \(words[1])")
            try require(claims.keyID == PushValidatorTarget.keyID, "accepted kid \(claims.keyID)")
            try require(claims.teamID == PushValidatorTarget.teamID, "accepted iss \(claims.teamID)")
            let age = now.timeIntervalSince(claims.issuedAt)
            try require(age <= 3600 && age >= -300, "accepted a token issued \(age) s ago")
            try require(state.boundTeamID == claims.teamID, "an accepted token did not bind its team")
        }
    }

    private static func roundTrip(_ input: [UInt8]) throws {
        var reader = FuzzReader(input)
        let teamID = String(decoding: reader.shortRun(), as: UTF8.self)
        let keyID = String(decoding: reader.shortRun(), as: UTF8.self)
        let seconds = Int64(Int32(truncatingIfNeeded: reader.uint16() << 16 | reader.uint16())) + 1_700_000_000
        let token: String
        do {
            token = try ProviderToken.make(
                teamID: teamID, keyID: keyID, issuedAt: Date(timeIntervalSince1970: TimeInterval(seconds)),
                key: PushValidatorTarget.privateKey)
        } catch {
            throw PropertyViolation("ProviderToken.make failed: \(error)")
        }
        guard let parsed = ProviderToken.parse(Substring(token)) else {
            throw PropertyViolation(
                "ProviderToken.make(teamID: \(teamID.debugDescription), keyID: \(keyID.debugDescription)) made a "
                    + "token that does not parse: \(token)")
        }
        try require(
            parsed.claims.teamID == teamID && parsed.claims.keyID == keyID
                && parsed.claims.issuedAt == Date(timeIntervalSince1970: TimeInterval(seconds)),
            "made for \(teamID.debugDescription) \(keyID.debugDescription) \(seconds), parsed as \(parsed.claims)")
        try require(parsed.isSigned(by: PushValidatorTarget.privateKey.publicKey), "a made token is not signed")
    }
}
