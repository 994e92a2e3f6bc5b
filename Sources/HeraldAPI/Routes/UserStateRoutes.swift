import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import Logging

/// The user-side state of the delivery policy (`/v1/me/…`, user token), shared by all devices of
/// the user: per-app settings, preferences, Focus modes, the Scheduled Summary; and each device's
/// state (`/v1/devices/{device_id}/state`, owner only). Every committed change calls the hooks.
struct UserStateRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }
    var now: Date { dependencies.now() }

    var routes: [APIRoute] {
        [
            APIRoute(.get, "/v1/me/apps/{bundle_id}/settings", getAppSettings),
            APIRoute(.put, "/v1/me/apps/{bundle_id}/settings", putAppSettings),
            APIRoute(.get, "/v1/me/preferences", getPreferences),
            APIRoute(.put, "/v1/me/preferences", putPreferences),
            APIRoute(.get, "/v1/me/focus-modes", listFocusModes),
            APIRoute(.put, "/v1/me/focus-modes/{id}", putFocusMode),
            APIRoute(.delete, "/v1/me/focus-modes/{id}", deleteFocusMode),
            APIRoute(.post, "/v1/me/focus-modes/{id}/on", focusOn),
            APIRoute(.post, "/v1/me/focus-modes/{id}/off", focusOff),
            APIRoute(.get, "/v1/me/focus", activeFocus),
            APIRoute(.get, "/v1/me/focus-modes/{id}/suggested-people", suggestedPeople),
            APIRoute(.get, "/v1/me/summary", getSummary),
            APIRoute(.put, "/v1/me/summary", putSummary),
            APIRoute(.get, "/v1/me/summary/next", nextSummary),
            APIRoute(.get, "/v1/devices/{device_id}/state", getDeviceState),
            APIRoute(.put, "/v1/devices/{device_id}/state", putDeviceState),
        ]
    }

    // MARK: Per-app settings

    @Sendable func getAppSettings(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let bundleID = try await requireApp(context)
        let stored = try await store.appSettings(userID: user.userID)[bundleID]
        return JSONBody.response(
            AppSettingsJSON.json(
                stored ?? PolicyCoordinator.defaultAppSettings, bundleID: bundleID, isDefault: stored == nil))
    }

    @Sendable func putAppSettings(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let bundleID = try await requireApp(context)
        let fields = try await JSONFields.body(request, context: context)
        let current = try await store.appSettings(userID: user.userID)[bundleID] ?? PolicyCoordinator.defaultAppSettings
        let settings = try AppSettingsJSON.apply(fields, to: current)
        try await mapStoreErrors { try await store.setAppSettings(settings, userID: user.userID, bundleID: bundleID) }
        await dependencies.policy.userStateChanged(userID: user.userID)
        return JSONBody.response(AppSettingsJSON.json(settings, bundleID: bundleID, isDefault: false))
    }

    // MARK: Preferences

    @Sendable func getPreferences(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let preferences = try await store.preferences(userID: user.userID) ?? UserPreferences()
        return JSONBody.response(PreferencesJSON.json(preferences))
    }

    @Sendable func putPreferences(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let fields = try await JSONFields.body(request, context: context)
        let current = try await store.preferences(userID: user.userID) ?? UserPreferences()
        let preferences = try PreferencesJSON.apply(fields, to: current)
        try await mapStoreErrors { try await store.setPreferences(preferences, userID: user.userID) }
        await focusChanged(userID: user.userID)
        return JSONBody.response(PreferencesJSON.json(preferences))
    }

    // MARK: Focus

    /// The user's modes (built-ins included) and their time zone.
    private func focusState(userID: String) async throws -> (modes: [FocusMode], zone: TimeZone) {
        let stored = try await store.focusModes(userID: userID)
        let zone = try await store.preferences(userID: userID)?.timeZone ?? TimeZone(identifier: "UTC")!
        return (FocusCatalog.modes(stored: stored), zone)
    }

    private func focusID(_ context: APIRequestContext) throws -> String {
        let id = try context.parameters.require("id")
        guard Identifiers.isFocusID(id) else {
            throw APIError.invalidParameter("id", "must be 1 to 64 lowercase letters, digits, `_` or `-`.")
        }
        return id
    }

    @Sendable func listFocusModes(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let (modes, zone) = try await focusState(userID: user.userID)
        let active = FocusModes(modes).active(at: now, in: zone)
        return JSONBody.response(
            JSONValue.object(["focus_modes": .array(modes.map { FocusCatalog.json($0, active: active) })]))
    }

    @Sendable func putFocusMode(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try focusID(context)
        let fields = try await JSONFields.body(request, context: context)
        let (modes, zone) = try await focusState(userID: user.userID)
        let isNew = !modes.contains { $0.id == id }
        if isNew, !fields.has("name") { throw APIError.missingField("name") }
        let current = modes.first { $0.id == id } ?? FocusMode(id: id, name: id, kind: .custom)
        let mode = try FocusCatalog.apply(fields, to: current)
        try await mapStoreErrors { try await store.upsertFocusMode(mode, userID: user.userID) }
        await focusChanged(userID: user.userID)
        let updated = modes.map { $0.id == id ? mode : $0 } + (isNew ? [mode] : [])
        let active = FocusModes(updated).active(at: now, in: zone)
        return JSONBody.response(status: isNew ? .created : .ok, FocusCatalog.json(mode, active: active))
    }

    @Sendable func deleteFocusMode(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try focusID(context)
        guard !FocusCatalog.isBuiltIn(id) else {
            throw APIError(
                .badRequest, code: "focus_built_in",
                message: "The built-in Focus `\(id)` cannot be deleted; only custom ones can.")
        }
        guard try await store.deleteFocusMode(id: id, userID: user.userID) else {
            throw APIError.notFound("focus_not_found", "There is no Focus with this id.")
        }
        await focusChanged(userID: user.userID)
        return Response(status: .noContent)
    }

    @Sendable func focusOn(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try focusID(context)
        let fields = try await JSONFields.optionalBody(request, context: context)
        try fields.allowOnly(["until"])
        let instant = now
        var until: Date?
        if let text = try fields.nullableString("until") ?? nil {
            guard let date = Self.parseTimestamp(text) else {
                throw APIError.invalidField("until", "must be an ISO 8601 timestamp like 2026-01-02T18:00:00Z.")
            }
            guard date > instant else { throw APIError.invalidField("until", "must be in the future.") }
            until = date
        }
        var (modes, zone) = try await focusState(userID: user.userID)
        guard let index = modes.firstIndex(where: { $0.id == id }) else {
            throw APIError.notFound("focus_not_found", "There is no Focus with this id.")
        }
        // One Focus at a time: turning one on turns off the others that were turned on by hand.
        var changed: [FocusMode] = []
        for other in modes.indices where other != index {
            if case .on = modes[other].manual {
                modes[other].manual = .off(since: instant)
                changed.append(modes[other])
            }
        }
        modes[index].manual = .on(since: instant, until: until)
        changed.append(modes[index])
        for mode in changed {
            try await mapStoreErrors { try await store.upsertFocusMode(mode, userID: user.userID) }
        }
        await focusChanged(userID: user.userID)
        let active = FocusModes(modes).active(at: instant, in: zone)
        return JSONBody.response(FocusCatalog.json(modes[index], active: active))
    }

    @Sendable func focusOff(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try focusID(context)
        var (modes, zone) = try await focusState(userID: user.userID)
        guard let index = modes.firstIndex(where: { $0.id == id }) else {
            throw APIError.notFound("focus_not_found", "There is no Focus with this id.")
        }
        let instant = now
        modes[index].manual = .off(since: instant)
        try await mapStoreErrors { try await store.upsertFocusMode(modes[index], userID: user.userID) }
        await focusChanged(userID: user.userID)
        let active = FocusModes(modes).active(at: instant, in: zone)
        return JSONBody.response(FocusCatalog.json(modes[index], active: active))
    }

    /// After a change of the user's Focus modes (or time zone): the policy applies it, and every
    /// device of the user is told the active Focus at once (`event: focus`, as `GET /v1/me/focus`),
    /// so each of the user's notification centers shows it.
    private func focusChanged(userID: String) async {
        await dependencies.policy.userStateChanged(userID: userID)
        await FocusAnnouncer.announce(userID: userID, dependencies: dependencies)
    }

    @Sendable func activeFocus(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        return JSONBody.response(try await FocusAnnouncer.activeJSON(userID: user.userID, dependencies: dependencies))
    }

    /// The people to suggest for the Focus's allowed people: those the user messaged or called
    /// (apps' outgoing donations only), not yet allowed or silenced in it, most reached first.
    @Sendable func suggestedPeople(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try focusID(context)
        let limit = try DeviceRoutes.limit(request.uri.queryParameters.get("limit"))
        guard let mode = try await focusState(userID: user.userID).modes.first(where: { $0.id == id }) else {
            throw APIError.notFound("focus_not_found", "There is no Focus with this id.")
        }
        let outgoing = try await store.interactions(
            userID: user.userID, direction: .outgoing, limit: Self.suggestionHistory)
        let suggestions = PeopleSuggestions.rank(
            outgoing.map(Self.suggestionInput), excluding: Array(mode.allowedPeople) + Array(mode.silencedPeople),
            limit: limit)
        return JSONBody.response(
            JSONValue.object([
                "focus_id": .string(mode.id),
                "people": .array(
                    suggestions.map { suggestion in
                        .object([
                            "type": .string(PolicyNames.name(suggestion.handle.kind, in: PolicyNames.handleKind)),
                            "value": .string(suggestion.handle.value),
                            "display_name": .optional(suggestion.displayName),
                            "bundle_ids": .strings(suggestion.bundleIDs),
                            "interactions": .number(Double(suggestion.interactions)),
                            "last_interaction_at": .string(Timestamp.string(suggestion.lastInteraction)),
                        ])
                    }),
            ]))
    }

    /// How many of the user's latest outgoing interactions the suggestions read.
    static let suggestionHistory = 5000

    /// The people an outgoing interaction reached: a message's recipients, a call's contacts (the
    /// user's own entries, `is_me`, and people without a handle left out).
    static func suggestionInput(_ record: InteractionRecord) -> PeopleSuggestions.Interaction {
        let intent = (try? JSONParser.parse(Array(record.json.utf8)))?.objectValue?["intent"]?.objectValue ?? [:]
        let listed: [JSONValue]
        if case .array(let items)? = intent[record.kind == .call ? "contacts" : "recipients"] {
            listed = items
        } else {
            listed = []
        }
        let kinds: [String: PersonHandle.Kind] = [
            "phone": .phoneNumber, "email": .emailAddress, "unknown": .appSpecific,
        ]
        let people = listed.compactMap { item -> PeopleSuggestions.Person? in
            guard let person = item.objectValue, person["is_me"] != .bool(true),
                let handle = person["handle"]?.stringValue, !handle.isEmpty,
                let kind = kinds[person["handle_type"]?.stringValue ?? "unknown"]
            else { return nil }
            return PeopleSuggestions.Person(
                handle: PersonHandle(handle, kind: kind), displayName: person["display_name"]?.stringValue)
        }
        return PeopleSuggestions.Interaction(people: people, bundleID: record.bundleID, date: record.donatedAt)
    }

    // MARK: Scheduled Summary

    @Sendable func getSummary(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let schedule = try await store.summarySchedule(userID: user.userID) ?? .off
        let zone = try await store.preferences(userID: user.userID)?.timeZone ?? TimeZone(identifier: "UTC")!
        return JSONBody.response(SummaryJSON.json(schedule, next: schedule.nextDelivery(after: now, in: zone)))
    }

    @Sendable func putSummary(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let fields = try await JSONFields.body(request, context: context)
        let current = try await store.summarySchedule(userID: user.userID) ?? .off
        let schedule = try SummaryJSON.apply(fields, to: current)
        try await mapStoreErrors { try await store.setSummarySchedule(schedule, userID: user.userID) }
        await dependencies.policy.userStateChanged(userID: user.userID)
        let zone = try await store.preferences(userID: user.userID)?.timeZone ?? TimeZone(identifier: "UTC")!
        return JSONBody.response(SummaryJSON.json(schedule, next: schedule.nextDelivery(after: now, in: zone)))
    }

    @Sendable func nextSummary(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let instant = now
        let deviceIDs = try await store.devices(userID: user.userID).map(\.deviceID)
        let held = try await store.heldNotifications(deviceIDs: deviceIDs, dispositions: [.heldForSummary])
        let preview = try await dependencies.policy.nextSummaryPreview(userID: user.userID, now: instant)
        return JSONBody.response(SummaryPreviewJSON.json(preview, rows: held))
    }

    /// The policy facts of a stored notification (its payload parsed again).
    static func facts(_ row: StoredNotification) -> NotificationFacts {
        guard let payload = try? NotificationPayload(json: Data(row.payload.utf8)) else {
            return NotificationFacts(id: row.id, bundleID: row.bundleID, receivedAt: row.receivedAt)
        }
        return NotificationFacts(
            id: row.id, bundleID: row.bundleID, payload: payload, collapseID: row.collapseID, receivedAt: row.receivedAt
        )
    }

    // MARK: Device state

    @Sendable func getDeviceState(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
        let state = try await store.deviceState(deviceID: device.deviceID) ?? DeviceState()
        return JSONBody.response(DeviceStateJSON.json(state, deviceID: device.deviceID))
    }

    @Sendable func putDeviceState(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
        let fields = try await JSONFields.body(request, context: context)
        let current = try await store.deviceState(deviceID: device.deviceID) ?? DeviceState()
        var state = try DeviceStateJSON.apply(fields, to: current)
        state.hasConnectedSession = dependencies.hub.hasSession(deviceID: device.deviceID)
        try await mapStoreErrors { try await store.setDeviceState(state, deviceID: device.deviceID) }
        let json = DeviceStateJSON.json(state, deviceID: device.deviceID)
        dependencies.hub.publishState(deviceID: device.deviceID, json)
        await dependencies.policy.deviceStateChanged(deviceID: device.deviceID)
        if let location = state.location, location != current.location {
            // Location triggers whose region the device entered or left fire before the answer.
            do {
                try await dependencies.policy.localNotifications.deviceMoved(
                    deviceID: device.deviceID, from: current.location, to: location)
            } catch {
                context.logger.error(
                    "Could not fire the location triggers of a device that moved",
                    metadata: ["device.id": "\(device.deviceID)", "error": "\(error)"])
            }
        }
        return JSONBody.response(json)
    }

    // MARK: Helpers

    /// The path's bundle id, when an app has it (404 `app_not_found` otherwise).
    private func requireApp(_ context: APIRequestContext) async throws -> String {
        let bundleID = try context.parameters.require("bundle_id")
        if dependencies.registry.cache.snapshot.apps[bundleID] != nil { return bundleID }
        guard try await store.apps().contains(where: { $0.bundleID == bundleID }) else {
            throw APIError.notFound("app_not_found", "There is no app with this bundle id.")
        }
        return bundleID
    }

    static func parseTimestamp(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }
}

/// Store errors as API errors (a user or app that vanished meanwhile, a value the store refuses).
func mapStoreErrors<T>(_ operation: () async throws -> T) async throws -> T {
    do {
        return try await operation()
    } catch let error as StoreError {
        switch error.kind {
        case .notFound: throw APIError.notFound("not_found", error.message)
        case .conflict: throw APIError.conflict("conflict", error.message)
        case .invalid: throw APIError(.badRequest, code: "invalid_request", message: error.message)
        }
    }
}
