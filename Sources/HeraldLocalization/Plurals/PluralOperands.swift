/// The operands of a number that CLDR plural rules test (UTS #35, Part 3, "Plural Operand Meanings").
///
/// A number is taken as written: `1` and `1.0` are different operands (v = 0 and v = 1), which is
/// how English tells "1 comment" from "1.0 comments". Signs are ignored (n is the absolute value).
public struct PluralOperands: Sendable, Hashable, CustomStringConvertible {
    /// The integer digits of n (i).
    public let i: Int
    /// The number of visible fraction digits, with trailing zeros (v).
    public let v: Int
    /// The number of visible fraction digits, without trailing zeros (w).
    public let w: Int
    /// The visible fraction digits as an integer, with trailing zeros (f).
    public let f: Int
    /// The visible fraction digits as an integer, without trailing zeros (t).
    public let t: Int
    /// The compact decimal exponent (c, also called e): 0 unless written like `1.2c6`.
    public let e: Int

    /// The compact decimal exponent (c); a synonym of ``e``.
    public var c: Int { e }

    /// Whether n has no fraction, so that it equals an integer (`1.0` does; `1.5` doesn't).
    public var isInteger: Bool { f == 0 }

    /// The operands of an integer, such as a count of notifications.
    public init(_ integer: Int) {
        i = integer == .min ? .max : abs(integer)
        v = 0
        w = 0
        f = 0
        t = 0
        e = 0
    }

    /// The operands of a number written in decimal, such as `"1.50"` (v = 2) or `"-3"`; also accepts
    /// CLDR's compact exponent (`"1.2c6"` or `"1.2e6"`, meaning 1200000 with c = 6).
    ///
    /// Returns nil when the text is not a decimal number or has more digits than an `Int` holds.
    public init?(decimal: String) {
        var text = Substring(decimal.trimmingWhitespace())
        if text.first == "-" || text.first == "+" { text = text.dropFirst() }
        var exponent = 0
        if let marker = text.firstIndex(where: { $0 == "c" || $0 == "e" || $0 == "E" }) {
            guard let value = Int(text[text.index(after: marker)...]), (0...18).contains(value) else { return nil }
            exponent = value
            text = text[..<marker]
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var integerDigits = Substring(parts[0])
        var fractionDigits = parts.count > 1 ? Substring(parts[1]) : ""
        guard !integerDigits.isEmpty || !fractionDigits.isEmpty,
            (integerDigits + fractionDigits).allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        // The exponent moves the decimal point to the right: 1.2c3 is 1200.
        let shift = min(exponent, fractionDigits.count)
        integerDigits += fractionDigits.prefix(shift)
        fractionDigits = fractionDigits.dropFirst(shift)
        let padding = String(repeating: "0", count: exponent - shift)
        let trimmed = fractionDigits.reversed().drop(while: { $0 == "0" }).reversed()
        guard let integer = Int(integerDigits.isEmpty ? "0" : integerDigits + padding),
            let fraction = Int(fractionDigits.isEmpty ? "0" : fractionDigits),
            let fractionTrimmed = Int(trimmed.isEmpty ? "0" : String(trimmed))
        else { return nil }
        i = integer
        v = fractionDigits.count
        w = trimmed.count
        f = fraction
        t = fractionTrimmed
        e = exponent
    }

    /// The number as CLDR writes samples: `1.50`, `3`, `1.2c6`.
    public var description: String {
        let fraction = v == 0 ? "" : "." + String(repeating: "0", count: v - String(f).count) + String(f)
        return "\(i)\(fraction)" + (e == 0 ? "" : " (c=\(e))")
    }
}

extension String {
    func trimmingWhitespace() -> Substring {
        let start = firstIndex(where: { !$0.isWhitespace }) ?? endIndex
        let end = lastIndex(where: { !$0.isWhitespace }).map(index(after:)) ?? start
        return self[start..<end]
    }
}
