import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore

/// Explains a stored notification's decision: the body of `GET /v1/notifications/{id}/decision`
/// and `herald explain` (the OpenAPI `DecisionExplanation`):
///
/// ```json
/// {"notification_id": "…", "device_id": "…", "bundle_id": "…", "received_at": "…", "released_at": null,
///  "decided": true, "disposition": "heldForFocus",
///  "decision": {…},   // the stored decision, as in the list and the streams (the OpenAPI `Decision`)
///  "reasons": [{"code": "focus-held", "sentence": "Held: the Work Focus is on and Demo is not an allowed app."}],
///  "summary": "Held until the Focus ends.",
///  "display": {"title", "subtitle", "body"}}
/// ```
/// Each reason's sentence names the app and the Focus as they were when it was decided. A decision
/// without reasons (nothing stood in the way) gets one `allowed` line, so the answer always says why.
public struct DecisionExplainer: Sendable {
    let engine: DeliveryPolicyEngine

    /// The explanation of `row`'s decision; `decided` is false, `decision` null and `reasons` empty
    /// while it has none.
    public func explain(_ row: StoredNotification) -> JSONValue {
        let stored = row.decision
        let reasons: [JSONValue] = (stored.map { reasonLines(row, stored: $0) } ?? []).map {
            .object(["code": .string($0.code), "sentence": .string($0.sentence)])
        }
        return .object([
            "notification_id": .string(row.id),
            "device_id": .string(row.deviceID),
            "bundle_id": .string(row.bundleID),
            "received_at": .string(Self.timestamp(row.receivedAt)),
            "released_at": optional(row.releasedAt.map(Self.timestamp)),
            "decided": .bool(stored != nil),
            "disposition": optional(stored?.decision.disposition.rawValue ?? row.disposition?.rawValue),
            "decision": stored.map { Self.json($0, row: row) } ?? .null,
            "reasons": .array(reasons),
            "summary": .string(stored.map { Self.summary($0.decision.disposition) } ?? "Not decided yet."),
            "display": Self.display(stored?.display, row: row),
        ])
    }

    /// One sentence summing up a disposition.
    static func summary(_ disposition: Disposition) -> String {
        switch disposition {
        case .notDelivered: "Not delivered."
        case .listedSilently: "Listed silently in Notification Center."
        case .alerted: "Alerted."
        case .heldForFocus: "Held until the Focus ends."
        case .heldForSummary: "Held for the next Scheduled Summary."
        }
    }

    /// What the device shows: the decision's `display`, else the `alert` as sent (null without one).
    static func display(_ display: NotificationDisplay?, row: StoredNotification) -> JSONValue {
        let shown =
            display
            ?? (try? NotificationPayload(json: Data(row.payload.utf8)))?.aps.alert.map {
                NotificationDisplay(title: $0.title, subtitle: $0.subtitle, body: $0.body)
            }
        guard let shown else { return .null }
        return .object([
            "title": optional(shown.title), "subtitle": optional(shown.subtitle), "body": optional(shown.body),
        ])
    }

    /// Each reason code of the stored decision with its sentence, in the order the rules fired; one
    /// `allowed` line when the decision has no reasons.
    func reasonLines(_ row: StoredNotification, stored: DecisionRecord) -> [(code: String, sentence: String)] {
        let decision = stored.decision
        let appName = engine.app(row.bundleID).name
        let context = ExplanationContext(
            appName: appName, focus: stored.context.focus.map(Self.mode), sender: stored.context.sender?.handle,
            senderName: stored.context.sender?.name, audioRoute: stored.context.audioRoute,
            criticalVolume: decision.sound.bypassesRinger ? decision.sound.volume : nil,
            unrecognizedLevel: decision.reasons.contains(.interruptionLevelUnrecognized)
                ? Self.unrecognizedLevel(row) : nil
        )
        var lines: [(code: String, sentence: String)] = []
        if decision.reasons.isEmpty {
            lines.append(("allowed", Self.allowedSentence(decision.disposition, appName: appName)))
        }
        for code in decision.reasons {
            lines.append((code.rawValue, sentence(code, stored: stored, context: context, appName: appName)))
        }
        return lines
    }

