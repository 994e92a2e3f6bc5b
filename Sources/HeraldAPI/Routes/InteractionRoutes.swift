import Foundation
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// Interactions an app donates (`INInteraction.donate`), behind the app's credential — kept per user
/// and app (issue "communication notifications" builds the Focus's people suggestions on them):
/// - `POST /v1/app/interactions` — one interaction: `{"identifier", "group_identifier"?, "direction":
///   "incoming"|"outgoing"|"unspecified", "date_interval"?: {"start","end"}, "intent": {"kind":
///   "message", "sender"?, "recipients"?, "group"?, "conversation_identifier"?, "service_name"?} or
///   {"kind": "call", "contacts"?}}`; a person is `{"handle"?, "handle_type"?: "phone"|"email"|"unknown",
///   "display_name"?, "id"?, "is_me"?}`. Donating an identifier again replaces it.
/// - `GET /v1/app/interactions` — the app's donations for the user, oldest first.
/// - `POST /v1/app/interactions/remove` `{"identifiers": […]}` or `{"group_identifier": "…"}`, and
///   `DELETE /v1/app/interactions` (all): `{"removed": n}` (`INInteraction.delete(with:)`, `deleteAll`).
struct InteractionRoutes: Sendable {
    static let maximumIdentifierLength = 256
    static let maximumPeople = 100
    static let maximumTextLength = 1024

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/app/interactions", donate),
            APIRoute(.get, "/v1/app/interactions", list),
            APIRoute(.post, "/v1/app/interactions/remove", remove),
            APIRoute(.delete, "/v1/app/interactions", removeAll),
        ]
    }

    @Sendable func donate(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let fields = try await JSONFields.body(request, context: context)
        let (interaction, json) = try Self.interaction(fields)
        let record = InteractionRecord(
            userID: app.userID, bundleID: app.bundleID, deviceID: app.deviceID, identifier: interaction.identifier,
            groupIdentifier: interaction.groupIdentifier, direction: interaction.direction, kind: interaction.kind,
            json: String(decoding: try JSONBody.encode(json), as: UTF8.self), donatedAt: dependencies.now())
        try await mapStoreErrors { try await store.donateInteraction(record) }
        return JSONBody.response(status: .created, JSONValue.object(["interaction": Self.json(record)]))
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let records = try await store.interactions(userID: app.userID, bundleID: app.bundleID)
        return JSONBody.response(JSONValue.object(["interactions": .array(records.map(Self.json))]))
    }

    @Sendable func remove(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let (identifiers, group) = try Self.removal(try await JSONFields.body(request, context: context))
        let removed = try await store.deleteInteractions(
            userID: app.userID, bundleID: app.bundleID, identifiers: identifiers, groupIdentifier: group)
        return JSONBody.response(JSONValue.object(["removed": .number(Double(removed))]))
    }

    @Sendable func removeAll(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let removed = try await store.deleteInteractions(
            userID: app.userID, bundleID: app.bundleID, identifiers: nil, groupIdentifier: nil)
        return JSONBody.response(JSONValue.object(["removed": .number(Double(removed))]))
    }

    // MARK: The JSON

    /// The body of `POST …/interactions/remove`: either identifiers or a group.
    static func removal(_ fields: JSONFields) throws -> (identifiers: [String]?, group: String?) {
        try fields.allowOnly(["identifiers", "group_identifier"])
        let identifiers = try fields.strings("identifiers")
        let group = try fields.string("group_identifier")
        guard (identifiers == nil) != (group == nil) else {
            throw APIError(
                .badRequest, code: "invalid_request",
                message: "Give either `identifiers` or `group_identifier` (DELETE /v1/app/interactions removes all).")
        }
        return (identifiers, group)
    }

    struct Parsed: Hashable {
        var identifier: String
        var groupIdentifier: String?
        var direction: InteractionRecord.Direction
        var kind: InteractionRecord.Kind
    }

    /// Validates a donation and returns it with the JSON kept (the fields as given, checked).
    static func interaction(_ fields: JSONFields) throws -> (Parsed, JSONValue) {
        try fields.allowOnly(["identifier", "group_identifier", "direction", "date_interval", "intent"])
        guard let identifier = try fields.string("identifier") else { throw APIError.missingField("identifier") }
        guard (1...maximumIdentifierLength).contains(identifier.utf8.count) else {
            throw APIError.invalidField("identifier", "must be 1 to \(maximumIdentifierLength) bytes long.")
        }
        let group = try fields.nullableString("group_identifier") ?? nil
        if let group, !(1...maximumIdentifierLength).contains(group.utf8.count) {
            throw APIError.invalidField("group_identifier", "must be 1 to \(maximumIdentifierLength) bytes long.")
        }
        let directions: KeyValuePairs<String, InteractionRecord.Direction> = [
            "unspecified": .unspecified, "outgoing": .outgoing, "incoming": .incoming,
        ]
        let direction = try fields.choice("direction", directions) ?? .unspecified
        if let interval = try fields.fields("date_interval") {
            try interval.allowOnly(["start", "end"])
            var dates: [Date] = []
            for key in ["start", "end"] {
                guard let text = try interval.string(key) else { throw APIError.missingField(interval.name(key)) }
                guard let date = try? Date(text, strategy: .iso8601) else {
                    throw APIError.invalidField(interval.name(key), "must be an ISO 8601 date-time.")
                }
                dates.append(date)
            }
            guard dates[0] <= dates[1] else {
                throw APIError.invalidField(interval.name("end"), "must not be before `start`.")
            }
        }
        guard let intent = try fields.fields("intent") else { throw APIError.missingField("intent") }
        let kinds: KeyValuePairs<String, InteractionRecord.Kind> = ["message": .message, "call": .call]
        guard let kind = try intent.choice("kind", kinds) else { throw APIError.missingField(intent.name("kind")) }
        switch kind {
        case .message:
            try intent.allowOnly(["kind", "sender", "recipients", "group", "conversation_identifier", "service_name"])
            if let sender = intent.object["sender"], sender != .null {
                try person(JSONFields(sender, path: intent.name("sender")))
            }
            try people(intent, "recipients")
            for key in ["group", "conversation_identifier", "service_name"] { try text(intent, key) }
        case .call:
            try intent.allowOnly(["kind", "contacts"])
            try people(intent, "contacts")
        }
        let parsed = Parsed(identifier: identifier, groupIdentifier: group, direction: direction, kind: kind)
        return (parsed, .object(fields.object))
    }

    private static func people(_ fields: JSONFields, _ key: String) throws {
        guard let items = try fields.array(key) else { return }
        guard items.count <= maximumPeople else {
            throw APIError.invalidField(fields.name(key), "must hold at most \(maximumPeople) people.")
        }
        for (index, item) in items.enumerated() {
            try person(JSONFields(item, path: "\(fields.name(key))[\(index)]"))
        }
    }

    private static func person(_ fields: JSONFields) throws {
        try fields.allowOnly(["handle", "handle_type", "display_name", "id", "is_me"])
        for key in ["handle", "display_name", "id"] { try text(fields, key) }
        _ = try fields.choice("handle_type", ["phone": 0, "email": 1, "unknown": 2])
        _ = try fields.bool("is_me")
    }

    /// An optional string (or null) of at most `maximumTextLength` bytes.
    private static func text(_ fields: JSONFields, _ key: String) throws {
        guard let value = try fields.nullableString(key), let text = value else { return }
        guard text.utf8.count <= maximumTextLength else {
            throw APIError.invalidField(fields.name(key), "must be at most \(maximumTextLength) bytes long.")
        }
    }

    static func json(_ record: InteractionRecord) -> JSONValue {
        var object = (try? JSONParser.parse(Array(record.json.utf8)))?.objectValue ?? [:]
        object["identifier"] = .string(record.identifier)
        object["group_identifier"] = .optional(record.groupIdentifier)
        object["direction"] = .string(record.direction.rawValue)
        object["donated_at"] = .string(Timestamp.string(record.donatedAt))
        return .object(object)
    }
}
