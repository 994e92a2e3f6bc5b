/// Rules for device tokens as they appear in `/3/device/<token>`.
public enum DeviceTokenFormat {
    /// Whether a token is non-empty, even-length hexadecimal (APNs: don't assume a size).
    public static func isWellFormed(_ token: Substring) -> Bool {
        guard !token.isEmpty, token.utf8.count % 2 == 0, token.utf8.count <= 400 else { return false }
        return token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
        }
    }

    /// The canonical (lowercase) spelling Herald stores tokens under.
    public static func canonical(_ token: Substring) -> String {
        token.lowercased()
    }

    /// A canonical 64-hex-digit token made from 32 random bytes.
    public static func make<R: RandomNumberGenerator>(using generator: inout R) -> String {
        var hex = ""
        hex.reserveCapacity(64)
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            hex += String(byte >> 4, radix: 16) + String(byte & 0x0f, radix: 16)
        }
        return hex
    }
}

/// Rules for `apns-id` and other UUID strings.
public enum APNsID {
    /// Whether `value` is a canonical 8-4-4-4-12 hexadecimal UUID (either case).
    public static func isValid(_ value: String) -> Bool {
        let utf8 = Array(value.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)) {
                return false
            }
        }
        return true
    }

    /// A lowercase random UUID string (APNs clients compare apns-id byte for byte).
    public static func make<R: RandomNumberGenerator>(using generator: inout R) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
