import Foundation

/// A stringsdict-style plural variable: the text to use for each CLDR plural category of one argument.
public struct PluralVariable: Sendable, Hashable {
    /// The text per category; `other` is the fallback for a category that has no text.
    public var variants: [PluralCategory: String]
    /// The stringsdict `NSStringFormatValueTypeKey` (`u`, `d`, `lld`, …), if given. Informational:
    /// the variants' own specifiers decide how the number is written.
    public var valueType: String?
    /// The 1-based argument the variable counts (a String Catalog substitution's `argNum`); nil means
    /// the argument at the variable's place in the format, as in stringsdict.
    public var argumentIndex: Int?

    /// A plural variable with its variants.
    public init(variants: [PluralCategory: String], valueType: String? = nil, argumentIndex: Int? = nil) {
        self.variants = variants
        self.valueType = valueType
        self.argumentIndex = argumentIndex
    }

    /// The variant for a number in a locale. As Apple does, a `zero` variant is used for the number 0
    /// in every language, even where CLDR has no `zero` category (English); otherwise the CLDR
    /// category picks the variant, and `other` stands in for a category without one.
    public func variant(for argument: FormatArgument?, rules: PluralRules) -> String {
        guard let operands = argument?.pluralOperands else { return variants[.other] ?? "" }
        if operands.i == 0, operands.f == 0, let zero = variants[.zero] { return zero }
        return variants[rules.category(for: operands)] ?? variants[.other] ?? ""
    }
}

/// The printf-style formatter for notification strings: `%@`, `%d` `%i` `%u` `%ld` `%lu` `%lld`,
/// `%f` `%.2f` `%e` `%g`, `%x` `%o` `%c`, `%%`, positions (`%2$@`), flags and widths, and stringsdict
/// variables (`%#@name@`). Numbers are written with ASCII digits and `.`, as `String(format:)` does
/// without a locale.
///
/// Unlike C, it never reads past its arguments: a specifier without an argument is kept as written
/// (`%@` stays `%@`), as is an unknown variable, so a broken translation shows up rather than crashing.
public enum StringFormatter {
    /// Formats a string with arguments; plural variables pick their variant with the locale's CLDR rules.
    public static func format(
        _ format: String,
        arguments: [FormatArgument],
        variables: [String: PluralVariable] = [:],
        locale: String = "en"
    ) -> String {
        self.format(format, arguments: arguments, variables: variables, rules: PluralRules(locale: locale))
    }

    /// Formats a string with arguments, choosing plural variants with the given rules.
    public static func format(
        _ format: String,
        arguments: [FormatArgument],
        variables: [String: PluralVariable] = [:],
        rules: PluralRules
    ) -> String {
        var budget = maximumExpansions
        let tokens = expand(
            FormatToken.parse(format), variables: variables, arguments: arguments, rules: rules, budget: &budget)
        var output = ""
        var sequential = 0
        for token in tokens {
            switch token {
            case .literal(let text): output += text
            case .percent: output += "%"
            case .variable: output += token.text
            case .specifier(let specifier):
                let index =
                    specifier.position
                    ?? {
                        sequential += 1
                        return sequential
                    }()
                // A position below 1 (a plural variable's argument index 0 in a catalog) reads nothing.
                output +=
                    index >= 1 && index <= arguments.count ? render(specifier, arguments[index - 1]) : specifier.text
            }
        }
        return output
    }

    /// How many variables one format may expand, nested ones included; the rest stay as written.
    /// Bounds the work a self-referencing stringsdict can cause.
    static let maximumExpansions = 64

    /// Replaces each variable by its chosen variant. The variant's own unnumbered specifiers (and
    /// nested variables) refer to the variable's argument, so every unnumbered specifier of the
    /// format is first numbered by its place: `%@ has %#@files@` with `%d files` → `%1$@ has %2$d files`.
    static func expand(
        _ tokens: [FormatToken],
        variables: [String: PluralVariable],
        arguments: [FormatArgument],
        rules: PluralRules,
        budget: inout Int
    ) -> [FormatToken] {
        guard tokens.contains(where: { if case .variable = $0 { true } else { false } }) else { return tokens }
        var result: [FormatToken] = []
        var sequential = 0
        for token in tokens {
            switch token {
            case .literal, .percent:
                result.append(token)
            case .specifier(var specifier):
                if specifier.position == nil {
                    sequential += 1
                    specifier.position = sequential
                }
                result.append(.specifier(specifier))
            case .variable(let name, let position):
                let place =
                    position
                    ?? {
                        sequential += 1
                        return sequential
                    }()
                guard let variable = variables[name], budget > 0 else {
                    result.append(.literal(token.text))
                    continue
                }
                budget -= 1
                let index = variable.argumentIndex ?? place
                let argument = index >= 1 && index <= arguments.count ? arguments[index - 1] : nil
                let inner = FormatToken.parse(variable.variant(for: argument, rules: rules)).map {
                    token -> FormatToken in
                    switch token {
                    case .specifier(var specifier) where specifier.position == nil:
                        specifier.position = index
                        return .specifier(specifier)
                    case .variable(let name, nil):
                        return .variable(name: name, position: index)
                    default:
                        return token
                    }
                }
                result += expand(inner, variables: variables, arguments: arguments, rules: rules, budget: &budget)
            }
        }
        return result
    }

    /// One conversion of one argument.
    static func render(_ specifier: FormatSpecifier, _ argument: FormatArgument) -> String {
        let wide = ["l", "ll", "q", "z", "j", "t"].contains(specifier.length)
        switch specifier.conversion {
        case "@", "s", "S":
            return pad(argument.text, specifier)
        case "d", "i", "D":
            guard let value = argument.integerValue else { return pad(argument.text, specifier) }
            return cFormat(specifier, "lld", Int64(value))
        case "u", "U", "o", "O", "x", "X":
            guard let value = argument.integerValue else { return pad(argument.text, specifier) }
            // As in C, a negative number shows its two's complement: 32 bits for %u, 64 for %lu.
            let bits =
                wide || specifier.conversion == "U" || specifier.conversion == "O"
                ? UInt64(bitPattern: Int64(value)) : UInt64(UInt32(truncatingIfNeeded: value))
            let conversion =
                specifier.conversion == "U" ? "u" : specifier.conversion == "O" ? "o" : String(specifier.conversion)
            return cFormat(specifier, "ll" + conversion, bits)
        case "c", "C":
            if let value = argument.integerValue, let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: value)) {
                return pad(String(Character(scalar)), specifier)
            }
            return pad(String(argument.text.prefix(1)), specifier)
        default:
            guard let value = argument.doubleValue else { return pad(argument.text, specifier) }
            return cFormat(specifier, String(specifier.conversion), value)
        }
    }

    private static func cFormat(_ specifier: FormatSpecifier, _ conversion: String, _ value: any CVarArg) -> String {
        let flags = specifier.flags.filter { $0 != "'" }
        let precision = specifier.precision.map { "." + $0 } ?? ""
        return String(format: "%" + flags + specifier.width + precision + conversion, value)
    }

    private static func pad(_ text: String, _ specifier: FormatSpecifier) -> String {
        var text = text
        if let precision = specifier.precision, let limit = Int(precision.isEmpty ? "0" : precision) {
            text = String(text.prefix(limit))
        }
        guard let width = Int(specifier.width), text.count < width else { return text }
        let padding = String(repeating: " ", count: width - text.count)
        return specifier.flags.contains("-") ? text + padding : padding + text
    }
}
