/// The title, subtitle and body a device shows for an APNs `alert`, localized in the device's locale.
///
/// As on iOS, a localization key wins over the literal string of the same field (`title-loc-key`
/// over `title`, `subtitle-loc-key` over `subtitle`, `loc-key` over `body`); the key's string is
/// looked up in the app's localizations with Apple's fallback and formatted with the field's
/// `…-loc-args` (`%@`, `%1$@`, stringsdict plurals). A key the app has no string for shows the key
/// itself, formatted with the arguments. A literal string is shown as it is, unformatted. A field
/// with neither is nil.
public func resolveAlert(
    title: String? = nil,
    titleLocKey: String? = nil,
    titleLocArgs: [String]? = nil,
    subtitle: String? = nil,
    subtitleLocKey: String? = nil,
    subtitleLocArgs: [String]? = nil,
    body: String? = nil,
    locKey: String? = nil,
    locArgs: [String]? = nil,
    localizations: AppLocalizations,
    locale: String
) -> (title: String?, subtitle: String?, body: String?) {
    func field(_ literal: String?, _ key: String?, _ arguments: [String]?) -> String? {
        guard let key else { return literal }
        return localizations.localizedString(
            key: key, arguments: (arguments ?? []).map(FormatArgument.string), locale: locale)
    }
    return (
        title: field(title, titleLocKey, titleLocArgs),
        subtitle: field(subtitle, subtitleLocKey, subtitleLocArgs),
        body: field(body, locKey, locArgs)
    )
}
