/// The body a device shows for a notification whose preview is hidden.
///
/// With a placeholder (the category's `hiddenPreviewsBodyPlaceholder`): if the app's localizations
/// have the placeholder as a key, its string in the device's locale, with the thread count as the
/// first argument, so a stringsdict or String Catalog plural entry picks its variant by the count
/// with the CLDR rules of that locale (`COMMENT_KEY` → `%#@comment@` → Arabic `تعليقان` for 2);
/// otherwise the placeholder itself with `%u` replaced by the count (`"%u Comments"` → `"2 Comments"`).
///
/// Without a placeholder (nil or empty): Herald's built-in default, as in the WWDC 2017 session
/// (708) screenshots: the singular word alone for a single notification (`Notification`), else the
/// count with the plural form CLDR picks for the device's locale (`2 Notifications`, Arabic
/// `3 إشعارات` / `11 إشعارًا`). See ``DefaultHiddenPreviewBody`` for the languages provided; other
/// languages get English.
public func hiddenPreviewBody(
    placeholder: String?,
    threadCount: Int,
    localizations: AppLocalizations,
    locale: String
) -> String {
    let count = max(threadCount, 0)
    guard let placeholder, !placeholder.isEmpty else {
        return DefaultHiddenPreviewBody.body(count: count, locale: locale)
    }
    return localizations.localizedString(key: placeholder, arguments: [.integer(count)], locale: locale)
}
