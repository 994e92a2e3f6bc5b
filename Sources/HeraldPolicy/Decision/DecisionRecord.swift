import Foundation
import HeraldCore
import Synchronization

/// The decision JSON stored with a notification — and shown to clients as it is stored, the same in
/// the list, one notification, the streams and the decision endpoint (the OpenAPI `Decision`): the
/// `Decision` as HeraldPolicy encodes it (`Decision+JSON.swift`, snake_case), plus a
/// `context` key with what its sentences name (the Focus that was on, the audio route, the sender of
/// a communication notification) and, for a notification released by a Scheduled Summary, the
/// summary it came in; and a `display` key with what the device shows when that is not the `alert`
/// as sent (see `NotificationDisplay`).
///
/// `Decision` decodes from this JSON as it is (it ignores the extra key).
public struct DecisionRecord: Codable, Sendable, Hashable {
    /// The Focus that was on when it was decided.
    public struct FocusRef: Codable, Sendable, Hashable {
        public var id: String
        public var name: String
        public var kind: FocusKind

        public init(id: String, name: String, kind: FocusKind) {
            self.id = id
            self.name = name
            self.kind = kind
        }
    }

    /// The Scheduled Summary that released it.
    public struct SummaryRef: Codable, Sendable, Hashable {
        /// The summary time (slot), milliseconds since 1970.
        public var slotMilliseconds: Int64
        public var isFeatured: Bool

        public init(slotMilliseconds: Int64, isFeatured: Bool) {
            self.slotMilliseconds = slotMilliseconds
            self.isFeatured = isFeatured
        }

        enum CodingKeys: String, CodingKey {
            case slotMilliseconds = "slot_ms"
            case isFeatured = "featured"
        }
    }

    /// The sender of a communication notification (`communication.sender`):
    /// `{"name": …, "handle": …, "handle_type": "phone" | "email" | "app"}`.
    public struct SenderRef: Codable, Sendable, Hashable {
        /// The name shown (the display name, else the handle as sent).
        public var name: String
        public var handle: PersonHandle

        public init(name: String, handle: PersonHandle) {
            self.name = name
            self.handle = handle
        }

