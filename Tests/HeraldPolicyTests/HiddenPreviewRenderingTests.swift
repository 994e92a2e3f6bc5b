import HeraldLocalization
import HeraldPolicy
import Testing

/// A decision's hidden preview rendered through HeraldLocalization.
@Suite("Hidden preview rendering")
struct HiddenPreviewRenderingTests {
    @Test("Without a placeholder the default is pluralized for the locale; with one, %u is the thread count")
    func rendering() {
        var scenario = Scenario()
        scenario.preferences.showPreviews = .never
        scenario.device.locale = "ar"
        scenario.notification.threadCount = 3
        guard case .hidden(let preview) = scenario.decide().preview else {
            Issue.record("not hidden")
            return
        }
        let localizations = AppLocalizations()
        #expect(preview.body(localizations: localizations) == "3 إشعارات")

        scenario.device.locale = "en"
        scenario.notification.hiddenPreviewsPlaceholder = "%u new comments"
        guard case .hidden(let english) = scenario.decide().preview else {
            Issue.record("not hidden")
            return
        }
        #expect(english.body(localizations: localizations) == "3 new comments")
    }
}
