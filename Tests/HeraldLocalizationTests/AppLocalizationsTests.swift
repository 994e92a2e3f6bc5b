import Foundation
import HeraldLocalization
import Testing

/// An app with English and French `.strings`, English and Arabic stringsdicts, and the catalog.
private func demoApp() throws -> AppLocalizations {
    var app = AppLocalizations()
    try app.addStringsFile(Data(Fixtures.englishStrings.utf8), locale: "en")
    try app.addStringsFile(Fixtures.utf16(Fixtures.frenchStrings, bigEndian: false), locale: "fr")
    try app.addStringsDictionary(Fixtures.englishCommentStringsdict, locale: "en")
    try app.addStringsDictionary(Fixtures.arabicCommentStringsdict, locale: "ar")
    try app.addStringCatalog(Fixtures.catalog)
    return app
}

@Suite struct StringCatalogTests {
    @Test func pluralVariationsPickByTheArgument() throws {
        let app = try demoApp()
        #expect(app.localizedString(key: "IMAGE_KEY", arguments: [1], locale: "en") == "1 Image")
        #expect(app.localizedString(key: "IMAGE_KEY", arguments: [4], locale: "en_US") == "4 Images")
        #expect(app.localizedString(key: "IMAGE_KEY", arguments: [3], locale: "pl") == "3 zdjęcia")
        #expect(app.localizedString(key: "IMAGE_KEY", arguments: [5], locale: "pl-PL") == "5 zdjęć")
        #expect(app.localizedString(key: "IMAGE_KEY", arguments: [22], locale: "pl") == "22 zdjęcia")
    }

    @Test func substitutionsPluralizeTheirArgumentNumber() throws {
        let app = try demoApp()
        let key = "%@ sent %lld photos"
        #expect(app.localizedString(key: key, arguments: ["Ann", 1], locale: "en") == "Ann sent a photo")
        #expect(app.localizedString(key: key, arguments: ["Ann", 3], locale: "en") == "Ann sent 3 photos")
        #expect(app.localizedString(key: key, arguments: ["Ann", "1"], locale: "de_AT") == "Ann hat ein Foto gesendet")
        #expect(app.localizedString(key: key, arguments: ["Ann", "7"], locale: "de") == "Ann hat 7 Fotos gesendet")
    }

    @Test func deviceVariationsUseTheIPhoneTextAndNewTranslationsAreSkipped() throws {
        let app = try demoApp()
        #expect(app.localizedString(key: "TAP_TO_OPEN", locale: "en") == "Tap to open")
        #expect(app.localizedString(key: "TAP_TO_OPEN", locale: "fr") == "Tap to open")
        #expect(app.localizedString(key: "TAP_TO_OPEN", locale: "pt-BR") == "Toque para abrir")
        #expect(app.localizedString(key: "Only in the source language", locale: "fr") == "Only in the source language")
    }

    @Test func theSourceLanguageBecomesTheDevelopmentLanguage() throws {
        var app = AppLocalizations()
        #expect(app.developmentLanguage == "en")
        try app.addStringCatalog(
            Data(
                #"{"sourceLanguage": "de", "strings": {"K": {"localizations": {"de": {"stringUnit": {"state": "translated", "value": "Hallo"}}}}}}"#
                    .utf8))
        #expect(app.developmentLanguage == "de")
        #expect(app.localizedString(key: "K", locale: "ja") == "Hallo")
        #expect(AppLocalizations(developmentLanguage: "fr-CA").developmentLanguage == "fr_CA")
    }

    @Test func malformedCatalogsAreRejected() {
        let bad = [
            "{", #"{"strings": {}}"#,
            #"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"en": {"stringUnit": {"value": 3}}}}}}"#,
        ]
        for text in bad {
            #expect(throws: LocalizationFileError.self, "\(text)") {
                var app = AppLocalizations()
                try app.addStringCatalog(Data(text.utf8))
            }
        }
        let error = #expect(throws: LocalizationFileError.self) {
            var app = AppLocalizations()
            try app.addStringCatalog(Data(#"{"strings": {}}"#.utf8))
        }
        #expect(error?.description.contains("sourceLanguage") == true)
    }
}

