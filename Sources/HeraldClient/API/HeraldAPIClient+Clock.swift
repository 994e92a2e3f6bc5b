import Foundation
import HeraldCore

/// The server's clock (`/v1/admin/clock`); the client's bearer token is the admin token.
extension HeraldAPIClient {
    /// `GET /v1/admin/clock`: `{"mode": "manual"|"system", "now": "…"}`.
    public func clock() async throws -> Data {
        try await send("GET", path: "/v1/admin/clock")
    }

    /// `PUT /v1/admin/clock`: moves a manual clock forward to `now` (ISO 8601); answers once the
    /// Focus and Scheduled Summary services have acted up to it.
    public func setClock(to now: String) async throws -> Data {
        try await send("PUT", path: "/v1/admin/clock", body: .object(["now": .string(now)]))
    }

    /// `POST /v1/admin/clock/advance`: moves a manual clock forward by `seconds`.
    public func advanceClock(seconds: Double) async throws -> Data {
        try await send("POST", path: "/v1/admin/clock/advance", body: .object(["seconds": .number(seconds)]))
    }
}

/// A length of time as people type it: seconds (`90`, `1.5`), or amounts with units, largest first
/// (`1h30m`, `2d`, `45s`, `1d12h`, `500ms`), or an ISO 8601 duration of days and time (`PT1H30M`,
/// `P1DT2H`).
public enum ClockDuration {
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1),
    ]

    /// The seconds `text` says, or nil when it is not a duration (negative ones included).
    public static func seconds(_ text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty else { return nil }
        if let plain = Double(text) {
            return plain.isFinite && plain >= 0 && text.allSatisfy({ $0.isNumber || $0 == "." }) ? plain : nil
        }
        if text.hasPrefix("p") { return iso8601(text) }
        var rest = Substring(text)
        var total = 0.0
        var lastRank = -1
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let amount = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            guard let rank = units.indices.first(where: { rest.hasPrefix(units[$0].suffix) }) else { return nil }
            // Largest unit first, each once ("ms" is listed first only so it wins over "m").
            let order = rank == 0 ? units.count : rank
            guard order > lastRank else { return nil }
            lastRank = order
            total += amount * units[rank].seconds
            rest = rest.dropFirst(units[rank].suffix.count)
        }
        return total.isFinite ? total : nil
    }

    /// `PnDTnHnMnS` (lowercased), days and time only: months and years have no fixed length.
    private static func iso8601(_ text: String) -> Double? {
        var rest = Substring(text.dropFirst())
        var total = 0.0
        var inTime = false
        var seen = false
        var lastRank = -1
        while !rest.isEmpty {
            if rest.first == "t" {
                // `T` once, and followed by a time component.
                guard !inTime, rest.count > 1 else { return nil }
                inTime = true
                rest = rest.dropFirst()
                continue
            }
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let amount = Double(number), let unit = rest.dropFirst(number.count).first else {
                return nil
            }
            rest = rest.dropFirst(number.count + 1)
            let rank: Int
            let seconds: Double
            switch (unit, inTime) {
            case ("w", false): (rank, seconds) = (0, 604_800)
            case ("d", false): (rank, seconds) = (1, 86_400)
            case ("h", true): (rank, seconds) = (2, 3_600)
            case ("m", true): (rank, seconds) = (3, 60)
            case ("s", true): (rank, seconds) = (4, 1)
            default: return nil
            }
            guard rank > lastRank else { return nil }
            lastRank = rank
            seen = true
            total += amount * seconds
        }
        return seen && total.isFinite ? total : nil
    }
}
