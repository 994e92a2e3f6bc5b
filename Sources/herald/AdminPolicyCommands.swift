import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore

/// `herald admin category add|list`: notification categories of an app.
struct CategoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "category", abstract: "Notification categories of apps.", subcommands: [Add.self, List.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or replace a category of an app.",
            discussion: """
                --action ID:Title[:option,option] adds an action (options: authentication_required, destructive, \
                foreground); --text-action ID:Title:Button[:Placeholder] adds a text input action. Repeat them for more.
                """
        )

        static let actionOptions = ["authentication_required", "destructive", "foreground"]
        static let categoryOptions = [
            "custom_dismiss_action", "allow_in_car_play", "hidden_previews_show_title", "hidden_previews_show_subtitle",
        ]

        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String

        @Argument(help: ArgumentHelp("The category identifier (the payload's `category`).", valueName: "identifier"))
        var identifier: String

        @Option(name: .customLong("action"), help: ArgumentHelp("An action: ID:Title[:options].", valueName: "action"))
        var actions: [String] = []

        @Option(
            name: .customLong("text-action"),
            help: ArgumentHelp("A text input action: ID:Title:Button[:Placeholder].", valueName: "action"))
        var textActions: [String] = []

        @Option(
            name: .customLong("intent"), help: ArgumentHelp("An intent identifier; repeat for more.", valueName: "id"))
        var intents: [String] = []

        @Option(help: ArgumentHelp("The body shown when previews are hidden (%u = count).", valueName: "text"))
        var hiddenPreviewsPlaceholder: String?

        @Option(help: ArgumentHelp("The thread summary line, like \"%u more messages from %@\".", valueName: "format"))
        var summaryFormat: String?

        @Option(
            name: .customLong("option"),
            help: ArgumentHelp(
                "custom_dismiss_action, allow_in_car_play, hidden_previews_show_title or hidden_previews_show_subtitle; repeat for more.",
                valueName: "option"))
        var options: [String] = []

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            guard !identifier.isEmpty else { throw ValidationError("The category identifier must not be empty.") }
            _ = try body()
        }

        func body() throws -> JSONValue {
            var made: [JSONValue] = []
            for action in actions {
                let parts = action.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(
                    String.init)
                guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ValidationError("--action must be ID:Title[:options], not \(action).")
                }
                let options = parts.count > 2 ? parts[2].split(separator: ",").map(String.init) : []
                if let bad = options.first(where: { !Self.actionOptions.contains($0) }) {
                    throw ValidationError(
                        "--action options are \(Self.actionOptions.joined(separator: ", ")), not \(bad).")
                }
                made.append(
                    .object([
                        "identifier": .string(parts[0]), "title": .string(parts[1]),
                        "options": .array(options.map(JSONValue.string)),
                    ]))
            }
            for action in textActions {
                let parts = action.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false).map(
                    String.init)
                guard parts.count >= 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
                    throw ValidationError("--text-action must be ID:Title:Button[:Placeholder], not \(action).")
                }
                made.append(
                    .object([
                        "identifier": .string(parts[0]), "title": .string(parts[1]),
                        "text_input": .object([
                            "button_title": .string(parts[2]), "placeholder": .string(parts.count > 3 ? parts[3] : ""),
                        ]),
                    ]))
            }
            if let bad = options.first(where: { !Self.categoryOptions.contains($0) }) {
                throw ValidationError(
                    "--option must be one of \(Self.categoryOptions.joined(separator: ", ")), not \(bad).")
            }
            var body: [String: JSONValue] = [
                "actions": .array(made), "intent_identifiers": .array(intents.map(JSONValue.string)),
                "options": .array(options.map(JSONValue.string)),
            ]
            if let hiddenPreviewsPlaceholder {
                body["hidden_previews_body_placeholder"] = .string(hiddenPreviewsPlaceholder)
            }
            if let summaryFormat { body["category_summary_format"] = .string(summaryFormat) }
            return .object(body)
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.putCategory(bundleID: bundleID, identifier: identifier, category: try body())
        }
    }

    struct List: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "List the categories of an app.")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.categories(bundleID: bundleID) }
    }
}

