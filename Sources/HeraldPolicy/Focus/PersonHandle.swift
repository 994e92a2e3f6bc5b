/// A way to reach a person (`INPersonHandle`), normalised so that two spellings of the same
/// handle compare equal.
///
/// - E-mail addresses: trimmed and lowercased.
/// - Phone numbers: only digits are kept, with a leading `+` when the number had one
///   ("+1 (555) 010-0200" → "+15550100200"). `matches(_:)` decides whether two phone numbers are
///   the same, in this order:
///   1. the same digits, with or without the `+`, match ("15550100200" and "+1 555 010 0200");
///   2. two numbers both written with `+` (full international numbers) and other digits do not
///      ("+61 555 010 0200" is not "+1 555 010 0200");
///   3. otherwise they match when the shorter has at least 7 digits and the longer ends with
///      them: a number written without its country code ("555-010-0200", or "010-0200" without
///      the area code too) or with an international call prefix ("00 1 555 010 0200"). A number
///      without `+` cannot say which country it is in, so "555-010-0200" also matches
///      "+44 555 010 0200".
///   Nothing else matches: other last digits ("(444) 010-0200", "+1 555 010 0201"), a shorter
///   number of fewer than 7 digits ("010 0200" does, "10 0200" does not), a number without digits.
/// - App-specific ids (the `unknown` handle type, e.g. a chat account id): trimmed, otherwise
///   compared exactly.
public struct PersonHandle: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The kind of handle (`INPersonHandleType`, same raw values).
    public enum Kind: Int, CaseIterable, Sendable, Codable, Hashable {
        case appSpecific = 0
        case emailAddress = 1
        case phoneNumber = 2
    }

    public let kind: Kind
    /// The normalised value.
    public let value: String

    public init(_ value: String, kind: Kind) {
        self.kind = kind
        self.value = Self.normalise(value, kind: kind)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(String.self, forKey: .value), kind: try container.decode(Kind.self, forKey: .kind))
    }

    private enum CodingKeys: String, CodingKey { case kind, value }

    public var description: String { value }

    /// Whether both handles name the same person (see the type's note on phone numbers).
    public func matches(_ other: PersonHandle) -> Bool {
        if self == other { return true }
        guard kind == .phoneNumber, other.kind == .phoneNumber else { return false }
        let mine = value.utf8.drop { $0 == UInt8(ascii: "+") }
        let theirs = other.value.utf8.drop { $0 == UInt8(ascii: "+") }
        guard !mine.isEmpty, !theirs.isEmpty else { return false }
        if mine.elementsEqual(theirs) { return true }
        if value.hasPrefix("+"), other.value.hasPrefix("+") { return false }
        let (shorter, longer) = mine.count <= theirs.count ? (mine, theirs) : (theirs, mine)
        return shorter.count >= 7 && shorter.count < longer.count && longer.suffix(shorter.count).elementsEqual(shorter)
    }

    private static func normalise(_ raw: String, kind: Kind) -> String {
        let trimmed = raw.trimmingWhitespace()
        switch kind {
        case .emailAddress:
            return trimmed.lowercased()
        case .phoneNumber:
            var digits = trimmed.hasPrefix("+") ? "+" : ""
            for character in trimmed.unicodeScalars where ("0"..."9").contains(character) {
                digits.unicodeScalars.append(character)
            }
            return digits
        case .appSpecific:
            return trimmed
        }
    }
}

extension Collection where Element == PersonHandle {
    /// Whether one of the handles names the same person as `handle`.
    func containsPerson(_ handle: PersonHandle) -> Bool {
        contains { $0.matches(handle) }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex { !$0.properties.isWhitespace }!
        return String(scalars[first...last])
    }
}
