/// Herald's built-in hidden-preview body for categories without a placeholder.
///
/// Apple does not publish its own strings; these follow the style of the WWDC 2017 session 708
/// screenshots ("Notification" for one, "2 Notifications", "3 Notifications") and use each
/// language's usual word for a notification (German "Mitteilung", as Apple's German UI does). A
/// count of exactly 1 shows `single`; any other count picks a variant by the device locale's CLDR
/// plural category, with `%u` replaced by the count. Every language lists a variant for each
/// category CLDR gives it (checked by the tests), so `other` never stands in.
public enum DefaultHiddenPreviewBody {
    struct Texts: Sendable {
        let single: String
        let variants: [PluralCategory: String]
    }

    /// The languages (and scripts) with built-in texts, sorted.
    public static var languages: [String] { texts.keys.sorted() }

    static let texts: [String: Texts] = [
        "ar": Texts(
            single: "إشعار",
            variants: [
                .zero: "لا توجد إشعارات", .one: "إشعار واحد", .two: "إشعاران",
                .few: "%u إشعارات", .many: "%u إشعارًا", .other: "%u إشعار",
            ]),
        "de": Texts(single: "Mitteilung", variants: [.one: "%u Mitteilung", .other: "%u Mitteilungen"]),
        "en": Texts(single: "Notification", variants: [.one: "%u Notification", .other: "%u Notifications"]),
        "es": Texts(
            single: "Notificación",
            variants: [
                .one: "%u notificación", .many: "%u de notificaciones", .other: "%u notificaciones",
            ]),
        "fr": Texts(
            single: "Notification",
            variants: [
                .one: "%u notification", .many: "%u de notifications", .other: "%u notifications",
            ]),
        "it": Texts(
            single: "Notifica", variants: [.one: "%u notifica", .many: "%u di notifiche", .other: "%u notifiche"]),
        "ja": Texts(single: "通知", variants: [.other: "%u件の通知"]),
        "ko": Texts(single: "알림", variants: [.other: "알림 %u개"]),
        "nl": Texts(single: "Melding", variants: [.one: "%u melding", .other: "%u meldingen"]),
        "pl": Texts(
            single: "Powiadomienie",
            variants: [
                .one: "%u powiadomienie", .few: "%u powiadomienia", .many: "%u powiadomień", .other: "%u powiadomienia",
            ]),
        "pt": Texts(
            single: "Notificação",
            variants: [
                .one: "%u notificação", .many: "%u de notificações", .other: "%u notificações",
            ]),
        "ru": Texts(
            single: "Уведомление",
            variants: [
                .one: "%u уведомление", .few: "%u уведомления", .many: "%u уведомлений", .other: "%u уведомления",
            ]),
        "zh": Texts(single: "通知", variants: [.other: "%u条通知"]),
        "zh_Hant": Texts(single: "通知", variants: [.other: "%u則通知"]),
    ]

    /// The built-in body for a thread of `count` notifications in a device locale.
    public static func body(count: Int, locale: String) -> String {
        let match = LocaleIdentifier.fallbackChain(locale).first { texts[$0] != nil }
        let language = match ?? "en"
        guard let chosen = texts[language] else { return "" }
        if count == 1 { return chosen.single }
        let rules = PluralRules(locale: match == nil ? "en" : locale)
        let variable = PluralVariable(variants: chosen.variants)
        return StringFormatter.format(
            "%#@count@", arguments: [.integer(count)], variables: ["count": variable], rules: rules)
    }

    /// Whether a language's texts have a variant for every category its CLDR rules use.
    static func coversAllCategories(of language: String) -> Bool {
        guard let chosen = texts[language] else { return false }
        return PluralRules(locale: language).categories.allSatisfy { chosen.variants[$0] != nil }
    }
}
