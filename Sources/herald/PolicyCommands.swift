import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore
import HeraldServer

/// `herald explain ID`: why a notification interrupted as it did.
struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain how a notification interrupted, one sentence per reason.",
        discussion: "Looks on the user's devices (--device picks one). --json prints the API's answer."
    )

    @Argument(help: ArgumentHelp("The notification id (its apns-id).", valueName: "id"))
    var id: String

    @Option(name: .customLong("device"), help: ArgumentHelp("Look only on this device.", valueName: "id"))
    var deviceID: String?

    @Flag(help: "Print the API's JSON answer.")
    var json = false

    @OptionGroup var connection: UserConnection

    func validate() throws {
        guard !id.isEmpty else { throw ValidationError("The notification id must not be empty.") }
    }

    func run() async throws {
        let json = json
        try await connection.perform({ try await $0.decision(notificationID: id, deviceID: deviceID) }) { body in
            if json {
                Console.printLine(String(decoding: body, as: UTF8.self))
            } else {
                for line in Self.lines(body) { Console.printLine(line) }
            }
        }
    }

    /// The summary, what the device shows, then one line per reason.
    static func lines(_ body: Data) -> [String] {
        guard let object = (try? JSONDecoder().decode(JSONValue.self, from: body))?.objectValue else {
            return [String(decoding: body, as: UTF8.self)]
        }
        var lines: [String] = []
        let id = object["notification_id"]?.stringValue ?? "?"
        let device = object["device_id"]?.stringValue ?? "?"
        lines.append("\(id) on \(device): \(object["summary"]?.stringValue ?? "")")
        if let display = object["display"]?.objectValue {
            let shown = ["title", "subtitle", "body"].compactMap { display[$0]?.stringValue }
            if !shown.isEmpty { lines.append("Shows: " + shown.joined(separator: " | ")) }
        }
        if case .array(let reasons)? = object["reasons"] {
            for reason in reasons {
                let sentence = reason.objectValue?["sentence"]?.stringValue ?? ""
                let code = reason.objectValue?["code"]?.stringValue ?? ""
                lines.append("- \(sentence) [\(code)]")
            }
        }
        return lines
    }
}

/// `herald focus list|status|on|off`.
struct FocusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus", abstract: "The user's Focus modes.",
        subcommands: [List.self, Status.self, On.self, Off.self, Suggest.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the Focus modes (built-ins and custom ones).")
        @OptionGroup var connection: UserConnection
        func run() async throws { try await connection.perform { try await $0.focusModes() } }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The Focus that is on now, and why.")
        @OptionGroup var connection: UserConnection
        func run() async throws { try await connection.perform { try await $0.activeFocus() } }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a Focus on (until --until, or until turned off).")

        @Argument(
            help: ArgumentHelp(
                "The Focus id (do_not_disturb, personal, work, sleep, reading, driving or a custom one).",
                valueName: "id"))
        var id: String

        @Option(
            help: ArgumentHelp(
                "When it turns off by itself: an ISO 8601 time like 2026-01-02T18:00:00Z.", valueName: "time"))
        var until: String?

        @OptionGroup var connection: UserConnection

        func validate() throws {
            try FocusCommand.validate(id: id)
            if let until, (try? Date(until, strategy: .iso8601)) == nil {
                throw ValidationError("--until must be an ISO 8601 time like 2026-01-02T18:00:00Z, not \(until).")
            }
        }

        func run() async throws { try await connection.perform { try await $0.focusOn(id: id, until: until) } }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn a Focus off.")

        @Argument(help: ArgumentHelp("The Focus id.", valueName: "id"))
        var id: String

        @OptionGroup var connection: UserConnection

        func validate() throws { try FocusCommand.validate(id: id) }

        func run() async throws { try await connection.perform { try await $0.focusOff(id: id) } }
    }

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "People to allow in a Focus: those you messaged or called in your apps, most often first.")

        @Argument(help: ArgumentHelp("The Focus id.", valueName: "id"))
        var id: String

        @Option(help: "At most this many (1-500, default 100).")
        var limit: Int?

        @OptionGroup var connection: UserConnection

        func validate() throws { try FocusCommand.validate(id: id) }

        func run() async throws {
            try await connection.perform { try await $0.suggestedPeople(focusID: id, limit: limit) }
        }
    }

    static func validate(id: String) throws {
        let allowed =
            (1...64).contains(id.count)
            && id.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }
        guard allowed else {
            throw ValidationError("The Focus id must be 1 to 64 lowercase letters, digits, `_` or `-`, like work.")
        }
    }
}

