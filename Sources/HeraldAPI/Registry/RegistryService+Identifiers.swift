import Foundation
import HeraldCore

extension RegistryService {
    /// A display name: trimmed, at most 200 characters; nil when absent or blank.
    static func name(_ name: String?, field: String) throws -> String? {
        guard let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= 200 else { throw APIError.invalidField(field, "must be at most 200 characters.") }
        return trimmed
    }

    /// Whether `bundleID` looks like an app's bundle id: letters, digits, `-` and `.`, no empty
    /// component, at most 255 bytes.
    static func isValidBundleID(_ bundleID: String) -> Bool {
        guard !bundleID.isEmpty, bundleID.utf8.count <= 255 else { return false }
        let components = bundleID.split(separator: ".", omittingEmptySubsequences: false)
        return components.allSatisfy { component in
            !component.isEmpty
                && component.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == UInt8(ascii: "-")
                }
        }
    }

    /// A lowercase random UUID: the id of a new user or device.
    static func makeIdentifier<R: RandomNumberGenerator>(using generator: inout R) -> String {
        APNsID.make(using: &generator)
    }

    /// A bearer token: 32 random bytes, base64url (43 characters, safe in a query string).
    static func makeBearerToken<R: RandomNumberGenerator>(using generator: inout R) -> String {
        BearerToken.make(using: &generator)
    }

    /// A key id like Apple's: 10 uppercase letters or digits.
    static func makeKeyID<R: RandomNumberGenerator>(using generator: inout R) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
