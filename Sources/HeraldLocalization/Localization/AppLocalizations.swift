import Foundation

/// All localizations of one app: a ``LocalizationTable`` per locale and the app's development language.
///
/// Lookups fall back as Apple's do: the device's exact locale (`pt_BR`), then its parents
/// (`zh_Hant_TW` → `zh_Hant` → `zh`), then the development language (and its parents), then a
/// `Base` table if one was uploaded, and finally the key itself. The first table that has the key
/// answers, and its locale's CLDR rules pick plural variants. Locale identifiers may use `-` or `_`
/// (`pt-BR`, `pt_BR`, as in `.lproj` folder names and String Catalogs).
public struct AppLocalizations: Sendable, Hashable {
    /// The tables by canonical locale identifier (`pt_BR`, `zh_Hant`, `Base`).
    public private(set) var tables: [String: LocalizationTable] = [:]
    private var explicitDevelopmentLanguage: String?
    private var catalogSourceLanguage: String?

    /// Localizations with no tables yet. Without a development language, the source language of the
    /// first String Catalog added is used, else `en` (Xcode's default development region).
    public init(developmentLanguage: String? = nil) {
        explicitDevelopmentLanguage = developmentLanguage.map(LocaleIdentifier.canonical)
    }

    /// The app's development (source) language, the last locale tried before the key itself.
    public var developmentLanguage: String {
        get { explicitDevelopmentLanguage ?? catalogSourceLanguage ?? "en" }
        set { explicitDevelopmentLanguage = LocaleIdentifier.canonical(newValue) }
    }

    /// The locales that have a table, sorted.
    public var locales: [String] { tables.keys.sorted() }

    /// Adds a `Localizable.strings` file (UTF-8 or UTF-16) to a locale's table.
    public mutating func addStringsFile(_ data: Data, locale: String) throws {
        try tables[LocaleIdentifier.canonical(locale), default: LocalizationTable()].addStringsFile(data)
    }

    /// Adds a `.stringsdict` file (XML property list) to a locale's table.
    public mutating func addStringsDictionary(_ data: Data, locale: String) throws {
        try tables[LocaleIdentifier.canonical(locale), default: LocalizationTable()].addStringsDictionary(data)
    }

    /// Adds a String Catalog (`.xcstrings`), which holds every locale at once.
    public mutating func addStringCatalog(_ data: Data) throws {
        let catalog = try StringCatalog.parse(data)
        if catalogSourceLanguage == nil { catalogSourceLanguage = LocaleIdentifier.canonical(catalog.sourceLanguage) }
        for (locale, entries) in catalog.entries {
            tables[LocaleIdentifier.canonical(locale), default: LocalizationTable()].merge(entries)
        }
    }

    /// Replaces (or with nil removes) the table of a locale.
    public mutating func setTable(_ table: LocalizationTable?, locale: String) {
        tables[LocaleIdentifier.canonical(locale)] = table
    }

    /// The locales whose tables are consulted for a device locale, in order.
    public func lookupOrder(for locale: String) -> [String] {
        var order: [String] = []
        for candidate in LocaleIdentifier.fallbackChain(locale) + LocaleIdentifier.fallbackChain(developmentLanguage)
            + ["Base"]
        where tables[candidate] != nil && !order.contains(candidate) {
            order.append(candidate)
        }
        return order
    }

    /// The localized string for a key in a device locale, formatted with arguments; the key itself
    /// (formatted with the arguments, as iOS does for a missing `loc-key`) when no table has it.
    public func localizedString(key: String, arguments: [FormatArgument] = [], locale: String) -> String {
        localizedStringIfPresent(key: key, arguments: arguments, locale: locale)
            ?? StringFormatter.format(key, arguments: arguments, rules: PluralRules(locale: locale))
    }

    /// The localized string for a key in a device locale, formatted with arguments; nil when no table
    /// in the lookup order has the key.
    public func localizedStringIfPresent(key: String, arguments: [FormatArgument] = [], locale: String) -> String? {
        for candidate in lookupOrder(for: locale) {
            guard let table = tables[candidate], table.contains(key: key) else { continue }
            let rules = PluralRules(locale: candidate == "Base" ? developmentLanguage : candidate)
            return table.localizedString(key: key, arguments: arguments, rules: rules)
        }
        return nil
    }
}
