import HeraldCore

/// `JSONParser` (HeraldCore), the parser of every push payload, with `JSONWriter` as its inverse.
///
/// The property: whatever the parser accepts, the writer writes as JSON the parser reads back to the
/// same value. Refusals are repeatable. (Not "the same bytes": an object's members are written in
/// the order of its dictionary, which two equal dictionaries need not share.) And a push payload read
/// straight from the bytes (`NotificationPayload(json:)`, which reads `aps` without the tree) is the
/// payload read from the parsed tree (`init(jsonValue:)`), or both refuse it.
enum JSONParserTarget {
    static let target = FuzzTarget(
        name: "json-parser",
        property: "JSONParser: what it accepts, JSONWriter writes back to the same value; a payload read "
            + "straight from the bytes is the one read from the tree",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        try payloadReadsAlike(input)
        try roundTrip(input)
    }

    static func payloadReadsAlike(_ input: [UInt8]) throws {
        for requiresAPS in [false, true] {
            let direct = try? NotificationPayload(json: input, requiresAPS: requiresAPS)
            let tree = (try? JSONParser.parse(input)).flatMap {
                try? NotificationPayload(jsonValue: $0, requiresAPS: requiresAPS)
            }
            try require(
                direct == tree,
                "the payload read from the bytes (\(String(describing: direct))) is not the tree's "
                    + "(\(String(describing: tree))), requiresAPS \(requiresAPS)")
        }
    }

    static func roundTrip(_ input: [UInt8]) throws {
        let value: JSONValue
        do {
            value = try JSONParser.parse(input)
        } catch {
            // Refused: refused the same way again.
            do {
                _ = try JSONParser.parse(input)
                throw PropertyViolation("JSONParser refused an input once and accepted it the second time")
            } catch let again as PayloadError {
                return try require("\(again)" == "\(error)", "two refusals differ: \(error), \(again)")
            }
        }
        var writer = JSONWriter()
        writer.value(value)
        let written = writer.bytes
        let reread: JSONValue
        do {
            reread = try JSONParser.parse(written)
        } catch {
            throw PropertyViolation(
                "JSONWriter wrote \(String(decoding: written, as: UTF8.self)) for an accepted value, which the "
                    + "parser refuses: \(error)")
        }
        try require(
            reread == value,
            "round trip changed the value: \(value) became \(reread) (written \(String(decoding: written, as: UTF8.self)))"
        )
    }
}
