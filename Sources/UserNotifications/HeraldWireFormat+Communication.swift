// The communication fields of content (`updating(from:)`) as the app API's `communication` key, both
// ways; the same key a push carries (HeraldPolicy's `CommunicationContent` checks it on the server).
#if os(Linux)
    import Foundation

    extension HeraldWireFormat {
        /// Communication fields as the server's `communication` key takes them (a push's key, the same
        /// rules): the sender's handle (its identifier, else its name) and type, name and avatar (an
        /// image's name or URL), the group's name, the other participants.
        static func json(_ context: UNCommunicationContext) -> [String: Any] {
            func person(_ name: String, _ handle: String?, _ type: String) -> [String: Any] {
                var object: [String: Any] = [
                    "handle": handle.flatMap { $0.isEmpty ? nil : $0 } ?? name,
                    "handle_type": handle?.isEmpty == false ? type : "unknown",
                ]
                if !name.isEmpty { object["display_name"] = name }
                return object
            }
            var sender = person(context.senderDisplayName, context.senderIdentifier, context.senderHandleType)
            switch context.avatar {
            case .named(let name)?: sender["avatar"] = name
            case .url(let url)? where !url.isFileURL: sender["avatar"] = url.absoluteString
            // Bytes and files are moved into Herald's store and named by the content's attachments
            // (`HeraldConnection.contentJSON`).
            case .url?, .data?, nil: break
            }
            var object: [String: Any] = ["kind": context.kind.rawValue, "sender": sender]
            if let group = context.groupName, !group.isEmpty { object["group"] = group }
            let recipients = context.otherParticipants.filter { !($0.handle ?? $0.displayName).isEmpty }
            if !recipients.isEmpty {
                object["recipients"] = recipients.map { person($0.displayName, $0.handle, $0.handleType) }
            }
            return object
        }

        /// The communication fields of a `communication` key (nil when it is not one).
        static func communication(json value: Any?) -> UNCommunicationContext? {
            guard let object = value as? [String: Any],
                let kind = (object["kind"] as? String).flatMap(
                    UNCommunicationContext.Kind.init(rawValue:)),
                let sender = object["sender"] as? [String: Any], let handle = sender["handle"] as? String
            else { return nil }
            let recipients = (object["recipients"] as? [[String: Any]] ?? []).map { person in
                UNCommunicationPerson(
                    displayName: person["display_name"] as? String ?? person["handle"] as? String ?? "",
                    handle: person["handle"] as? String, handleType: person["handle_type"] as? String ?? "unknown")
            }
            let avatar: UNCommunicationImage? = (sender["avatar"] as? String).map { text in
                if let url = URL(string: text), url.scheme != nil { .url(url) } else { .named(text) }
            }
            return UNCommunicationContext(
                kind: kind, senderDisplayName: sender["display_name"] as? String ?? handle, senderIdentifier: handle,
                senderHandleType: sender["handle_type"] as? String ?? "unknown", conversationIdentifier: nil,
                groupName: object["group"] as? String, otherParticipants: recipients, avatar: avatar)
        }
    }
#endif