/// `herald admin localization upload|list`: localization files of an app.
struct LocalizationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "localization", abstract: "Localization files of apps (.strings, .stringsdict, .xcstrings).",
        subcommands: [Upload.self, List.self]
    )

    struct Upload: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a localization file; Herald parses it first and refuses a bad one.")

        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String

        @Argument(help: ArgumentHelp("The locale, like en, pt-BR or Base.", valueName: "locale"))
        var locale: String

        @Argument(
            help: ArgumentHelp(
                "The file (its name is kept: Localizable.strings, *.stringsdict, *.xcstrings).", valueName: "file"))
        var file: String

        @OptionGroup var connection: AdminConnection

        var fileName: String { URL(fileURLWithPath: file).lastPathComponent }

        func validate() throws {
            guard [".strings", ".stringsdict", ".xcstrings"].contains(where: { fileName.hasSuffix($0) }) else {
                throw ValidationError("The file must be a .strings, .stringsdict or .xcstrings file, not \(fileName).")
            }
            guard !locale.isEmpty, !locale.contains("/") else {
                throw ValidationError("The locale must be like en, pt-BR or Base.")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("Cannot read \(file): \(error.localizedDescription)")
            }
            return try await client.uploadLocalization(
                bundleID: bundleID, locale: locale, fileName: fileName, data: data)
        }
    }

    struct List: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "List the localization files of an app.")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.localizations(bundleID: bundleID) }
    }
}

/// `herald admin icon set|remove`: the icon an app's notifications show.
struct IconCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "icon", abstract: "Icons of apps (PNG, JPEG or GIF; without one, a generated initial).",
        subcommands: [Set.self, Remove.self]
    )

    struct Set: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an app's icon from an image file (at most 1 MiB).")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @Argument(help: ArgumentHelp("The image: PNG, JPEG or GIF.", valueName: "file"))
        var file: String
        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("Cannot read \(file): \(error.localizedDescription)")
            }
            return try await client.setAppIcon(bundleID: bundleID, data: data)
        }
    }

    struct Remove: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Remove an app's icon.")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.removeAppIcon(bundleID: bundleID) }
    }
}

/// `herald admin content-extension set|show|remove`: an app's web content extension, the HTML the
/// expanded notification shows for its categories (`UNNotificationContentExtension`'s counterpart).
struct ContentExtensionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content-extension",
        abstract: "Web content extensions of apps: the HTML an expanded notification of their categories shows.",
        subcommands: [Set.self, Show.self, Remove.self]
    )

    enum MediaButton: String, ExpressibleByArgument, CaseIterable {
        case none, `default`, overlay
    }

    struct Set: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an app's content extension from an HTML file (its scripts inline; at most 512 KiB).",
            discussion: """
                The page runs in a sandboxed frame with `window.herald`: onNotification, onAction (answer \
                "doNotDismiss", "dismiss" or "dismissAndForwardAction"), onMediaPlay/onMediaPause, setTitle, \
                setContentSizeRatio, dismiss, performDefaultAction.
                """)
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @Argument(help: ArgumentHelp("The extension's HTML file.", valueName: "file"))
        var file: String
        @Option(
            name: .customLong("category"),
            help: ArgumentHelp(
                "A category it is for (UNNotificationExtensionCategory); repeat for more.", valueName: "id"))
        var categories: [String] = []
        @Option(help: "The initial height as a multiple of the width (UNNotificationExtensionInitialContentSizeRatio).")
        var sizeRatio: Double = 1
        @Flag(help: "Hide the notification's own content below it (UNNotificationExtensionDefaultContentHidden).")
        var defaultContentHidden = false
        @Flag(help: "Its setTitle replaces the app's name as the title (UNNotificationExtensionOverridesDefaultTitle).")
        var overridesDefaultTitle = false
        @Flag(help: "Let touches and the keyboard reach it (UNNotificationExtensionUserInteractionEnabled).")
        var userInteraction = false
        @Option(help: "A media play/pause button: none, default (below it) or overlay (over it).")
        var mediaButton: MediaButton = .none
        @OptionGroup var connection: AdminConnection

        func validate() throws {
            guard !categories.isEmpty else { throw ValidationError("Name a category with --category.") }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            let html: String
            do {
                html = try String(contentsOf: URL(fileURLWithPath: file), encoding: .utf8)
            } catch {
                throw CommandFailure("Cannot read \(file) as UTF-8 text: \(error.localizedDescription)")
            }
            let settings: JSONValue = .object([
                "categories": .array(categories.map(JSONValue.string)), "html": .string(html),
                "initial_content_size_ratio": .number(sizeRatio), "default_content_hidden": .bool(defaultContentHidden),
                "overrides_default_title": .bool(overridesDefaultTitle),
                "user_interaction_enabled": .bool(userInteraction),
                "media_play_pause_button": .string(mediaButton.rawValue),
            ])
            return try await client.setContentExtension(bundleID: bundleID, settings: settings)
        }
    }

    struct Show: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Show an app's content extension (with its HTML).")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.contentExtension(bundleID: bundleID)
        }
    }

    struct Remove: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Remove an app's content extension.")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.removeContentExtension(bundleID: bundleID)
        }
    }
}
