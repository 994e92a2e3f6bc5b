import Foundation
import HeraldCore
import HeraldLocalization
import HeraldStore
import Testing

@Suite("Categories and localization files")
struct AppResourceTests {
    let message =
        #"{"actions":[{"identifier":"reply","options":["foreground"],"title":"Reply"}],"hiddenPreviewsBodyPlaceholder":"%u new messages","identifier":"MESSAGE"}"#
    let invite = #"{"actions":[],"identifier":"INVITE"}"#

    @Test(arguments: StoreEngine.all)
    func categoriesAreKeptPerAppAsGiven(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await store.upsertCategory(bundleID: Fixture.appID, identifier: "MESSAGE", json: message)
        try await store.upsertCategory(bundleID: Fixture.appID, identifier: "INVITE", json: invite)
        try await store.upsertCategory(bundleID: Fixture.otherAppID, identifier: "MESSAGE", json: "{}")

        #expect(
            try await store.categories(bundleID: Fixture.appID) == [
                CategoryRecord(bundleID: Fixture.appID, identifier: "INVITE", json: invite),
                CategoryRecord(bundleID: Fixture.appID, identifier: "MESSAGE", json: message),
            ])
        #expect(try await store.category(bundleID: Fixture.appID, identifier: "MESSAGE")?.json == message)
        #expect(try await store.category(bundleID: Fixture.otherAppID, identifier: "MESSAGE")?.json == "{}")
        #expect(try await store.category(bundleID: Fixture.otherAppID, identifier: "INVITE") == nil)

        // Registering it again replaces it; deleting removes it once
        try await store.upsertCategory(
            bundleID: Fixture.appID, identifier: "MESSAGE", json: #"{"identifier":"MESSAGE","actions":[]}"#)
        #expect(
            try await store.category(bundleID: Fixture.appID, identifier: "MESSAGE")?.json
                == #"{"identifier":"MESSAGE","actions":[]}"#)
        #expect(try await store.deleteCategory(bundleID: Fixture.appID, identifier: "INVITE"))
        #expect(try await store.deleteCategory(bundleID: Fixture.appID, identifier: "INVITE") == false)
        #expect(try await store.categories(bundleID: Fixture.appID).map(\.identifier) == ["MESSAGE"])
        #expect(try await store.categories(bundleID: "com.example.none").isEmpty)
    }

    @Test(
        "an app's icon: set, replaced, read back per app, removed; refused when empty or the app is unknown",
        arguments: StoreEngine.all)
    func appIcons(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.appIcon(bundleID: Fixture.appID) == nil)
        let first = AppIconRecord(
            bundleID: Fixture.appID, type: "image/png", data: Data([1, 2, 3]), updatedAt: Fixture.time(1))
        try await store.putAppIcon(first)
        #expect(try await store.appIcon(bundleID: Fixture.appID) == first)
        #expect(try await store.appIcon(bundleID: Fixture.otherAppID) == nil)
        let second = AppIconRecord(
            bundleID: Fixture.appID, type: "image/gif", data: Data([4]), updatedAt: Fixture.time(2))
        try await store.putAppIcon(second)
        #expect(try await store.appIcon(bundleID: Fixture.appID) == second)