@Suite struct AppLocalizationsTests {
    @Test func theExactLocaleWinsThenTheLanguage() throws {
        var app = try demoApp()
        try app.addStringsFile(Data(#""GAME_INVITE_TITLE" = "Invitation (Canada)";"#.utf8), locale: "fr-CA")
        #expect(app.localizedString(key: "GAME_INVITE_TITLE", locale: "fr_CA") == "Invitation (Canada)")
        #expect(app.localizedString(key: "GAME_INVITE_TITLE", locale: "fr-FR") == "Invitation à jouer")
        #expect(app.localizedString(key: "GAME_INVITE_TITLE", locale: "fr") == "Invitation à jouer")
        #expect(app.lookupOrder(for: "fr_CA") == ["fr_CA", "fr", "en"])
        #expect(app.locales == ["ar", "de", "en", "fr", "fr_CA", "pl", "pt_BR"])
    }

    @Test func aMissingKeyFallsBackToTheDevelopmentLanguageThenToTheKey() throws {
        let app = try demoApp()
        #expect(app.localizedString(key: "COMMENT_KEY", arguments: [2], locale: "fr") == "2 Comments")
        #expect(app.localizedString(key: "NO_SUCH_KEY", locale: "fr") == "NO_SUCH_KEY")
        #expect(app.localizedString(key: "%@ is here", arguments: ["Ann"], locale: "fr") == "Ann is here")
        #expect(app.localizedStringIfPresent(key: "NO_SUCH_KEY", locale: "fr") == nil)
        #expect(AppLocalizations().localizedString(key: "KEY", locale: "en") == "KEY")
    }

    @Test func scriptsFallBackStepByStep() throws {
        var app = AppLocalizations(developmentLanguage: "en")
        try app.addStringsFile(Data(#""HELLO" = "你好";"#.utf8), locale: "zh-Hans")
        try app.addStringsFile(Data(#""HELLO" = "您好";"#.utf8), locale: "zh_Hant")
        #expect(app.localizedString(key: "HELLO", locale: "zh-Hant-TW") == "您好")
        #expect(app.localizedString(key: "HELLO", locale: "zh_Hans_CN") == "你好")
        #expect(app.localizedString(key: "HELLO", locale: "en") == "HELLO")
        // Chinese locales without a script find the folder of the script their region writes.
        #expect(app.localizedString(key: "HELLO", locale: "zh_TW") == "您好")
        #expect(app.localizedString(key: "HELLO", locale: "zh-HK") == "您好")
        #expect(app.localizedString(key: "HELLO", locale: "zh_CN") == "你好")
        #expect(app.localizedString(key: "HELLO", locale: "zh") == "你好")
        #expect(app.lookupOrder(for: "zh_TW") == ["zh_Hant"])
    }

    @Test func pluralsUseTheRulesOfTheLocaleThatAnswered() throws {
        let app = try demoApp()
        // The Egyptian device reads the Arabic table with Arabic rules.
        #expect(app.localizedString(key: "COMMENT_KEY", arguments: [2], locale: "ar_EG") == "تعليقان")
        #expect(app.localizedString(key: "COMMENT_KEY", arguments: [11], locale: "ar-EG") == "11 تعليقاً")
        // A French device falls back to English text, so English rules: 0 is "other", not French "one".
        #expect(app.localizedString(key: "COMMENT_KEY", arguments: [0], locale: "fr") == "0 Comments")
    }

    @Test func aBaseTableComesAfterTheDevelopmentLanguage() throws {
        var app = AppLocalizations(developmentLanguage: "en")
        try app.addStringsFile(Data(#""A" = "base a"; "B" = "base b";"#.utf8), locale: "Base")
        try app.addStringsFile(Data(#""A" = "english a";"#.utf8), locale: "en")
        #expect(app.localizedString(key: "A", locale: "ja") == "english a")
        #expect(app.localizedString(key: "B", locale: "ja") == "base b")
    }

    @Test func tablesCanBeReplacedAndRemoved() throws {
        var app = try demoApp()
        app.setTable(nil, locale: "fr")
        #expect(app.localizedString(key: "GAME_INVITE_TITLE", locale: "fr") == "Game invitation")
        var table = LocalizationTable()
        try table.addStringsFile(Data(#""GAME_INVITE_TITLE" = "Nouvelle partie";"#.utf8))
        app.setTable(table, locale: "fr")
        #expect(app.localizedString(key: "GAME_INVITE_TITLE", locale: "fr_BE") == "Nouvelle partie")
    }
}
