import HeraldCore

/// The device-token and `apns-id` formats (`DeviceTokenFormat`, `APNsID` in HeraldCore).
///
/// The property: `isWellFormed` says yes exactly for 2…400 hexadecimal digits in an even count, its
/// canonical spelling is the same token in lowercase (and canonical again is itself); `APNsID.isValid`
/// says yes exactly for a 8-4-4-4-12 hexadecimal UUID. Each side is checked against a plain
/// re-statement of the rule.
enum DeviceTokenTarget {
    static let target = FuzzTarget(
        name: "device-token",
        property:
            "DeviceTokenFormat/APNsID: accept exactly the documented formats; canonical is lowercase and idempotent",
        check: run
    )

    static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    static func run(_ input: [UInt8]) throws {
        let text = String(decoding: input, as: UTF8.self)
        let bytes = Array(text.utf8)
        let token = Substring(text)
        let expected = !bytes.isEmpty && bytes.count % 2 == 0 && bytes.count <= 400 && bytes.allSatisfy(isHex)
        try require(
            DeviceTokenFormat.isWellFormed(token) == expected,
            "isWellFormed(\(text.debugDescription)) is not \(expected)")
        if expected {
            let canonical = DeviceTokenFormat.canonical(token)
            try require(
                Array(canonical.utf8) == bytes.map { (0x41...0x46).contains($0) ? $0 + 0x20 : $0 },
                "canonical(\(text)) is \(canonical)")
            try require(DeviceTokenFormat.isWellFormed(Substring(canonical)), "canonical(\(text)) is not well formed")
            try require(DeviceTokenFormat.canonical(Substring(canonical)) == canonical, "canonical is not idempotent")
        }
        let isUUID =
            bytes.count == 36
            && bytes.enumerated().allSatisfy { index, byte in
                [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : isHex(byte)
            }
        try require(APNsID.isValid(text) == isUUID, "APNsID.isValid(\(text.debugDescription)) is not \(isUUID)")
    }
}
