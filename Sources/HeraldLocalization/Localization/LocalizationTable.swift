import Foundation

/// The localized strings of one app in one locale, merged from the files uploaded for that locale.
///
/// When files disagree about a key, a stringsdict entry wins over a String Catalog entry, which wins
/// over a `.strings` entry (as a stringsdict overrides `Localizable.strings` in an Apple bundle);
/// between two files of the same kind, the one added later wins.
public struct LocalizationTable: Sendable, Hashable {
    var entries: [String: LocalizedEntry] = [:]

    /// An empty table.
    public init() {}

    /// The keys the table has, sorted.
    public var keys: [String] { entries.keys.sorted() }

    /// Whether the table has no strings.
    public var isEmpty: Bool { entries.isEmpty }

    /// Whether the table has a string for the key.
    public func contains(key: String) -> Bool { entries[key] != nil }

    /// Adds the entries of a `Localizable.strings` file (UTF-8 or UTF-16).
    public mutating func addStringsFile(_ data: Data) throws {
        merge(try StringsFile.parse(data).mapValues { LocalizedEntry(body: .text($0), source: .strings) })
    }

    /// Adds the entries of a `.stringsdict` file (XML property list).
    public mutating func addStringsDictionary(_ data: Data) throws {
        merge(try StringsDictionary.parse(data))
    }

    /// The string for a key formatted with arguments, plural variants chosen by the given rules;
    /// nil when the table has no such key.
    public func localizedString(key: String, arguments: [FormatArgument] = [], rules: PluralRules) -> String? {
        entries[key]?.format(arguments: arguments, rules: rules)
    }

    mutating func merge(_ incoming: [String: LocalizedEntry]) {
        for (key, entry) in incoming where entries[key].map({ $0.source <= entry.source }) ?? true {
            entries[key] = entry
        }
    }
}
