import Foundation
import HeraldLocalization
import Testing

private func table(strings text: String) throws -> LocalizationTable {
    var table = LocalizationTable()
    try table.addStringsFile(Data(text.utf8))
    return table
}

private let english = PluralRules(locale: "en")

@Suite struct StringsFileTests {
    /// Found by the `xcstrings` fuzz target: an uploaded catalog with a substitution's `argNum: 0`
    /// crashed the server as soon as the string was formatted (an argument index below 1).
    @Test func aCatalogSubstitutionWithArgNumZeroFormatsWithoutCrashing() throws {
        var app = AppLocalizations()
        try app.addStringCatalog(
            Data(
                #"{"sourceLanguage":"en","strings":{"MSG":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"%#@n@"},"substitutions":{"n":{"argNum":0,"formatSpecifier":"lld","variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%arg file"}},"other":{"stringUnit":{"state":"translated","value":"%arg files"}}}}}}}}}}}"#
                    .utf8))
        let text = app.localizedString(key: "MSG", arguments: [.integer(2)], locale: "en")
        #expect(text.hasSuffix(" files"), "\(text)")
        #expect(!text.contains("2"), "\(text)")
    }

    @Test func anXcodeExportReadsWithCommentsEscapesAndShorthands() throws {
        let table = try table(strings: Fixtures.englishStrings)
        #expect(table.keys.count == 8)
        #expect(table.localizedString(key: "GAME_INVITE_TITLE", rules: english) == "Game invitation")
        #expect(
            table.localizedString(key: "ESCAPES", rules: english) == "Line 1\nLine 2\t\"quoted\" back\\slash café 😀 A")
        #expect(table.localizedString(key: "ONLY_KEY", rules: english) == "ONLY_KEY")
        #expect(table.localizedString(key: "unquoted_key", rules: english) == "Unquoted")
        #expect(table.localizedString(key: "100%", rules: english) == "100% done")
        #expect(
            table.localizedString(key: "SCORE_FORMAT", arguments: ["Ann", "Bob", 3], rules: english)
                == "Bob beat Ann by 3 points")
        #expect(table.localizedString(key: "MISSING", rules: english) == nil)
    }

    @Test func utf16FilesWithAByteOrderMarkRead() throws {
        for bigEndian in [false, true] {
            var table = LocalizationTable()
            try table.addStringsFile(Fixtures.utf16(Fixtures.frenchStrings, bigEndian: bigEndian))
            #expect(table.localizedString(key: "GAME_INVITE_TITLE", rules: english) == "Invitation à jouer")
            #expect(table.keys.count == 3)
        }
        var bom = LocalizationTable()
        try bom.addStringsFile(Data([0xEF, 0xBB, 0xBF] + Array(#""a" = "ü";"#.utf8)))
        #expect(bom.localizedString(key: "a", rules: english) == "ü")
    }

    @Test func aLaterDuplicateKeyWins() throws {
        let table = try table(strings: #""a" = "first"; "a" = "second";"#)
        #expect(table.localizedString(key: "a", rules: english) == "second")
    }

    @Test func malformedFilesAreRejectedWithTheLine() throws {
        let cases: [(String, Int, String)] = [
            ("\"a\" = \"b\";\n\"c\" = \"d\"\n\"e\" = \"f\";", 3, "expected ';'"),
            ("\"a\" = \"b\";\n\n\"c\" = \"unterminated;", 3, "never closed"),
            ("/* open comment\n\"a\" = \"b\";", 1, "never closed"),
            ("\"a\" = ;", 1, "expected a value"),
        ]
        for (text, line, reason) in cases {
            let error = try #require(throws: LocalizationFileError.self) { try table(strings: text) }
            #expect(error.line == line, "\(text)")
            #expect(error.reason.contains(reason), "\(error)")
            #expect(error.description.hasPrefix("invalid .strings file (line \(line))"))
        }
        #expect(throws: LocalizationFileError.self) { try LocalizationTable().addingStrings(Data([0xC3, 0x28])) }
    }
}

@Suite struct StringsDictionaryTests {
    @Test func theArabicSeedStringsdictPluralizesAllSixCategories() throws {
        var table = LocalizationTable()
        try table.addStringsDictionary(Fixtures.arabicCommentStringsdict)
        let arabic = PluralRules(locale: "ar")
        let expected: [(Int, String)] = [
            (0, "لا يوجد تعليقات"), (1, "تعليق واحد"), (2, "تعليقان"), (3, "3 تعليقات"), (10, "10 تعليقات"),
            (11, "11 تعليقاً"), (99, "99 تعليقاً"), (100, "100 تعليقاً"), (103, "103 تعليقات"),
        ]
        for (count, text) in expected {
            #expect(
                table.localizedString(key: "COMMENT_KEY", arguments: [.integer(count)], rules: arabic) == text,
                "\(count)")
        }
    }

    @Test func theEnglishSeedStringsdictPluralizesOneAndOther() throws {
        var table = LocalizationTable()
        try table.addStringsDictionary(Fixtures.englishCommentStringsdict)
        #expect(table.localizedString(key: "COMMENT_KEY", arguments: [1], rules: english) == "1 Comment")
        #expect(table.localizedString(key: "COMMENT_KEY", arguments: [2], rules: english) == "2 Comments")
    }

    @Test func aStringsdictEntryOverridesTheStringsEntryWhicheverComesFirst() throws {
        var stringsFirst = try table(strings: Fixtures.englishStrings)
        try stringsFirst.addStringsDictionary(Fixtures.englishCommentStringsdict)
        var dictionaryFirst = LocalizationTable()
        try dictionaryFirst.addStringsDictionary(Fixtures.englishCommentStringsdict)
        try dictionaryFirst.addStringsFile(Data(Fixtures.englishStrings.utf8))
        for table in [stringsFirst, dictionaryFirst] {
            #expect(table.localizedString(key: "COMMENT_KEY", arguments: [2], rules: english) == "2 Comments")
            #expect(table.localizedString(key: "GAME_INVITE_TITLE", rules: english) == "Game invitation")
        }
    }

    @Test func widthAndDeviceRulesPickTheWidestAndTheIPhoneText() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>WIDTH</key><dict><key>NSStringVariableWidthRuleType</key><dict>
              <key>1</key><string>Hi</string><key>20</key><string>Hello there</string><key>3</key><string>Hey</string>
            </dict></dict>
            <key>DEVICE</key><dict><key>NSStringDeviceSpecificRuleType</key><dict>
              <key>mac</key><string>Click</string><key>iphone</key><string>Tap</string>
            </dict></dict>
            </dict></plist>
            """
        var table = LocalizationTable()
        try table.addStringsDictionary(Data(plist.utf8))
        #expect(table.localizedString(key: "WIDTH", rules: english) == "Hello there")
        #expect(table.localizedString(key: "DEVICE", rules: english) == "Tap")
    }

    @Test func filesThatAreNotStringsDictionariesAreRejected() {
        let bad = [
            "not a plist",
            "<plist version=\"1.0\"><array><string>a</string></array></plist>",
            "<plist version=\"1.0\"><dict><key>K</key><dict><key>v</key><string>x</string></dict></dict></plist>",
        ]
        for text in bad {
            #expect(throws: LocalizationFileError.self, "\(text)") {
                var table = LocalizationTable()
                try table.addStringsDictionary(Data(text.utf8))
            }
        }
    }
}

extension LocalizationTable {
    fileprivate func addingStrings(_ data: Data) throws -> LocalizationTable {
        var copy = self
        try copy.addStringsFile(data)
        return copy
    }
}
