import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Hummingbird

/// `GET /v1/notifications/{id}/decision`: how a notification interrupted, with a sentence per
/// reason. Searches the devices of the token's user (`?device_id=` picks one); a notification of
/// another user's device answers 404 like one that does not exist.
struct DecisionRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [APIRoute(.get, "/v1/notifications/{id}/decision", decision)]
    }

    static let notFound = APIError.notFound(
        "notification_not_found", "There is no notification with this id on your devices.")

    @Sendable func decision(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try context.parameters.require("id")
        var devices = try await store.devices(userID: user.userID).sorted {
            ($0.createdAt, $0.deviceID) < ($1.createdAt, $1.deviceID)
        }
        if let deviceID = request.uri.queryParameters.get("device_id") {
            devices = devices.filter { $0.deviceID == deviceID }
            guard !devices.isEmpty else { throw APIError.deviceNotFound }
        }
        for device in devices {
            for candidate in Set([id, id.lowercased()]).sorted(by: >) {
                if let row = try await store.notification(deviceID: device.deviceID, id: candidate) {
                    let explanation = try await explain(row, device: device)
                    return JSONBody.response(DecisionJSON.json(row, explanation: explanation))
                }
            }
        }
        throw Self.notFound
    }

    /// The hook's explanation, else the stored decision's reasons with their sentences.
    func explain(_ row: StoredNotification, device: Device) async throws -> DecisionExplanation {
        if let hook = dependencies.explainNotification, let explanation = try await hook(row, device) {
            return explanation
        }
        guard let stored = row.decision else {
            return DecisionExplanation(decision: nil, explanations: [], releasedAt: row.releasedAt)
        }
        let decision = stored.decision
        var appName = dependencies.registry.cache.snapshot.apps[row.bundleID]?.name
        if appName == nil { appName = try await store.apps().first { $0.bundleID == row.bundleID }?.name }
        // The decision records what the sentences name (`context`: the Focus that was on, the audio route).
        var focus = stored.context.focus.map { FocusMode(id: $0.id, name: $0.name, kind: $0.kind) }
        if focus == nil, let focusID = decision.focusID {
            focus = FocusCatalog.modes(stored: try await store.focusModes(userID: device.userID)).first {
                $0.id == focusID
            }
        }
        let context = ExplanationContext(
            appName: appName ?? row.bundleID, focus: focus, sender: stored.context.sender?.handle ?? Self.facts(row),
            audioRoute: stored.context.audioRoute,
            criticalVolume: decision.sound.bypassesRinger ? decision.sound.volume : nil
        )
        return DecisionExplanation(
            decision: decision, explanations: decision.explanations(context), releasedAt: row.releasedAt)
    }

    /// The sender handle of a communication notification, when the payload names one.
    static func facts(_ row: StoredNotification) -> PersonHandle? {
        UserStateRoutes.facts(row).sender
    }
}

/// The JSON of a decision and its explanation.
enum DecisionJSON {
    static func json(_ row: StoredNotification, explanation: DecisionExplanation) -> JSONValue {
        var object: [String: JSONValue] = [
            "notification_id": .string(row.id),
            "device_id": .string(row.deviceID),
            "bundle_id": .string(row.bundleID),
            "received_at": .string(Timestamp.string(row.receivedAt)),
            "released_at": .optional(Timestamp.string(explanation.releasedAt ?? row.releasedAt)),
            "decided": .bool(explanation.decision != nil),
            "disposition": .optional(explanation.decision?.disposition.rawValue ?? row.disposition?.rawValue),
            "decision": explanation.decision.map { decision(row, $0) } ?? .null,
            "reasons": .array(
                explanation.explanations.map { item in
                    .object(["code": .string(item.code.rawValue), "sentence": .string(item.sentence)])
                }),
        ]
        let summary = explanation.summary ?? explanation.decision.map { Self.summary($0.disposition) }
        object["summary"] = .optional(summary ?? "Not decided yet.")
        object["display"] =
            NotificationJSON(row).display.map { shown in
                .object([
                    "title": .optional(shown.title), "subtitle": .optional(shown.subtitle),
                    "body": .optional(shown.body),
                ])
            } ?? .null
        return .object(object)
    }

    /// The decision as the list and the streams show it: the row's stored JSON (the OpenAPI
    /// `Decision`), else the explanation's decision alone in the same shape.
    static func decision(_ row: StoredNotification, _ decision: Decision) -> JSONValue {
        if let text = row.decisionJSON, let value = try? JSONParser.parse(Array(text.utf8)) { return value }
        guard let data = try? JSONEncoder().encode(decision) else { return .null }
        return (try? JSONParser.parse(Array(data))) ?? .null
    }

    static func summary(_ disposition: Disposition) -> String {
        switch disposition {
        case .notDelivered: "Not delivered."
        case .listedSilently: "Listed silently in Notification Center."
        case .alerted: "Alerted."
        case .heldForFocus: "Held until the Focus ends."
        case .heldForSummary: "Held for the next Scheduled Summary."
        }
    }
}
