import HTTPTypes
import HeraldAPI

/// `CursorParameter.parse` (HeraldAPI), which reads a stream's `Last-Event-ID` header and `?cursor=`.
///
/// The property: an empty or absent value means "no cursor"; an accepted value is a cursor ≥ 0 whose
/// decimal spelling is accepted as the same cursor; anything else is a 400 `invalid_parameter` naming
/// the header or parameter (never another error, which the API would answer with a 500).
enum CursorParameterTarget {
    static let target = FuzzTarget(
        name: "cursor-parameter",
        property: "CursorParameter.parse: nil for empty, a cursor >= 0 that round-trips, or a 400 naming the field",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        let value = String(decoding: input, as: UTF8.self)
        for name in ["Last-Event-ID", "cursor"] {
            let cursor: Int64?
            do {
                cursor = try CursorParameter.parse(value, name: name)
            } catch let error as APIError {
                try require(
                    error.status.code == 400 && error.code == "invalid_parameter" && error.message.contains(name),
                    "\(value.debugDescription) got \(error)")
                continue
            } catch {
                throw PropertyViolation("\(value.debugDescription) got an error that is not an APIError: \(error)")
            }
            guard let cursor else {
                try require(value.isEmpty, "\(value.debugDescription) read as no cursor")
                continue
            }
            try require(!value.isEmpty && cursor >= 0, "\(value.debugDescription) read as cursor \(cursor)")
            try require(
                (try? CursorParameter.parse(String(cursor), name: name)) == cursor,
                "cursor \(cursor) does not round-trip")
            try require(
                value.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                },
                "\(value.debugDescription) accepted as a cursor")
        }
        try require(try CursorParameter.parse(nil, name: "cursor") == nil, "an absent cursor is not nil")
    }
}
