/// One argument of a notification format string: APNs `loc-args` are strings, counts are integers.
///
/// Conversions are lenient, because APNs sends every argument as a string: `%d` of `"3"` is 3, `%@` of
/// 3 is `"3"`. A string that is not a number keeps its text under a numeric conversion (`%d` of
/// `"many"` is `many`) rather than becoming 0.
public enum FormatArgument: Sendable, Hashable {
    /// A string, as in APNs `loc-args`.
    case string(String)
    /// An integer, such as a count.
    case integer(Int)
    /// A floating-point number.
    case double(Double)
}

extension FormatArgument: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// A string argument written as a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer argument written as a literal.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A floating-point argument written as a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension FormatArgument {
    /// The argument as `%@` shows it: integers in decimal, doubles as NSNumber prints them (`2`, `1.5`).
    var text: String {
        switch self {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .double(let double): Self.shortText(double)
        }
    }

    /// The argument as an integer, if it is one or is text of one (`"3"`, `" 3 "`, `"3.7"` → 3).
    var integerValue: Int? {
        switch self {
        case .integer(let integer): integer
        case .double(let double): double.isFinite ? Int(exactly: double.rounded(.towardZero)) : nil
        case .string(let string):
            Int(string.trimmingWhitespace()) ?? FormatArgument.double(doubleValue ?? .nan).integerValue
        }
    }

    /// The argument as a double, if it is a number or is text of one.
    var doubleValue: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        case .string(let string): Double(string.trimmingWhitespace())
        }
    }

    /// The plural operands of the argument: integers as they are, strings as written (`"1.50"` has
    /// v = 2), doubles in their shortest form. Nil when the argument is not a number.
    var pluralOperands: PluralOperands? {
        switch self {
        case .integer(let integer): PluralOperands(integer)
        case .double(let double): double.isFinite ? PluralOperands(decimal: Self.shortText(double)) : nil
        case .string(let string): PluralOperands(decimal: string)
        }
    }

    private static func shortText(_ double: Double) -> String {
        if double.isFinite, double == double.rounded(), abs(double) < 1e15 { return String(Int(double)) }
        return String(double)
    }
}
