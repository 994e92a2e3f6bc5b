/// A piece of a printf-style format string, as Foundation's `String(format:)` reads it.
enum FormatToken: Sendable, Hashable {
    /// Text copied as it is (including anything after a `%` that is not a known conversion).
    case literal(String)
    /// `%%`, a percent sign.
    case percent
    /// A conversion such as `%@`, `%2$d`, `%-5.2f` or `%lu`.
    case specifier(FormatSpecifier)
    /// A stringsdict variable, `%#@name@` or `%1$#@name@`.
    case variable(name: String, position: Int?)

    /// The token written back as format text.
    var text: String {
        switch self {
        case .literal(let text): text
        case .percent: "%%"
        case .specifier(let specifier): specifier.text
        case .variable(let name, let position): "%" + (position.map { "\($0)$" } ?? "") + "#@\(name)@"
        }
    }

    /// Splits a format string into tokens. Never fails: what isn't a conversion is literal text.
    static func parse(_ format: String) -> [FormatToken] {
        let scalars = Array(format.unicodeScalars)
        var tokens: [FormatToken] = []
        var literal = String.UnicodeScalarView()
        var index = 0
        func flushLiteral() {
            if !literal.isEmpty { tokens.append(.literal(String(literal))) }
            literal = String.UnicodeScalarView()
        }
        while index < scalars.count {
            guard scalars[index] == "%" else {
                literal.append(scalars[index])
                index += 1
                continue
            }
            if let (token, end) = parseConversion(scalars, from: index + 1) {
                flushLiteral()
                tokens.append(token)
                index = end
            } else {
                literal.append(scalars[index])
                index += 1
            }
        }
        flushLiteral()
        return tokens
    }

    /// Parses what follows a `%`; returns the token and the index after it, or nil if it isn't one.
    private static func parseConversion(_ s: [Unicode.Scalar], from start: Int) -> (FormatToken, Int)? {
        var index = start
        func digits() -> String {
            var result = ""
            while index < s.count, ("0"..."9").contains(s[index]) {
                result.unicodeScalars.append(s[index])
                index += 1
            }
            return result
        }
        guard index < s.count else { return nil }
        if s[index] == "%" { return (.percent, index + 1) }
        var position: Int?
        let leading = digits()
        if !leading.isEmpty, index < s.count, s[index] == "$", let value = Int(leading), value > 0 {
            position = value
            index += 1
        } else {
            index = start
        }
        if index + 1 < s.count, s[index] == "#", s[index + 1] == "@" {
            var name = String.UnicodeScalarView()
            var end = index + 2
            while end < s.count, s[end] != "@" {
                name.append(s[end])
                end += 1
            }
            guard end < s.count, !name.isEmpty else { return nil }
            return (.variable(name: String(name), position: position), end + 1)
        }
        var specifier = FormatSpecifier(position: position)
        while index < s.count, "-+ #0'".unicodeScalars.contains(s[index]) {
            specifier.flags.unicodeScalars.append(s[index])
            index += 1
        }
        specifier.width = digits()
        if index < s.count, s[index] == "." {
            index += 1
            specifier.precision = digits()
        }
        // A width or precision over 999 would only serve to allocate huge strings: not a conversion.
        guard specifier.width.count <= 3, (specifier.precision?.count ?? 0) <= 3 else { return nil }
        for length in ["hh", "ll", "h", "l", "q", "L", "z", "j", "t"] {
            let scalars = Array(length.unicodeScalars)
            if index + scalars.count <= s.count, Array(s[index..<index + scalars.count]) == scalars {
                specifier.length = length
                index += scalars.count
                break
            }
        }
        guard index < s.count, FormatSpecifier.conversions.contains(s[index]) else { return nil }
        specifier.conversion = Character(s[index])
        return (.specifier(specifier), index + 1)
    }
}

/// One printf conversion: `%[position$][flags][width][.precision][length]conversion`.
struct FormatSpecifier: Sendable, Hashable {
    static let conversions = Set("@dDiuUoOxXfFeEgGaAcCsS".unicodeScalars)

    var position: Int?
    var flags = ""
    var width = ""
    var precision: String?
    var length = ""
    var conversion: Character = "@"

    /// The specifier written back as format text.
    var text: String {
        "%" + (position.map { "\($0)$" } ?? "") + flags + width + (precision.map { "." + $0 } ?? "") + length
            + String(conversion)
    }
}
