import Foundation

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
        needsLowercasing(token.utf8) ? token.lowercased() : String(token)
    }

    /// Whether `text` has an ASCII uppercase letter or a non-ASCII byte: whether lowercasing it could
    /// change it (the push path skips the new string when it cannot).
    static func needsLowercasing(_ text: some Sequence<UInt8>) -> Bool {
        text.contains { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }
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
    /// The id in lowercase, as a notification's id is kept: `id` itself when it has no uppercase
    /// letter (Herald's own ids, and most providers'), so the push path makes no new string for it.
    public static func canonical(_ id: String) -> String {
        DeviceTokenFormat.needsLowercasing(id.utf8) ? id.lowercased() : id
    }

    /// Whether `value` is a canonical 8-4-4-4-12 hexadecimal UUID (either case).
    public static func isValid(_ value: String) -> Bool {
        let utf8 = value.utf8
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
                || (byte >= 0x41 && byte <= 0x46))
            {
                return false
            }
        }
        return true
    }

    /// A lowercase random UUID string (APNs clients compare apns-id byte for byte).
    public static func make<R: RandomNumberGenerator>(using generator: inout R) -> String {
        let high = generator.next()
        let low = generator.next()
        return format(high: high, low: low) { bytes in
            bytes[6] = (bytes[6] & 0x0f) | 0x40
            bytes[8] = (bytes[8] & 0x3f) | 0x80
        }
    }

    /// A lowercase time-ordered UUID (version 7: 48 bits of milliseconds, then random bits).
    ///
    /// Ids made one after another sort in time order, so a store's index on them grows at its end
    /// instead of touching random pages: the ids Herald generates for pushes without `apns-id`.
    public static func makeTimeOrdered<R: RandomNumberGenerator>(at date: Date, using generator: inout R) -> String {
        let high = generator.next()
        let low = generator.next()
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        return format(high: high, low: low) { bytes in
            for index in 0..<6 {
                bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index)))
            }
            bytes[6] = (bytes[6] & 0x0f) | 0x70
            bytes[8] = (bytes[8] & 0x3f) | 0x80
        }
    }

    /// The 8-4-4-4-12 lowercase hex of 16 bytes — byte `i` of `high` (least significant first),
    /// then of `low` — once `adjust` has set the version and variant bits. Two ids are made per
    /// push (`apns-id`, `apns-unique-id`): written straight into the string's storage, with no
    /// array of bytes or of characters on the way.
    private static func format(
        high: UInt64, low: UInt64, adjust: (UnsafeMutableRawBufferPointer) -> Void
    ) -> String {
        var bytes:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<8 {
                raw[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index)))
                raw[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
            }
            adjust(raw)
        }
        return withUnsafeBytes(of: bytes) { raw in
            String(unsafeUninitializedCapacity: 36) { characters in
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        characters[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    characters[at] = hexDigit(raw[index] >> 4)
                    characters[at + 1] = hexDigit(raw[index] & 0x0f)
                    at += 2
                }
                return at
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