/// `herald settings get|set BUNDLE`: the user's notification settings of an app.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "The user's notification settings of an app.",
        subcommands: [Get.self, Set.self]
    )

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the settings of an app.")
        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String
        @OptionGroup var connection: UserConnection
        func run() async throws { try await connection.perform { try await $0.appSettings(bundleID: bundleID) } }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change settings of an app; the ones not given stay.",
            discussion:
                "Switches take enabled, disabled or not_supported; --show-previews default and --grouping default go back to the user's global choice."
        )

        static let switches = ["enabled", "disabled", "not_supported"]

        @Argument(help: ArgumentHelp("The app's bundle id.", valueName: "bundle-id"))
        var bundleID: String

        @Option(
            help: ArgumentHelp("not_determined, denied, authorized, provisional or ephemeral.", valueName: "status"))
        var authorizationStatus: String?
        @Option(help: ArgumentHelp("none, banner or alert.", valueName: "style"))
        var alertStyle: String?
        @Option(help: ArgumentHelp("always, when_unlocked, never or default.", valueName: "when"))
        var showPreviews: String?
        @Option(help: ArgumentHelp("Sounds.", valueName: "switch")) var sound: String?
        @Option(help: ArgumentHelp("Badges.", valueName: "switch")) var badge: String?
        @Option(help: ArgumentHelp("Lock screen.", valueName: "switch")) var lockScreen: String?
        @Option(help: ArgumentHelp("Notification Center.", valueName: "switch")) var notificationCenter: String?
        @Option(help: ArgumentHelp("CarPlay.", valueName: "switch")) var carPlay: String?
        @Option(help: ArgumentHelp("Time-sensitive notifications.", valueName: "switch")) var timeSensitive: String?
        @Option(help: ArgumentHelp("Critical alerts.", valueName: "switch")) var criticalAlerts: String?
        @Option(help: ArgumentHelp("In the Scheduled Summary.", valueName: "switch")) var scheduledDelivery: String?
        @Option(help: ArgumentHelp("Messages in the summary too.", valueName: "switch")) var directMessagesInSummary:
            String?
        @Option(help: ArgumentHelp("Announce.", valueName: "switch")) var announcement: String?
        @Option(help: ArgumentHelp("automatic, by_app, off or default (the user's preference).", valueName: "grouping"))
        var grouping: String?

        @OptionGroup var connection: UserConnection

        /// The body: each option given, by its API field name.
        func fields() throws -> [String: JSONValue] {
            var fields: [String: JSONValue] = [:]
            func add(_ value: String?, _ key: String, _ allowed: [String]) throws {
                guard let value else { return }
                guard allowed.contains(value) else {
                    throw ValidationError(
                        "--\(key.replacingOccurrences(of: "_", with: "-")) must be one of \(allowed.joined(separator: ", ")), not \(value)."
                    )
                }
                fields[key] = .string(value)
            }
            try add(
                authorizationStatus, "authorization_status",
                ["not_determined", "denied", "authorized", "provisional", "ephemeral"])
            try add(alertStyle, "alert_style", ["none", "banner", "alert"])
            if showPreviews == "default" {
                fields["show_previews"] = .null
            } else {
                try add(showPreviews, "show_previews", ["always", "when_unlocked", "never", "default"])
            }
            if grouping == "default" {
                fields["grouping"] = .null
            } else {
                try add(grouping, "grouping", ["automatic", "by_app", "off", "default"])
            }
            for (value, key) in [
                (sound, "sound"), (badge, "badge"), (lockScreen, "lock_screen"),
                (notificationCenter, "notification_center"),
                (carPlay, "car_play"), (timeSensitive, "time_sensitive"), (criticalAlerts, "critical_alerts"),
                (scheduledDelivery, "scheduled_delivery"), (directMessagesInSummary, "direct_messages_in_summary"),
                (announcement, "announcement"),
            ] {
                try add(value, key, Self.switches)
            }
            return fields
        }

        func validate() throws {
            if try fields().isEmpty {
                throw ValidationError("Give at least one setting to change, like --sound disabled.")
            }
        }

        func run() async throws {
            let fields = try fields()
            try await connection.perform { try await $0.setAppSettings(bundleID: bundleID, fields: fields) }
        }
    }
}