        private enum CodingKeys: String, CodingKey {
            case name, handle
            case handleType = "handle_type"
        }
        private static let typeNames: [PersonHandle.Kind: String] = [
            .phoneNumber: "phone", .emailAddress: "email", .appSpecific: "app",
        ]

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let typeName = try container.decode(String.self, forKey: .handleType)
            guard let kind = Self.typeNames.first(where: { $0.value == typeName })?.key else {
                throw DecodingError.dataCorruptedError(
                    forKey: .handleType, in: container, debugDescription: "Unknown handle type `\(typeName)`.")
            }
            name = try container.decode(String.self, forKey: .name)
            handle = PersonHandle(try container.decode(String.self, forKey: .handle), kind: kind)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(handle.value, forKey: .handle)
            try container.encode(Self.typeNames[handle.kind], forKey: .handleType)
        }
    }

    /// What the app's notification service extension did with the push before it was decided:
    /// `{"outcome": "modified" | "unchanged" | "best_attempt" | "timed_out" | "failed",
    ///   "duration_ms": …, "budget_ms": …, "error": … | null}`.
    public struct ServiceExtensionRef: Codable, Sendable, Hashable {
        public enum Outcome: String, Codable, Sendable, Hashable {
            /// It gave changed content within its time.
            case modified
            /// It gave the content back as it came.
            case unchanged
            /// Its time ran out; what it gave at `serviceExtensionTimeWillExpire()` is shown.
            case bestAttempt = "best_attempt"
            /// It gave nothing, even at expiry: shown as sent.
            case timedOut = "timed_out"
            /// It crashed, exited, used too much memory or answered what is not content: shown as sent.
            case failed
        }

        public var outcome: Outcome
        /// From handing it the push to its answer (or to giving up).
        public var durationMilliseconds: Int
        /// The time it had before `serviceExtensionTimeWillExpire()`.
        public var budgetMilliseconds: Int
        /// Why it failed.
        public var error: String?

        public init(outcome: Outcome, durationMilliseconds: Int, budgetMilliseconds: Int, error: String? = nil) {
            self.outcome = outcome
            self.durationMilliseconds = durationMilliseconds
            self.budgetMilliseconds = budgetMilliseconds
            self.error = error
        }

        enum CodingKeys: String, CodingKey {
            case outcome, error
            case durationMilliseconds = "duration_ms"
            case budgetMilliseconds = "budget_ms"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(durationMilliseconds, forKey: .durationMilliseconds)
            try container.encode(budgetMilliseconds, forKey: .budgetMilliseconds)
            try container.encode(error, forKey: .error)
        }

        /// The reason code the decision records for this outcome.
        public var reason: ReasonCode {
            switch outcome {
            case .modified: ServerReason.extensionModified
            case .unchanged: ServerReason.extensionUnchanged
            case .bestAttempt: ServerReason.extensionBestAttempt
            case .timedOut: ServerReason.extensionTimedOut
            case .failed: ServerReason.extensionFailed
            }
        }
    }

    public struct Context: Codable, Sendable, Hashable {
        public var focus: FocusRef?
        public var audioRoute: AudioRoute
        public var summary: SummaryRef?
        /// The Focus whose end (or change) released it.
        public var releasedFrom: FocusRef?
        /// The sender, when the payload's `communication` key is valid.
        public var sender: SenderRef?
        /// Why the payload's `communication` key was not valid (reason `communication-invalid`).
        public var communicationError: String?
        /// What the app's service extension did (a push with `mutable-content` of an app with one).
        public var serviceExtension: ServiceExtensionRef?

        enum CodingKeys: String, CodingKey {
            case focus, summary, sender
            case audioRoute = "audio_route"
            case releasedFrom = "released_from"
            case communicationError = "communication_error"
            case serviceExtension = "service_extension"
        }

        public init(
            focus: FocusRef? = nil, audioRoute: AudioRoute, summary: SummaryRef? = nil, releasedFrom: FocusRef? = nil,
            sender: SenderRef? = nil, communicationError: String? = nil, serviceExtension: ServiceExtensionRef? = nil
        ) {
            self.focus = focus
            self.audioRoute = audioRoute
            self.summary = summary
            self.releasedFrom = releasedFrom
            self.sender = sender
            self.communicationError = communicationError
            self.serviceExtension = serviceExtension
        }

        /// Every key written, absent ones as `null` (one shape for clients).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(focus, forKey: .focus)
            try container.encode(audioRoute, forKey: .audioRoute)
            try container.encode(summary, forKey: .summary)
            try container.encode(releasedFrom, forKey: .releasedFrom)
            try container.encode(sender, forKey: .sender)
            try container.encode(communicationError, forKey: .communicationError)
            try container.encode(serviceExtension, forKey: .serviceExtension)
        }
    }

    public var decision: Decision
    public var context: Context
    /// What the device shows; nil when it shows the `alert` as sent.
    public var display: NotificationDisplay?
    /// The actions to show: those of the notification's category (as registered), nil when it has
    /// none or the notification is not delivered.
    public var actions: JSONValue?

    public init(decision: Decision, context: Context, display: NotificationDisplay? = nil, actions: JSONValue? = nil) {
        self.decision = decision
        self.context = context
        self.display = display
        self.actions = actions
    }

    public init(from decoder: any Decoder) throws {
        decision = try Decision(from: decoder)
        let container = try decoder.container(keyedBy: ExtraKeys.self)
        context = try container.decodeIfPresent(Context.self, forKey: .context) ?? Context(audioRoute: .none)
        display = try container.decodeIfPresent(NotificationDisplay.self, forKey: .display)
        actions = try container.decodeIfPresent(JSONValue.self, forKey: .actions)
    }

    public func encode(to encoder: any Encoder) throws {
        try decision.encode(to: encoder)
        var container = encoder.container(keyedBy: ExtraKeys.self)
        try container.encode(context, forKey: .context)
        try container.encode(display, forKey: .display)
        try container.encode(actions ?? .null, forKey: .actions)
    }

    private enum ExtraKeys: String, CodingKey { case context, display, actions }

    /// The JSON text the store keeps.
    ///
    /// Encoded once per distinct decision: the pushes of a busy app to a device (or to many devices
    /// with the same settings) are decided alike, and `JSONEncoder` was the largest cost of the push
    /// path. Decisions that show something of their own (`display`) are rarer and not remembered.
    public func jsonText() throws -> String {
        guard display == nil else { return try encoded() }
        if let text = Self.remembered.withLock({ $0[self] }) { return text }
        let text = try encoded()
        Self.remembered.withLock { remembered in
            if remembered.count >= Self.rememberedLimit { remembered.removeAll(keepingCapacity: true) }
            remembered[self] = text
        }
        return text
    }

    private func encoded() throws -> String {
        String(decoding: try Self.encoder.encode(self), as: UTF8.self)
    }

    private static let rememberedLimit = 4096
    private static let remembered = HeraldMutex<[DecisionRecord: String]>([:])

    /// The decision `text` holds (as `jsonText()` wrote it); nil when it does not read.
    ///
    /// Decoded once per distinct text: rows read back repeat a few decisions (a busy app's pushes
    /// to a device are decided alike), and `JSONDecoder` costs tens of microseconds per row.
    public static func decoded(from text: String) -> DecisionRecord? {
        if let decision = decodedTexts.withLock({ $0[text] }) { return decision }
        guard let decision = try? JSONDecoder().decode(DecisionRecord.self, from: Data(text.utf8)) else { return nil }
        decodedTexts.withLock { decoded in
            if decoded.count >= rememberedLimit { decoded.removeAll(keepingCapacity: true) }
            decoded[text] = decision
        }
        return decision
    }

    private static let decodedTexts = HeraldMutex<[String: DecisionRecord]>([:])

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension DecisionRecord {
    /// The decision of a notification delivered quietly by the Scheduled Summary of `slotMilliseconds`:
    /// listed silently in Notification Center, no banner, no sound, not announced, with the reason
    /// `summary-delivered` and the summary in its context.
    public func releasedBySummary(slotMilliseconds: Int64, isFeatured: Bool) -> DecisionRecord {
        var released = self
        released.decision.disposition = .listedSilently
        released.decision.banner = .none
        released.decision.sound = .silent
        released.decision.announce = false
        released.decision.notificationCenter = true
        released.decision.reasons.insert(ServerReason.summaryDelivered)
        released.context.summary = SummaryRef(slotMilliseconds: slotMilliseconds, isFeatured: isFeatured)
        return released
    }
}

