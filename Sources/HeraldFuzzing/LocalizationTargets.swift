import Foundation
import HeraldLocalization

/// `StringsFile.parse` (HeraldLocalization): `Localizable.strings`, UTF-8 or UTF-16.
///
/// The property: a refusal is a `LocalizationFileError` (the API answers it with a 400 naming the
/// line); what it accepts, written back as a `.strings` file (every key and value quoted, `"` and `\`
/// escaped, every character outside printable ASCII as `\U` escapes), parses to the same table.
enum StringsFileTarget {
    static let target = FuzzTarget(
        name: "strings-file",
        property: "StringsFile.parse: refusals are LocalizationFileError; written back, the table parses the same",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        let table: [String: String]
        do {
            table = try StringsFile.parse(Data(input))
        } catch is LocalizationFileError {
            return
        } catch {
            throw PropertyViolation("refused with an error that is not a LocalizationFileError: \(error)")
        }
        var text = "/* written back */\n"
        for (key, value) in table.sorted(by: { $0.key < $1.key }) {
            text += "\(quoted(key)) = \(quoted(value));\n"
        }
        let reread: [String: String]
        do {
            reread = try StringsFile.parse(Data(text.utf8))
        } catch {
            throw PropertyViolation("the table written back is refused: \(error)\n\(text)")
        }
        try require(reread == table, "written back as \(text.debugDescription), the table \(table) read as \(reread)")
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case " "..."~": result.unicodeScalars.append(scalar)
            default:
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: true)
                    result += "\\U" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }
        }
        return result + "\""
    }
}

/// Plural and width arguments every localized entry is formatted with.
private let argumentSets: [[FormatArgument]] = [
    [], [.integer(0)], [.integer(1), .string("Ann")], [.integer(2), .integer(5), .double(1.5)],
    [.integer(-7), .string("x"), .integer(21)],
]

/// Formats every key of every locale with each argument set, twice: the two must agree.
private func formatEverything(_ localizations: AppLocalizations) throws {
    for locale in localizations.locales {
        for key in localizations.tables[locale]?.keys ?? [] {
            for arguments in argumentSets {
                let once = localizations.localizedString(key: key, arguments: arguments, locale: locale)
                let twice = localizations.localizedString(key: key, arguments: arguments, locale: locale)
                try require(once == twice, "\(key) in \(locale) formats as \(once) and then \(twice)")
            }
        }
    }
}

/// `StringsDictionary.parse` (HeraldLocalization): `.stringsdict` property lists (plural variables).
///
/// The property: a refusal is a `LocalizationFileError`; every entry it accepts formats with any
/// arguments (none, too few, of the wrong kind) without reading past them, the same way each time.
enum StringsDictionaryTarget {
    static let target = FuzzTarget(
        name: "stringsdict",
        property: "StringsDictionary.parse: refusals are LocalizationFileError; every entry formats with any arguments",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        var localizations = AppLocalizations(developmentLanguage: "en")
        do {
            try localizations.addStringsDictionary(Data(input), locale: "en")
        } catch is LocalizationFileError {
            return
        } catch {
            throw PropertyViolation("refused with an error that is not a LocalizationFileError: \(error)")
        }
        try formatEverything(localizations)
    }
}

/// `StringCatalog.parse` (HeraldLocalization): `.xcstrings` JSON catalogs.
///
/// The property: a refusal is a `LocalizationFileError`; every entry of every locale it accepts
/// formats with any arguments, the same way each time; loading the same catalog twice gives equal
/// localizations.
enum StringCatalogTarget {
    static let target = FuzzTarget(
        name: "xcstrings",
        property: "StringCatalog.parse: refusals are LocalizationFileError; every entry of every locale formats",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        var localizations = AppLocalizations()
        do {
            try localizations.addStringCatalog(Data(input))
        } catch is LocalizationFileError {
            return
        } catch {
            throw PropertyViolation("refused with an error that is not a LocalizationFileError: \(error)")
        }
        var again = AppLocalizations()
        try? again.addStringCatalog(Data(input))
        try require(again == localizations, "the same catalog loaded twice differs")
        try formatEverything(localizations)
    }
}

/// `StringFormatter.format` (HeraldLocalization): Apple's format strings — positional `%1$@`, plural
/// variables `%#@name@`, `%u`, widths and precisions — with arguments and a plural variable taken from
/// the input.
///
/// The property: formatting is deterministic; a text with every `%` doubled formats to the text
/// itself, whatever the arguments (literal text is never touched); and a format never reads past
/// its arguments (a missing argument leaves its specifier as written, so formatting with none
/// keeps every specifier's `%`).
enum StringFormatterTarget {
    static let target = FuzzTarget(
        name: "string-formatter",
        property: "StringFormatter.format: deterministic; literal text (with %% escapes) comes out as it went in",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        var reader = FuzzReader(input)
        var arguments: [FormatArgument] = []
        for _ in 0..<Int(reader.byte() % 4) {
            switch reader.byte() % 3 {
            case 0: arguments.append(.integer(Int(Int32(truncatingIfNeeded: reader.uint16() << 16 | reader.uint16()))))
            case 1: arguments.append(.double(Double(reader.uint16()) / 7 - 4000))
            default: arguments.append(.string(String(decoding: reader.shortRun(), as: UTF8.self)))
            }
        }
        var variables: [String: PluralVariable] = [:]
        let flags = reader.byte()
        if flags & 1 != 0 {
            let one = String(decoding: reader.shortRun(), as: UTF8.self)
            let other = String(decoding: reader.shortRun(), as: UTF8.self)
            variables["n"] = PluralVariable(
                variants: [.one: one, .other: other], valueType: flags & 2 != 0 ? "d" : nil,
                argumentIndex: flags & 4 != 0 ? Int(flags >> 4) : nil)
        }
        let locale = ["en", "fr", "ar", "ru", "ja"][Int(flags >> 3) % 5]
        let format = String(decoding: reader.rest(), as: UTF8.self)

        let once = StringFormatter.format(format, arguments: arguments, variables: variables, locale: locale)
        let twice = StringFormatter.format(format, arguments: arguments, variables: variables, locale: locale)
        try require(
            once == twice,
            "\(format.debugDescription) formats as \(once.debugDescription), then \(twice.debugDescription)")

        let escaped = format.replacingOccurrences(of: "%", with: "%%")
        let literal = StringFormatter.format(escaped, arguments: arguments, variables: variables, locale: locale)
        try require(literal == format, "\(escaped.debugDescription) formats as \(literal.debugDescription)")

        let percents = format.utf8.filter { $0 == UInt8(ascii: "%") }.count
        let bare = StringFormatter.format(format, arguments: [], locale: locale)
        try require(
            bare.utf8.filter({ $0 == UInt8(ascii: "%") }).count >= (percents + 1) / 2,
            "\(format.debugDescription) with no arguments lost specifiers: \(bare.debugDescription)")
    }
}
