import Foundation
import Testing

@testable import HeraldLocalization

@Suite("Category summary line")
struct CategorySummaryTests {
    /// A Russian stringsdict entry for the summary format key `MORE_MESSAGES`: "%u more messages
    /// from %@" with the CLDR categories of Russian.
    static let russianSummaryStringsdict = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>MORE_MESSAGES</key>
        \t<dict>
        \t\t<key>NSStringLocalizedFormatKey</key>
        \t\t<string>%#@messages@ от %@</string>
        \t\t<key>messages</key>
        \t\t<dict>
        \t\t\t<key>NSStringFormatSpecTypeKey</key>
        \t\t\t<string>NSStringPluralRuleType</string>
        \t\t\t<key>NSStringFormatValueTypeKey</key>
        \t\t\t<string>u</string>
        \t\t\t<key>one</key>
        \t\t\t<string>ещё %u сообщение</string>
        \t\t\t<key>few</key>
        \t\t\t<string>ещё %u сообщения</string>
        \t\t\t<key>many</key>
        \t\t\t<string>ещё %u сообщений</string>
        \t\t\t<key>other</key>
        \t\t\t<string>ещё %u сообщения</string>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """.utf8)

    static func russian() throws -> AppLocalizations {
        var localizations = AppLocalizations()
        try localizations.addStringsDictionary(russianSummaryStringsdict, locale: "ru")
        return localizations
    }

    @Test func aFormatKeyIsPluralizedByTheCountInTheDeviceLocale() throws {
        let localizations = try Self.russian()
        let cases = [
            (1, "ещё 1 сообщение от Ана"), (3, "ещё 3 сообщения от Ана"), (5, "ещё 5 сообщений от Ана"),
            (21, "ещё 21 сообщение от Ана"),
        ]
        for (count, text) in cases {
            #expect(
                CategorySummary.text(
                    format: "MORE_MESSAGES", count: count, arguments: ["Ана"], localizations: localizations,
                    locale: "ru-RU") == text)
        }
        #expect(
            CategorySummary.text(
                format: "MORE_MESSAGES", count: 2, arguments: ["Ана", "Борис", "Вера"], localizations: localizations,
                locale: "ru"
            ) == "ещё 2 сообщения от Ана, Борис и Вера")
    }

    @Test func aPlainFormatIsFilledInWithTheCountAndTheArgumentList() {
        let none = AppLocalizations()
        #expect(
            CategorySummary.text(
                format: "%u more messages from %@", count: 2, arguments: ["Ana", "Bo"], localizations: none,
                locale: "en"
            ) == "2 more messages from Ana and Bo")
        #expect(
            CategorySummary.text(format: "%u more photos", count: 4, arguments: [], localizations: none, locale: "en")
                == "4 more photos")
    }

    @Test func withoutAFormatOrWithoutArgumentsForItsPlaceholderTheDefaultIsShown() throws {
        let none = AppLocalizations()
        #expect(
            CategorySummary.text(format: nil, count: 1, arguments: ["Ana"], localizations: none, locale: "en")
                == "1 more notification")
        #expect(
            CategorySummary.text(format: "", count: 2, arguments: [], localizations: none, locale: "en")
                == "2 more notifications")
        #expect(
            CategorySummary.text(
                format: "%u more messages from %@", count: 2, arguments: [], localizations: none, locale: "de")
                == "2 weitere Mitteilungen")
        // Also when the `%@` is in the localized string of a key.
        #expect(
            CategorySummary.text(
                format: "MORE_MESSAGES", count: 5, arguments: [], localizations: try Self.russian(), locale: "ru")
                == "ещё 5 уведомлений")
    }

    @Test func theDefaultIsPluralizedByCLDRInArabic() {
        let expected = [
            0: "لا توجد إشعارات أخرى", 1: "إشعار واحد آخر", 2: "إشعاران آخران", 3: "3 إشعارات أخرى",
            11: "11 إشعارًا آخر", 100: "100 إشعار آخر",
        ]
        for (count, text) in expected {
            #expect(CategorySummary.defaultText(count: count, locale: "ar") == text)
        }
        #expect(CategorySummary.defaultText(count: 3, locale: "xx") == "3 more notifications")
    }

    @Test func everyBuiltInLanguageCoversItsPluralCategories() {
        for language in CategorySummary.languages {
            #expect(CategorySummary.coversAllCategories(of: language), "\(language)")
        }
    }

    @Test func listsAreJoinedInTheDeviceLanguage() {
        #expect(CategorySummary.list([], locale: "en") == "")
        #expect(CategorySummary.list(["Ana"], locale: "en") == "Ana")
        #expect(CategorySummary.list(["Ana", "Bo", "Cy"], locale: "en-GB") == "Ana, Bo and Cy")
        #expect(CategorySummary.list(["أنا", "بو"], locale: "ar") == "أنا وبو")
    }
}
