// Donating interactions to Herald (`INInteraction.donate`, `delete(with:)`, `deleteAll`): the app's
// messages and calls as they happened, kept per user and app by the app API (`/v1/app/interactions`,
// through the same server and credential as `UNUserNotificationCenter.current()`). Failures are
// Apple's `INIntentError` codes, the server's reason beneath (`NSUnderlyingErrorKey`).
#if os(Linux)
    import Foundation
    import UserNotifications

    public let INIntentErrorDomain = "IntentsErrorDomain"

    /// Apple's Intents errors (the interaction codes Herald can give).
    public struct INIntentError: CustomNSError, Hashable, Sendable {
        public enum Code: Int, Sendable, Hashable {
            case interactionOperationNotSupported = 1900
            case donatingInteraction = 1901
            case deletingAllInteractions = 1902
            case deletingInteractionWithIdentifiers = 1903
            case deletingInteractionWithGroupIdentifier = 1904
        }

        public let code: Code
        /// Why, in English: the server's message.
        public let reason: String

        package init(_ code: Code, reason: String) {
            self.code = code
            self.reason = reason
        }

        public static var errorDomain: String { INIntentErrorDomain }
        public var errorCode: Int { code.rawValue }
        public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: reason] }
    }

    extension INInteraction {
        /// Stores the interaction with Herald, for this app and the device's user.
        public func donate(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
            nonisolated(unsafe) let interaction = self
            Task {
                do {
                    try await interaction.donate()
                    completion?(nil)
                } catch {
                    completion?(error)
                }
            }
        }

        public func donate() async throws {
            let body = try heraldJSON()
            try await Self.send(.donatingInteraction, "POST", "v1/app/interactions", body: body)
        }

        /// Deletes the app's donated interactions with these identifiers.
        public class func delete(
            with interactionIdentifiers: [String], completion: (@Sendable ((any Error)?) -> Void)? = nil
        ) {
            complete(completion) { try await delete(with: interactionIdentifiers) }
        }

        public class func delete(with interactionIdentifiers: [String]) async throws {
            try await send(
                .deletingInteractionWithIdentifiers, "POST", "v1/app/interactions/remove",
                body: ["identifiers": interactionIdentifiers])
        }

        /// Deletes the app's donated interactions of this group.
        public class func delete(with groupIdentifier: String, completion: (@Sendable ((any Error)?) -> Void)? = nil) {
            complete(completion) { try await delete(with: groupIdentifier) }
        }

        public class func delete(with groupIdentifier: String) async throws {
            try await send(
                .deletingInteractionWithGroupIdentifier, "POST", "v1/app/interactions/remove",
                body: ["group_identifier": groupIdentifier])
        }

        /// Deletes every interaction the app donated.
        public class func deleteAll(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
            complete(completion) { try await deleteAll() }
        }

        public class func deleteAll() async throws {
            try await send(.deletingAllInteractions, "DELETE", "v1/app/interactions", body: nil)
        }

        private static func complete(
            _ completion: (@Sendable ((any Error)?) -> Void)?, _ operation: @escaping @Sendable () async throws -> Void
        ) {
            Task {
                do {
                    try await operation()
                    completion?(nil)
                } catch {
                    completion?(error)
                }
            }
        }

        /// One app API call; any failure becomes `INIntentError(code)` with the reason.
        private static func send(
            _ code: INIntentError.Code, _ method: String, _ path: String, body: [String: Any]?
        ) async throws {
            do {
                let connection = try UNUserNotificationCenter.currentConnection.get()
                try await connection.send(method, path, body: body)
            } catch let error as UNUserNotificationCenter.HeraldError {
                throw INIntentError(code, reason: error.message)
            } catch let error as INIntentError {
                throw error
            } catch {
                throw INIntentError(code, reason: "\(error)")
            }
        }

        // MARK: The JSON

        /// The interaction as the app API takes it; an intent other than a message or a call cannot be
        /// donated to Herald (`interactionOperationNotSupported`).
        func heraldJSON() throws -> [String: Any] {
            var intentJSON: [String: Any]
            switch intent {
            case let message as INSendMessageIntent:
                intentJSON = ["kind": "message"]
                if let sender = message.sender { intentJSON["sender"] = sender.heraldJSON }
                if let recipients = message.recipients { intentJSON["recipients"] = recipients.map(\.heraldJSON) }
                if let group = message.speakableGroupName?.spokenPhrase { intentJSON["group"] = group }
                if let conversation = message.conversationIdentifier {
                    intentJSON["conversation_identifier"] = conversation
                }
                if let service = message.serviceName { intentJSON["service_name"] = service }
            case let call as INStartCallIntent:
                intentJSON = ["kind": "call"]
                if let contacts = call.contacts { intentJSON["contacts"] = contacts.map(\.heraldJSON) }
            default:
                throw INIntentError(
                    .interactionOperationNotSupported,
                    reason: "Herald keeps message and call interactions (INSendMessageIntent, INStartCallIntent).")
            }
            var object: [String: Any] = [
                "identifier": identifier, "direction": direction.heraldName, "intent": intentJSON,
            ]
            if let groupIdentifier { object["group_identifier"] = groupIdentifier }
            if let dateInterval {
                let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                object["date_interval"] = [
                    "start": dateInterval.start.formatted(style), "end": dateInterval.end.formatted(style),
                ]
            }
            return object
        }
    }

    extension INInteractionDirection {
        var heraldName: String {
            switch self {
            case .unspecified: "unspecified"
            case .outgoing: "outgoing"
            case .incoming: "incoming"
            }
        }
    }

    extension INPerson {
        /// A person as the app API takes it (the `communication` key's person, plus `is_me`).
        var heraldJSON: [String: Any] {
            var object: [String: Any] = ["display_name": displayName, "is_me": isMe]
            if let handle = personHandle, let value = handle.value {
                object["handle"] = value
                object["handle_type"] =
                    switch handle.type {
                    case .emailAddress: "email"
                    case .phoneNumber: "phone"
                    case .unknown: "unknown"
                    }
            }
            if let id = customIdentifier ?? contactIdentifier { object["id"] = id }
            return object
        }
    }
#endif
