/// The summary line under a group of notifications (`UNNotificationCategory.categorySummaryFormat`):
/// `"%u more messages from %@"` with `%u` = what the other notifications of the group add and `%@`
/// = their summary arguments as a list (`Ana and Bo`).
///
/// A format that is a key of the app's localizations is looked up in the device's locale with the
/// count as the first argument, so a stringsdict or String Catalog plural entry picks its variant by
/// the count with the CLDR rules of that locale; otherwise the format itself is filled in. Without a
/// format (nil or empty), or when the format names `%@` but no notification sent a summary
/// argument, Herald's built-in "%u more notifications" in the device's language (Apple's default).
public enum CategorySummary {
    struct Texts: Sendable {
        let variants: [PluralCategory: String]
        /// Between the items of a list but the last two, and between the last two.
        let separator: String
        let lastSeparator: String
    }

    /// The languages (and scripts) with built-in texts, sorted.
    public static var languages: [String] { texts.keys.sorted() }

    static let texts: [String: Texts] = [
        "ar": Texts(
            variants: [
                .zero: "لا توجد إشعارات أخرى", .one: "إشعار واحد آخر", .two: "إشعاران آخران",
                .few: "%u إشعارات أخرى", .many: "%u إشعارًا آخر", .other: "%u إشعار آخر",
            ], separator: "، ", lastSeparator: " و"),
        "de": Texts(
            variants: [.one: "%u weitere Mitteilung", .other: "%u weitere Mitteilungen"], separator: ", ",
            lastSeparator: " und "),
        "en": Texts(
            variants: [.one: "%u more notification", .other: "%u more notifications"], separator: ", ",
            lastSeparator: " and "),
        "es": Texts(
            variants: [
                .one: "%u notificación más", .many: "%u de notificaciones más", .other: "%u notificaciones más",
            ], separator: ", ", lastSeparator: " y "),
        "fr": Texts(
            variants: [
                .one: "%u autre notification", .many: "%u d’autres notifications", .other: "%u autres notifications",
            ], separator: ", ", lastSeparator: " et "),
        "ja": Texts(variants: [.other: "ほか%u件の通知"], separator: "、", lastSeparator: "、"),
        "ru": Texts(
            variants: [
                .one: "ещё %u уведомление", .few: "ещё %u уведомления", .many: "ещё %u уведомлений",
                .other: "ещё %u уведомления",
            ], separator: ", ", lastSeparator: " и "),
        "zh": Texts(variants: [.other: "还有%u条通知"], separator: "、", lastSeparator: "和"),
    ]

    /// The summary line of a group in a device locale.
    public static func text(
        format: String?, count: Int, arguments: [String], localizations: AppLocalizations, locale: String
    ) -> String {
        let count = max(count, 0)
        guard let format, !format.isEmpty else { return defaultText(count: count, locale: locale) }
        if arguments.isEmpty {
            // A format that shows `%@` has nothing to show: the default says what is known.
            let probe = "\u{1}"
            let probed = localizations.localizedString(
                key: format, arguments: [.integer(count), .string(probe)], locale: locale)
            if probed.contains(probe) { return defaultText(count: count, locale: locale) }
        }
        let list = self.list(arguments, locale: locale)
        return localizations.localizedString(key: format, arguments: [.integer(count), .string(list)], locale: locale)
    }

    /// Herald's built-in "%u more notifications", pluralized by the CLDR rules of the device locale
    /// (languages without texts get English).
    public static func defaultText(count: Int, locale: String) -> String {
        let (texts, rulesLocale) = texts(for: locale)
        let variable = PluralVariable(variants: texts.variants)
        return StringFormatter.format(
            "%#@count@", arguments: [.integer(max(count, 0))], variables: ["count": variable],
            rules: PluralRules(locale: rulesLocale)
        )
    }

    /// Items as a list in the device's language: `Ana`, `Ana and Bo`, `Ana, Bo and Cy`.
    public static func list(_ items: [String], locale: String) -> String {
        guard let last = items.last else { return "" }
        guard items.count > 1 else { return last }
        let texts = texts(for: locale).texts
        return items.dropLast().joined(separator: texts.separator) + texts.lastSeparator + last
    }

    /// Whether a language's texts have a variant for every category its CLDR rules use.
    static func coversAllCategories(of language: String) -> Bool {
        guard let chosen = texts[language] else { return false }
        return PluralRules(locale: language).categories.allSatisfy { chosen.variants[$0] != nil }
    }

    private static func texts(for locale: String) -> (texts: Texts, rulesLocale: String) {
        if let match = LocaleIdentifier.fallbackChain(locale).first(where: { texts[$0] != nil }),
            let found = texts[match]
        {
            return (found, locale)
        }
        return (texts["en"]!, "en")
    }
}
