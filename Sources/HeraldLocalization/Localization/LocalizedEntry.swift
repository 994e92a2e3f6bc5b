/// One localized string of an app in one locale, from whichever file it came.
struct LocalizedEntry: Sendable, Hashable {
    /// The text, or texts to choose from by a number.
    enum Body: Sendable, Hashable {
        /// A format string (a `.strings` value, a stringsdict `NSStringLocalizedFormatKey`, a catalog value).
        case text(String)
        /// A String Catalog string that varies by plural as a whole; the argument that picks the
        /// variant is `argumentIndex` (1-based), or else the one the `other` variant formats first.
        case plural(PluralVariable)
    }

    /// Which kind of file the entry came from; a later file of a higher rank replaces an entry, as a
    /// stringsdict entry overrides the `.strings` entry of the same key in Apple's bundles.
    enum Source: Int, Sendable, Hashable, Comparable {
        case strings, stringCatalog, stringsDictionary

        static func < (lhs: Source, rhs: Source) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var body: Body
    var variables: [String: PluralVariable] = [:]
    var source: Source

    /// The entry formatted with arguments, plural variants chosen with the given rules.
    func format(arguments: [FormatArgument], rules: PluralRules) -> String {
        switch body {
        case .text(let format):
            return StringFormatter.format(format, arguments: arguments, variables: variables, rules: rules)
        case .plural(let plural):
            let index = plural.argumentIndex ?? Self.firstArgumentIndex(in: plural.variants[.other] ?? "")
            let argument = index >= 1 && index <= arguments.count ? arguments[index - 1] : nil
            let format = plural.variant(for: argument, rules: rules)
            return StringFormatter.format(format, arguments: arguments, variables: variables, rules: rules)
        }
    }

    /// The argument that the first specifier of a format refers to (1 if it has none).
    static func firstArgumentIndex(in format: String) -> Int {
        for token in FormatToken.parse(format) {
            switch token {
            case .specifier(let specifier): return specifier.position ?? 1
            case .variable(_, let position): return position ?? 1
            default: continue
            }
        }
        return 1
    }
}