    /// The explanation as JSON text (UTF-8, keys sorted).
    public func explanationData(_ row: StoredNotification) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(explain(row))
    }

    private func sentence(_ code: ReasonCode, stored: DecisionRecord, context: ExplanationContext, appName: String)
        -> String
    {
        switch code {
        case ServerReason.releasedFromFocus:
            let focus = stored.context.releasedFrom.map { Self.mode($0).phrase } ?? "the Focus that held it"
            guard stored.decision.disposition != .notDelivered else {
                return "Released: \(focus) ended or changed, so it was decided again."
            }
            return
                "Released quietly when \(focus) ended or changed: listed without a banner or sound, as what a Focus held does not alert again."
        case ServerReason.releasedFromSummary:
            guard stored.decision.disposition != .notDelivered else {
                return
                    "Released: \(appName) left the Scheduled Summary, or the summary was turned off, so it was decided again."
            }
            return
                "Released quietly when \(appName) left the Scheduled Summary, or the summary was turned off: listed without a banner or sound, as what the summary held does not alert again."
        case ServerReason.communicationInvalid:
            let why = stored.context.communicationError.map { ": \($0)" } ?? "."
            return "Not treated as a message or call: the push's communication key is not valid\(why)"
        case ServerReason.extensionModified, ServerReason.extensionUnchanged, ServerReason.extensionBestAttempt,
            ServerReason.extensionTimedOut, ServerReason.extensionFailed:
            return Self.extensionSentence(stored.context.serviceExtension, appName: appName)
        case ServerReason.summaryDelivered:
            guard let summary = stored.context.summary else { return "Delivered quietly in a Scheduled Summary." }
            let slot = Self.timestamp(Date(timeIntervalSince1970: Double(summary.slotMilliseconds) / 1000))
            return "Delivered quietly in the Scheduled Summary of \(slot)"
                + (summary.isFeatured ? ", as a featured notification." : ".")
        default:
            return code.explanation(context)
        }
    }

    /// The payload's `interruption-level` the policy did not recognise (read only for a decision
    /// that says so).
    static func unrecognizedLevel(_ row: StoredNotification) -> ExplanationContext.UnrecognizedLevel? {
        guard let payload = try? NotificationPayload(json: Data(row.payload.utf8)) else { return nil }
        return ExplanationContext.UnrecognizedLevel(
            NotificationFacts(id: row.id, bundleID: row.bundleID, payload: payload, receivedAt: row.receivedAt)
        )
    }

    /// What the app's notification service extension did, in a sentence.
    static func extensionSentence(_ ref: DecisionRecord.ServiceExtensionRef?, appName: String) -> String {
        guard let ref else { return "\(appName)'s notification service extension ran." }
        let took = Self.duration(ref.durationMilliseconds)
        let budget = Self.duration(ref.budgetMilliseconds)
        switch ref.outcome {
        case .modified:
            return "Changed by \(appName)'s notification service extension in \(took)."
        case .unchanged:
            return "\(appName)'s notification service extension ran in \(took) and kept the content as sent."
        case .bestAttempt:
            return
                "\(appName)'s notification service extension ran out of its \(budget): the best attempt it gave when told its time was up is shown."
        case .timedOut:
            return
                "\(appName)'s notification service extension gave no content within its \(budget), even when told its time was up: shown as sent."
        case .failed:
            let why = ref.error.map { " (\($0))" } ?? ""
            return "\(appName)'s notification service extension failed\(why): shown as sent."
        }
    }

    /// "120 ms", "2.5 s", "30 s".
    static func duration(_ milliseconds: Int) -> String {
        guard milliseconds >= 1000 else { return "\(milliseconds) ms" }
        let seconds = Double(milliseconds) / 1000
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    static func allowedSentence(_ disposition: Disposition, appName: String) -> String {
        switch disposition {
        case .alerted: "Alerted: \(appName) may send notifications, and no Focus or Scheduled Summary held it."
        case .listedSilently: "Listed silently in Notification Center."
        case .notDelivered: "Not delivered."
        case .heldForFocus: "Held until the Focus ends."
        case .heldForSummary: "Held for the next Scheduled Summary."
        }
    }

    static func mode(_ focus: DecisionRecord.FocusRef) -> FocusMode {
        FocusMode(id: focus.id, name: focus.name, kind: focus.kind)
    }

    /// The decision as the list and the streams show it: the stored JSON (decision, `context`,
    /// `display`, `actions`; the OpenAPI `Decision`), else the decision alone in the same shape.
    static func json(_ stored: DecisionRecord, row: StoredNotification) -> JSONValue {
        if let text = row.decisionJSON, let value = try? JSONParser.parse(Array(text.utf8)) { return value }
        return (try? JSONParser.parse(Array(stored.jsonText().utf8))) ?? .null
    }

    /// ISO 8601 in UTC with milliseconds, as every JSON API timestamp.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}

private func optional(_ value: String?) -> JSONValue {
    value.map(JSONValue.string) ?? .null
}