        let empty = await #expect(throws: StoreError.self) {
            try await store.putAppIcon(
                AppIconRecord(bundleID: Fixture.appID, type: "image/png", data: Data(), updatedAt: Fixture.time(3)))
        }
        #expect(empty?.kind == .invalid)
        let unknown = await #expect(throws: StoreError.self) {
            try await store.putAppIcon(
                AppIconRecord(
                    bundleID: "com.example.none", type: "image/png", data: Data([1]), updatedAt: Fixture.time(3)))
        }
        #expect(unknown?.kind == .notFound)
        #expect(try await store.appIcon(bundleID: Fixture.appID) == second)

        #expect(try await store.deleteAppIcon(bundleID: Fixture.appID))
        #expect(try await store.deleteAppIcon(bundleID: Fixture.appID) == false)
        #expect(try await store.appIcon(bundleID: Fixture.appID) == nil)
    }

    @Test(
        "an app's content extension: set, replaced, read back per app, removed; refused when not JSON or empty",
        arguments: StoreEngine.all)
    func contentExtensions(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.contentExtension(bundleID: Fixture.appID) == nil)
        let first = ContentExtensionRecord(
            bundleID: Fixture.appID, options: #"{"categories":["invite"]}"#, html: "<p>1</p>",
            updatedAt: Fixture.time(1))
        try await store.putContentExtension(first)
        #expect(try await store.contentExtension(bundleID: Fixture.appID) == first)
        #expect(try await store.contentExtension(bundleID: Fixture.otherAppID) == nil)
        let second = ContentExtensionRecord(
            bundleID: Fixture.appID, options: #"{"categories":["event"]}"#, html: "<p>2</p>", updatedAt: Fixture.time(2)
        )
        try await store.putContentExtension(second)
        #expect(try await store.contentExtension(bundleID: Fixture.appID) == second)
        let other = ContentExtensionRecord(
            bundleID: Fixture.otherAppID, options: #"{"categories":["x"]}"#, html: "<p>3</p>",
            updatedAt: Fixture.time(2))
        try await store.putContentExtension(other)
        #expect(try await store.contentExtensions() == [second, other].sorted { $0.bundleID < $1.bundleID })
        #expect(try await store.deleteContentExtension(bundleID: Fixture.otherAppID))

        for bad in [
            ContentExtensionRecord(bundleID: Fixture.appID, options: "{", html: "<p/>", updatedAt: Fixture.time(3)),
            ContentExtensionRecord(bundleID: Fixture.appID, options: "[1]", html: "<p/>", updatedAt: Fixture.time(3)),
            ContentExtensionRecord(bundleID: Fixture.appID, options: "{}", html: "", updatedAt: Fixture.time(3)),
        ] {
            let error = await #expect(throws: StoreError.self) { try await store.putContentExtension(bad) }
            #expect(error?.kind == .invalid)
        }
        let unknown = await #expect(throws: StoreError.self) {
            try await store.putContentExtension(
                ContentExtensionRecord(
                    bundleID: "com.example.none", options: "{}", html: "<p/>", updatedAt: Fixture.time(3)))
        }
        #expect(unknown?.kind == .notFound)
        #expect(try await store.contentExtension(bundleID: Fixture.appID) == second)

        #expect(try await store.deleteContentExtension(bundleID: Fixture.appID))
        #expect(try await store.deleteContentExtension(bundleID: Fixture.appID) == false)
        #expect(try await store.contentExtension(bundleID: Fixture.appID) == nil)
        #expect(try await store.contentExtensions().isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func aCategoryMustBeAJSONObjectOfAKnownApp(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        let invalid: [StoreError?] = [
            await #expect(throws: StoreError.self) {
                try await store.upsertCategory(bundleID: Fixture.appID, identifier: "X", json: "{\"a\":")
            },
            await #expect(throws: StoreError.self) {
                try await store.upsertCategory(bundleID: Fixture.appID, identifier: "X", json: "[1, 2]")
            },
            await #expect(throws: StoreError.self) {
                try await store.upsertCategory(bundleID: Fixture.appID, identifier: "X", json: "")
            },
            await #expect(throws: StoreError.self) {
                try await store.upsertCategory(bundleID: Fixture.appID, identifier: "", json: "{}")
            },
        ]
        #expect(invalid.map(\.?.kind) == Array(repeating: .invalid, count: invalid.count))
        let missing = await #expect(throws: StoreError.self) {
            try await store.upsertCategory(bundleID: "com.example.none", identifier: "X", json: "{}")
        }
        #expect(missing?.kind == .notFound)
        #expect(try await store.categories(bundleID: Fixture.appID).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func localizationFilesAreKeptByteForByte(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        // A UTF-16 .strings file (with its byte-order mark), as Xcode used to export them
        var utf16 = Data([0xFF, 0xFE])
        utf16.append(#""GREETING" = "Bonjour %@";"#.data(using: .utf16LittleEndian)!)
        let stringsdict = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>MESSAGES</key><dict>
            <key>NSStringLocalizedFormatKey</key><string>%#@count@</string>
            <key>count</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key><string>d</string>
            <key>one</key><string>%d message</string><key>other</key><string>%d messages</string></dict>
            </dict></dict></plist>
            """.utf8)
        let catalog = Data(
            #"{"sourceLanguage":"en","strings":{"BYE":{"localizations":{"de":{"stringUnit":{"state":"translated","value":"Tschüss"}}}}},"version":"1.0"}"#
                .utf8)

        try await store.putLocalizationFile(
            bundleID: Fixture.appID, locale: "fr", kind: .strings, name: "Localizable.strings", data: utf16)
        try await store.putLocalizationFile(
            bundleID: Fixture.appID, locale: "en", kind: .stringsdict, name: "Localizable.stringsdict",
            data: stringsdict)
        try await store.putLocalizationFile(
            bundleID: Fixture.appID, locale: "", kind: .xcstrings, name: "Localizable.xcstrings", data: catalog)
        try await store.putLocalizationFile(
            bundleID: Fixture.otherAppID, locale: "fr", kind: .strings, name: "Localizable.strings", data: Data())

        let files = try await store.localizationFiles(bundleID: Fixture.appID)
        #expect(
            files == [
                LocalizationFileRecord(
                    bundleID: Fixture.appID, locale: "", kind: .xcstrings, name: "Localizable.xcstrings", data: catalog),
                LocalizationFileRecord(
                    bundleID: Fixture.appID, locale: "en", kind: .stringsdict, name: "Localizable.stringsdict",
                    data: stringsdict),
                LocalizationFileRecord(
                    bundleID: Fixture.appID, locale: "fr", kind: .strings, name: "Localizable.strings", data: utf16),
            ])

        // What is read back localizes as the uploaded files do
        var localizations = AppLocalizations()
        for file in files {
            switch file.kind {
            case .strings: try localizations.addStringsFile(file.data, locale: file.locale)
            case .stringsdict: try localizations.addStringsDictionary(file.data, locale: file.locale)
            case .xcstrings: try localizations.addStringCatalog(file.data)
            }
        }
        #expect(
            localizations.localizedString(key: "GREETING", arguments: [.string("Ada")], locale: "fr-FR")
                == "Bonjour Ada")
        #expect(localizations.localizedString(key: "MESSAGES", arguments: [.integer(1)], locale: "en") == "1 message")
        #expect(localizations.localizedString(key: "BYE", locale: "de") == "Tschüss")

        // Uploading again replaces the file; deleting removes it once
        try await store.putLocalizationFile(
            bundleID: Fixture.appID, locale: "fr", kind: .strings, name: "Localizable.strings",
            data: Data(#""GREETING" = "Salut";"#.utf8))
        #expect(
            try await store.localizationFiles(bundleID: Fixture.appID).last?.data
                == Data(#""GREETING" = "Salut";"#.utf8))
        #expect(
            try await store.deleteLocalizationFile(
                bundleID: Fixture.appID, locale: "en", kind: .stringsdict, name: "Localizable.stringsdict"))
        #expect(
            try await store.deleteLocalizationFile(
                bundleID: Fixture.appID, locale: "en", kind: .stringsdict, name: "Localizable.stringsdict") == false)
        #expect(try await store.localizationFiles(bundleID: Fixture.appID).map(\.kind) == [.xcstrings, .strings])
        #expect(try await store.localizationFiles(bundleID: Fixture.otherAppID).map(\.data) == [Data()])
        #expect(try await store.localizationFiles(bundleID: "com.example.none").isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func aLocalizationFileNeedsANameALocaleAndAKnownApp(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        let invalid: [StoreError?] = [
            await #expect(throws: StoreError.self) {
                try await store.putLocalizationFile(
                    bundleID: Fixture.appID, locale: "fr", kind: .strings, name: "", data: Data())
            },
            await #expect(throws: StoreError.self) {
                try await store.putLocalizationFile(
                    bundleID: Fixture.appID, locale: "", kind: .stringsdict, name: "Localizable.stringsdict",
                    data: Data())
            },
        ]
        #expect(invalid.map(\.?.kind) == [.invalid, .invalid])
        let missing = await #expect(throws: StoreError.self) {
            try await store.putLocalizationFile(
                bundleID: "com.example.none", locale: "fr", kind: .strings, name: "Localizable.strings", data: Data())
        }
        #expect(missing?.kind == .notFound)
        #expect(try await store.localizationFiles(bundleID: Fixture.appID).isEmpty)
    }
}
