import Foundation
import Testing

@testable import HeraldLocalization

private func app() throws -> AppLocalizations {
    var app = AppLocalizations()
    try app.addStringsFile(Data(Fixtures.englishStrings.utf8), locale: "en")
    try app.addStringsFile(Data(Fixtures.frenchStrings.utf8), locale: "fr")
    try app.addStringsDictionary(Fixtures.englishCommentStringsdict, locale: "en")
    try app.addStringsDictionary(Fixtures.arabicCommentStringsdict, locale: "ar")
    try app.addStringCatalog(Fixtures.catalog)
    return app
}

@Suite struct AlertResolutionTests {
    @Test func localizationKeysWinOverLiteralStrings() throws {
        let alert = resolveAlert(
            title: "Literal title", titleLocKey: "GAME_INVITE_TITLE",
            subtitle: "Literal subtitle",
            body: "Literal body", locKey: "GAME_PLAY_REQUEST_FORMAT", locArgs: ["Jenna", "Frank"],
            localizations: try app(), locale: "fr_FR"
        )
        #expect(alert.title == "Invitation à jouer")
        #expect(alert.subtitle == "Literal subtitle")
        #expect(alert.body == "Jenna et Frank vous invitent à jouer au Monopoly")
    }

    @Test func positionalLocArgsAreReorderedByTheTranslation() throws {
        let localizations = try app()
        let english = resolveAlert(
            locKey: "SCORE_FORMAT", locArgs: ["Ann", "Bob", "3"], localizations: localizations, locale: "en")
        let french = resolveAlert(
            locKey: "SCORE_FORMAT", locArgs: ["Ann", "Bob", "3"], localizations: localizations, locale: "fr")
        #expect(english.body == "Bob beat Ann by 3 points")
        #expect(french.body == "Ann a perdu contre Bob de 3 points")
    }

    @Test func aMissingKeyShowsTheKeyFormattedWithItsArguments() throws {
        let alert = resolveAlert(
            titleLocKey: "NO_SUCH_TITLE", subtitleLocKey: "%@ wrote", subtitleLocArgs: ["Ann"],
            localizations: try app(), locale: "en"
        )
        #expect(alert.title == "NO_SUCH_TITLE")
        #expect(alert.subtitle == "Ann wrote")
        #expect(alert.body == nil)
    }

    @Test func literalStringsAreShownUnformatted() {
        let alert = resolveAlert(title: "100% %@", body: "50%% off", localizations: AppLocalizations(), locale: "en")
        #expect(alert.title == "100% %@")
        #expect(alert.body == "50%% off")
        #expect(alert.subtitle == nil)
    }

    @Test func locArgsCanDrivePluralEntries() throws {
        let alert = resolveAlert(
            titleLocKey: "COMMENT_KEY", titleLocArgs: ["11"], locKey: "IMAGE_KEY", locArgs: ["1"],
            localizations: try app(), locale: "ar-SA")
        #expect(alert.title == "11 تعليقاً")
        #expect(alert.body == "1 Image")
    }
}

@Suite struct HiddenPreviewTests {
    @Test func aPlaceholderKeyIsPluralizedByTheThreadCount() throws {
        let localizations = try app()
        #expect(
            hiddenPreviewBody(placeholder: "COMMENT_KEY", threadCount: 1, localizations: localizations, locale: "en")
                == "1 Comment")
        #expect(
            hiddenPreviewBody(placeholder: "COMMENT_KEY", threadCount: 2, localizations: localizations, locale: "en_GB")
                == "2 Comments")
        let arabic: [(Int, String)] = [
            (0, "لا يوجد تعليقات"), (1, "تعليق واحد"), (2, "تعليقان"), (5, "5 تعليقات"), (42, "42 تعليقاً"),
            (100, "100 تعليقاً"),
        ]
        for (count, text) in arabic {
            #expect(
                hiddenPreviewBody(
                    placeholder: "COMMENT_KEY", threadCount: count, localizations: localizations, locale: "ar") == text)
        }
        #expect(
            hiddenPreviewBody(placeholder: "IMAGE_KEY", threadCount: 12, localizations: localizations, locale: "pl")
                == "12 zdjęć")
    }

    @Test func aLiteralPlaceholderHasItsCountSubstituted() {
        let none = AppLocalizations()
        #expect(
            hiddenPreviewBody(placeholder: "%u Comments", threadCount: 2, localizations: none, locale: "en")
                == "2 Comments")
        #expect(
            hiddenPreviewBody(placeholder: "Comment", threadCount: 3, localizations: none, locale: "en") == "Comment")
        #expect(
            hiddenPreviewBody(placeholder: "%u Comments", threadCount: -4, localizations: none, locale: "en")
                == "0 Comments")
    }

    @Test func theDefaultFollowsTheSeedScreenshots() {
        let none = AppLocalizations()
        #expect(
            hiddenPreviewBody(placeholder: nil, threadCount: 1, localizations: none, locale: "en") == "Notification")
        #expect(
            hiddenPreviewBody(placeholder: nil, threadCount: 2, localizations: none, locale: "en") == "2 Notifications")
        #expect(
            hiddenPreviewBody(placeholder: "", threadCount: 3, localizations: none, locale: "en_US")
                == "3 Notifications")
        #expect(
            hiddenPreviewBody(placeholder: nil, threadCount: 7, localizations: none, locale: "xx") == "7 Notifications")
    }

    @Test func theDefaultIsPluralizedPerLanguage() {
        let expected: [(String, Int, String)] = [
            ("ar", 1, "إشعار"), ("ar", 2, "إشعاران"), ("ar", 3, "3 إشعارات"), ("ar_EG", 11, "11 إشعارًا"),
            ("ar", 100, "100 إشعار"),
            ("fr", 2, "2 notifications"), ("fr", 1_000_000, "1000000 de notifications"), ("de", 1, "Mitteilung"),
            ("de", 4, "4 Mitteilungen"),
            ("es", 5, "5 notificaciones"), ("ja", 5, "5件の通知"), ("ru", 21, "21 уведомление"),
            ("ru", 22, "22 уведомления"),
            ("ru", 25, "25 уведомлений"), ("pt_PT", 0, "0 notificações"), ("pt-BR", 0, "0 notificação"),
            ("zh-Hant-TW", 3, "3則通知"),
            ("zh_TW", 2, "2則通知"), ("zh_CN", 2, "2条通知"), ("zh", 2, "2条通知"),
        ]
        for (locale, count, text) in expected {
            #expect(
                hiddenPreviewBody(
                    placeholder: nil, threadCount: count, localizations: AppLocalizations(), locale: locale) == text,
                "\(locale) \(count)")
        }
    }

    @Test func everyDefaultLanguageCoversEveryCategoryItsRulesUse() {
        #expect(Set(["en", "ar", "fr", "de", "es", "ja", "ru"]).isSubset(of: DefaultHiddenPreviewBody.languages))
        for language in DefaultHiddenPreviewBody.languages {
            for count in 0...200 where count != 1 {
                let body = DefaultHiddenPreviewBody.body(count: count, locale: language)
                #expect(!body.isEmpty && !body.contains("%"), "\(language) \(count)")
            }
            #expect(DefaultHiddenPreviewBody.coversAllCategories(of: language), "\(language)")
        }
    }
}