/// `herald device-state get|set`: what a device is doing (locked, ringer, audio route, …).
struct DeviceStateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-state", abstract: "A device's state (locked, ringer, audio route, foreground app).",
        subcommands: [Get.self, Set.self]
    )

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a device's state.")
        @Argument(help: ArgumentHelp("The device id (default: the demo device).", valueName: "device"))
        var deviceID: String?
        @OptionGroup var connection: UserConnection
        func run() async throws {
            let deviceID = try DeviceStateCommand.device(deviceID, connection)
            try await connection.perform { try await $0.deviceState(deviceID: deviceID) }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a device's state; what is not given stays.")

        @Argument(help: ArgumentHelp("The device id (default: the demo device).", valueName: "device"))
        var deviceID: String?
        @Option(help: ArgumentHelp("Whether the device is locked.", valueName: "true|false")) var locked: Toggle?
        @Option(help: ArgumentHelp("Whether the ringer is silent.", valueName: "true|false")) var ringerSilent: Toggle?
        @Option(help: ArgumentHelp("none, headphones, car or speaker.", valueName: "route")) var audioRoute: String?
        @Option(help: ArgumentHelp("The app in front (a bundle id; `none` for none).", valueName: "bundle-id"))
        var foregroundApp: String?
        @Option(
            help: ArgumentHelp(
                "The foreground app's willPresent options: comma-separated banner,list,sound,badge; `none` = no delegate.",
                valueName: "options"))
        var willPresent: String?
        @Option(help: ArgumentHelp("An IANA time zone, like Europe/Paris.", valueName: "zone")) var timeZone: String?
        @Option(help: ArgumentHelp("A locale like fr-CA.", valueName: "locale")) var locale: String?
        @OptionGroup var connection: UserConnection

        func fields() throws -> [String: JSONValue] {
            var fields: [String: JSONValue] = [:]
            if let locked { fields["locked"] = .bool(locked.value) }
            if let ringerSilent { fields["ringer_silent"] = .bool(ringerSilent.value) }
            if let audioRoute {
                guard ["none", "headphones", "car", "speaker"].contains(audioRoute) else {
                    throw ValidationError("--audio-route must be none, headphones, car or speaker, not \(audioRoute).")
                }
                fields["audio_route"] = .string(audioRoute)
            }
            if willPresent != nil, foregroundApp == nil || foregroundApp == "none" {
                throw ValidationError("--will-present needs --foreground-app.")
            }
            if let foregroundApp {
                if foregroundApp == "none" {
                    fields["foreground_app"] = .null
                } else {
                    var options: JSONValue = .array([
                        .string("banner"), .string("list"), .string("sound"), .string("badge"),
                    ])
                    if let willPresent {
                        if willPresent == "none" {
                            options = .null
                        } else {
                            let names = willPresent.split(separator: ",").map {
                                String($0).trimmingCharacters(in: .whitespaces)
                            }
                            if let bad = names.first(where: { !["banner", "list", "sound", "badge"].contains($0) }) {
                                throw ValidationError("--will-present takes banner, list, sound and badge, not \(bad).")
                            }
                            options = .array(names.map(JSONValue.string))
                        }
                    }
                    fields["foreground_app"] = .object(["bundle_id": .string(foregroundApp), "will_present": options])
                }
            }
            if let timeZone {
                guard TimeZone(identifier: timeZone) != nil else {
                    throw ValidationError("--time-zone must be an IANA time zone like Europe/Paris.")
                }
                fields["time_zone"] = .string(timeZone)
            }
            if let locale { fields["locale"] = .string(locale) }
            return fields
        }

        func validate() throws {
            if try fields().isEmpty { throw ValidationError("Give at least one thing to change, like --locked false.") }
        }

        func run() async throws {
            let deviceID = try DeviceStateCommand.device(deviceID, connection)
            let fields = try fields()
            try await connection.perform { try await $0.setDeviceState(deviceID: deviceID, fields: fields) }
        }
    }

    static func device(_ deviceID: String?, _ connection: UserConnection) throws -> String {
        if let deviceID { return deviceID }
        guard let demo = try connection.demo() else {
            throw ValidationError("Missing the device id: give it, or --data DIR to use the demo device.")
        }
        return demo.deviceID
    }
}