/// Reason codes the server adds to a pure decision when it releases a held notification.
public enum ServerReason {
    /// Released by its Focus ending (or changing) and decided again.
    public static let releasedFromFocus = ReasonCode(rawValue: "released-focus-ended")
    /// Released when the app left the Scheduled Summary or the summary was turned off.
    public static let releasedFromSummary = ReasonCode(rawValue: "released-summary-off")
    /// Delivered quietly in a Scheduled Summary.
    public static let summaryDelivered = ReasonCode(rawValue: "summary-delivered")
    /// The payload's `communication` key is not valid: not treated as a message or call.
    public static let communicationInvalid = ReasonCode(rawValue: "communication-invalid")
    /// The app's service extension changed the content (`context.service_extension` says how long it took).
    public static let extensionModified = ReasonCode(rawValue: "service-extension-modified")
    /// The app's service extension gave the content back unchanged.
    public static let extensionUnchanged = ReasonCode(rawValue: "service-extension-unchanged")
    /// The extension's time ran out; its best attempt at expiry is shown.
    public static let extensionBestAttempt = ReasonCode(rawValue: "service-extension-best-attempt")
    /// The extension gave nothing in time: shown as sent.
    public static let extensionTimedOut = ReasonCode(rawValue: "service-extension-timed-out")
    /// The extension failed: shown as sent.
    public static let extensionFailed = ReasonCode(rawValue: "service-extension-failed")
}
