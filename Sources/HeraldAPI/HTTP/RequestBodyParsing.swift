import Foundation
import HeraldCore
import HeraldPolicy

/// Every JSON request body the API accepts, read exactly as its route reads it (the same decoding
/// functions, up to the point where the route goes to the store), for the fuzz target
/// `api-request-body` (HeraldFuzzing, docs/reliability.md).
package enum RequestBodyParsing {
    /// What a body read as: a value to compare, and for a partial `PUT` the value after applying the
    /// same body a second time (a `PUT` is idempotent: it must be the same).
    package struct Parsed {
        package var value: AnyHashable
        package var appliedTwice: AnyHashable?
    }

    /// The routes' bodies, by a short name. New bodies go at the end, so that the first byte of each
    /// committed corpus input (`Fuzz/Corpus/api-request-body`, all below 15) keeps choosing its body.
    package static let kinds = [
        "team", "key", "app", "user", "device", "device-token", "clock-set", "clock-advance", "app-settings",
        "preferences", "focus-mode", "focus-on", "summary", "device-state", "category",
        // The app API and the device's answers to it.
        "app-request", "app-categories", "app-authorization", "notification-response", "will-present",
        // Apps' webhooks and donated interactions.
        "webhook", "interaction", "interaction-remove",
        // The push console.
        "console-push",
        // Apps' web content extensions.
        "content-extension",
    ]

    /// A body read as a tuple of hashable parts, which `AnyHashable` cannot hold.
    private struct Parts<First: Hashable, Second: Hashable>: Hashable {
        var first: First
        var second: Second
    }

    /// Reads `body` as the body of `kind`; throws what the route would answer (an `APIError`).
    package static func parse(kind: String, body: Data) throws -> Parsed {
        func described(_ value: Any) -> Parsed { Parsed(value: AnyHashable("\(value)"), appliedTwice: nil) }
        func applied<T: Hashable>(_ current: T, _ apply: (JSONFields, T) throws -> T) throws -> Parsed {
            let fields = try JSONFields.body(body)
            let once = try apply(fields, current)
            return Parsed(value: AnyHashable(once), appliedTwice: AnyHashable(try apply(fields, once)))
        }
        switch kind {
        case "team": return described(try JSONBody.decode(CreateTeamBody.self, from: body))
        case "key": return described(try JSONBody.decode(CreateKeyBody.self, from: body))
        case "app": return described(try JSONBody.decode(CreateAppBody.self, from: body))
        case "user": return described(try JSONBody.decode(CreateUserBody.self, from: body))
        case "device": return described(try JSONBody.decode(CreateDeviceBody.self, from: body))
        case "device-token": return described(try JSONBody.decode(CreateDeviceTokenBody.self, from: body))
        case "clock-set":
            let decoded = try JSONBody.decode(SetClockBody.self, from: body)
            guard let date = UserStateRoutes.parseTimestamp(decoded.now) else {
                throw APIError.invalidField("now", "must be an ISO 8601 date-time with a time zone.")
            }
            return Parsed(value: AnyHashable(date), appliedTwice: nil)
        case "clock-advance":
            let decoded = try JSONBody.decode(AdvanceClockBody.self, from: body)
            guard decoded.seconds.isFinite else { throw APIError.invalidField("seconds", "must be a number.") }
            return Parsed(value: AnyHashable(decoded.seconds), appliedTwice: nil)
        case "app-settings": return try applied(AppNotificationSettings.authorized, AppSettingsJSON.apply)
        case "preferences": return try applied(UserPreferences(), PreferencesJSON.apply)
        case "focus-mode":
            return try applied(FocusMode(id: "fuzz", name: "fuzz", kind: .custom), FocusCatalog.apply)
        case "focus-on":
            let fields = try JSONFields.optionalBody(body)
            try fields.allowOnly(["until"])
            let until = try fields.nullableString("until") ?? nil
            return Parsed(value: AnyHashable(until.map { UserStateRoutes.parseTimestamp($0) }), appliedTwice: nil)
        case "summary": return try applied(SummarySchedule.off, SummaryJSON.apply)
        case "device-state": return try applied(DeviceState(), DeviceStateJSON.apply)
        case "category":
            let fields = try JSONFields.body(body)
            return Parsed(value: AnyHashable(try CategoryJSON.make(fields, identifier: "fuzz")), appliedTwice: nil)
        case "app-request":
            return Parsed(
                value: AnyHashable(try AppRoutes.addRequestBody(try JSONFields.body(body))), appliedTwice: nil)
        case "app-categories":
            let categories = try AppRoutes.categories(try JSONFields.body(body))
            return Parsed(
                value: AnyHashable(categories.map { Parts(first: $0.identifier, second: $0.json) }), appliedTwice: nil)
        case "app-authorization":
            let asked = try AuthorizationRoutes.authorizationBody(try JSONFields.optionalBody(body))
            return Parsed(value: AnyHashable(Parts(first: asked.options, second: asked.wait)), appliedTwice: nil)
        case "notification-response":
            let response = try ResponseRoutes.responseBody(try JSONFields.body(body))
            return Parsed(value: AnyHashable(Parts(first: response.action, second: response.text)), appliedTwice: nil)
        case "will-present":
            return Parsed(
                value: AnyHashable(try AppStreamRoutes.willPresentOptions(try JSONFields.body(body))), appliedTwice: nil
            )
        case "webhook":
            return Parsed(
                value: AnyHashable(try WebhookRoutes.webhookURL(try JSONFields.body(body))), appliedTwice: nil)
        case "interaction":
            let (parsed, json) = try InteractionRoutes.interaction(try JSONFields.body(body))
            return Parsed(value: AnyHashable(Parts(first: parsed, second: json)), appliedTwice: nil)
        case "interaction-remove":
            let removal = try InteractionRoutes.removal(try JSONFields.body(body))
            return Parsed(
                value: AnyHashable(Parts(first: removal.identifiers, second: removal.group)), appliedTwice: nil)
        case "console-push":
            return Parsed(
                value: AnyHashable(try ConsoleRoutes.consolePush(try JSONFields.body(body))), appliedTwice: nil)
        case "content-extension":
            return Parsed(
                value: AnyHashable(try ContentExtensionSettings.parse(try JSONFields.body(body))), appliedTwice: nil)
        default:
            preconditionFailure("no request body \(kind)")
        }
    }
}
