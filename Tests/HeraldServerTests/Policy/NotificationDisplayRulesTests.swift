import Foundation
import HeraldCore
import HeraldLocalization
import HeraldPolicy
import Testing

@testable import HeraldServer

@Suite("NotificationDisplay: what the device shows, rule by rule")
struct NotificationDisplayRulesTests {
    /// Counts how often the localizations are asked for.
    final class Lookups {
        var count = 0
        let localizations: AppLocalizations

        init(_ localizations: AppLocalizations = AppLocalizations()) { self.localizations = localizations }

        func make() -> AppLocalizations {
            count += 1
            return localizations
        }
    }

    static let ana = CommunicationContent(
        kind: .message, sender: .init(handle: "+15550100200", kind: .phoneNumber, displayName: "Ana"),
        recipients: [
            .init(handle: "ben@example.com", kind: .emailAddress, displayName: "Ben"),
            .init(handle: "cleo", kind: .appSpecific),
        ]
    )

    static func hidden(placeholder: String? = nil, count: Int = 1, title: Bool = false, subtitle: Bool = false)
        -> PreviewDecision
    {
        .hidden(
            HiddenPreview(
                placeholder: placeholder, threadCount: count, locale: "en", showsTitle: title, showsSubtitle: subtitle))
    }

    @Test func aPlainAlertShownInFullHasNoDisplayAndLooksNothingUp() {
        let lookups = Lookups()
        let alert = Alert(title: "Sale", subtitle: "Today", body: "50% off")
        #expect(
            NotificationDisplay.make(
                alert: alert, communication: nil, preview: .full, localizations: lookups.make(), locale: "en") == nil)
        #expect(lookups.count == 0)
    }

    @Test func withoutAnAlertNothingIsShown() {
        #expect(
            NotificationDisplay.make(
                alert: nil, communication: Self.ana, preview: Self.hidden(), localizations: AppLocalizations(),
                locale: "en") == nil)
    }

    @Test func aCommunicationShowsTheSenderAndTheGroupOrTheRecipients() {
        let lookups = Lookups()
        let alert = Alert(title: "New message", subtitle: "From the app", body: "On my way")
        let recipients = NotificationDisplay.make(
            alert: alert, communication: Self.ana, preview: .full, localizations: lookups.make(), locale: "en")
        #expect(recipients == NotificationDisplay(title: "Ana", subtitle: "Ben, cleo", body: "On my way"))
        var group = Self.ana
        group.group = "Lunch crew"
        let grouped = NotificationDisplay.make(
            alert: alert, communication: group, preview: .full, localizations: lookups.make(), locale: "en")
        #expect(grouped == NotificationDisplay(title: "Ana", subtitle: "Lunch crew", body: "On my way"))
        var direct = Self.ana
        direct.recipients = []
        let single = NotificationDisplay.make(
            alert: alert, communication: direct, preview: .full, localizations: lookups.make(), locale: "en")
        #expect(single == NotificationDisplay(title: "Ana", subtitle: "From the app", body: "On my way"))
        #expect(lookups.count == 0)
    }

    @Test func aHiddenPreviewShowsThePlaceholderAndTheTitleOnlyWhenTheCategorySaysSo() {
        let alert = Alert(title: "New message", subtitle: "Lunch", body: "Secret")
        let bare = NotificationDisplay.make(
            alert: alert, communication: Self.ana, preview: Self.hidden(), localizations: AppLocalizations(),
            locale: "en")
        #expect(bare == NotificationDisplay(title: nil, subtitle: nil, body: "Notification"))
        let titled = NotificationDisplay.make(
            alert: alert, communication: Self.ana,
            preview: Self.hidden(placeholder: "%u messages", count: 4, title: true),
            localizations: AppLocalizations(), locale: "en"
        )
        #expect(titled == NotificationDisplay(title: "Ana", subtitle: nil, body: "4 messages"))
        let subtitled = NotificationDisplay.make(
            alert: alert, communication: nil, preview: Self.hidden(count: 2, subtitle: true),
            localizations: AppLocalizations(), locale: "en"
        )
        #expect(subtitled == NotificationDisplay(title: nil, subtitle: "Lunch", body: "2 Notifications"))
    }

    @Test func locKeysAreResolvedAndAMissingOneShowsTheKey() throws {
        var localizations = AppLocalizations()
        try localizations.addStringsFile(Data(#""GREETING" = "Bonjour %@"; "BODY" = "Texte";"#.utf8), locale: "fr")
        var alert = Alert(title: "Literal")
        alert.titleLocKey = "GREETING"
        alert.titleLocArgs = ["Ana"]
        alert.subtitleLocKey = "MISSING"
        alert.locKey = "BODY"
        let shown = NotificationDisplay.make(
            alert: alert, communication: nil, preview: .full, localizations: localizations, locale: "fr-CA")
        #expect(shown == NotificationDisplay(title: "Bonjour Ana", subtitle: "MISSING", body: "Texte"))
    }
}
