import HeraldLocalization

extension HiddenPreview {
    /// The body shown instead of the content: the category's placeholder localized with the
    /// app's strings, `%u` = the thread count pluralized by the CLDR rules of the locale, or
    /// Herald's default placeholder when the category has none.
    public func body(localizations: AppLocalizations) -> String {
        hiddenPreviewBody(
            placeholder: placeholder, threadCount: threadCount, localizations: localizations, locale: locale)
    }
}
