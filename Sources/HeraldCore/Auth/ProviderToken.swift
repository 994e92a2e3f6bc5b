import Crypto
import Foundation

/// The claims of an APNs provider token (JWT) that Herald uses.
public struct ProviderTokenClaims: Hashable, Sendable {
    /// The `kid` header: the 10-character key id.
    public let keyID: String
    /// The `iss` claim: the 10-character team id.
    public let teamID: String
    /// The `iat` claim.
    public let issuedAt: Date
}

/// A provider token split into its parts, not yet verified.
public struct ParsedProviderToken: Sendable {
    public let claims: ProviderTokenClaims
    let signingInput: Data
    let signature: Data

    /// Whether the token is signed by `key`, with the signature either raw R‖S (JWS) or DER
    /// (Apple's `openssl dgst -sha256 -sign` recipe produces DER; APNs accepts both).
    public func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        if signature.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature) {
            return key.isValidSignature(raw, for: signingInput)
        }
        if let der = try? P256.Signing.ECDSASignature(derRepresentation: signature) {
            return key.isValidSignature(der, for: signingInput)
        }
        return false
    }
}

/// Parsing and signing of APNs provider tokens (ES256 JWTs).
public enum ProviderToken {
    /// Splits and decodes a JWT; nil when it is not a well-formed ES256 token with `kid`, `iss` and `iat`.
    /// `iat` may be an integer, a float (PyAPNs2) or a numeric string (APNSwift); `typ` and
    /// extra claims are ignored.
    public static func parse(_ token: Substring) -> ParsedProviderToken? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]),
            let claimsData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode([String: JSONValue].self, from: headerData),
            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: claimsData),
            header["alg"]?.stringValue == "ES256",
            let keyID = header["kid"]?.stringValue,
            let teamID = claims["iss"]?.stringValue,
            let issuedAt = claims["iat"]?.lenientNumber, issuedAt.isFinite
        else { return nil }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        return ParsedProviderToken(
            claims: ProviderTokenClaims(keyID: keyID, teamID: teamID, issuedAt: Date(timeIntervalSince1970: issuedAt)),
            signingInput: signingInput,
            signature: signature
        )
    }

    /// Makes a provider token signed with `key`, with a raw R‖S signature as JWS prescribes.
    public static func make(teamID: String, keyID: String, issuedAt: Date, key: P256.Signing.PrivateKey) throws
        -> String
    {
        // Written with JSONWriter, which escapes: an id with `"`, `\` or a control character must
        // still make JSON (the provider-token fuzz target found tokens that did not parse).
        var headerJSON = JSONWriter(capacity: 64)
        headerJSON.beginObject()
        headerJSON.literalKey("alg")
        headerJSON.string("ES256")
        headerJSON.literalKey("kid")
        headerJSON.string(keyID)
        headerJSON.endObject()
        var claimsJSON = JSONWriter(capacity: 64)
        claimsJSON.beginObject()
        claimsJSON.literalKey("iss")
        claimsJSON.string(teamID)
        claimsJSON.literalKey("iat")
        claimsJSON.integer(Int64(issuedAt.timeIntervalSince1970))
        claimsJSON.endObject()
        let header = Base64URL.encode(headerJSON.bytes)
        let claims = Base64URL.encode(claimsJSON.bytes)
        let signingInput = Data("\(header).\(claims)".utf8)
        let signature = try key.signature(for: signingInput)
        return "\(header).\(claims).\(Base64URL.encode(signature.rawRepresentation))"
    }
}
