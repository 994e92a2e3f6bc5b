// A notification service extension as the WWDC sessions write it, built against Herald's
// UserNotifications and Intents on Linux and launched by Herald (`herald admin service-extension set`):
// - a push with "type": "video" — WWDC17 708's "Modifying Push Content": download the video named by
//   "video-url", attach it, and at expiry show the best attempt titled "Incoming video!";
// - a push with "type": "message" — WWDC21 10091's communication notification: an incoming
//   INSendMessageIntent from the sender named in the payload, donated, then `updating(from:)`.
// A push with "test": "crash", "hang", "memory" or "echo" is for Herald's tests of what goes wrong.
import Foundation
import Intents
import UserNotifications

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

public class NotificationService: UNNotificationServiceExtension {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override public func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        self.contentHandler = contentHandler
        self.bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)

        switch (request.content.userInfo["type"] as? String) ?? (request.content.userInfo["test"] as? String) {
        case "video": modifyPushContent(request, withContentHandler: contentHandler)
        case "message": makeMessage(request, withContentHandler: contentHandler)
        // Herald's tests of what goes wrong ("test", not "type": no best attempt at expiry either).
        case "crash": fatalError("The extension crashed on purpose.")
        case "hang": return
        case "memory": useTooMuchMemory()
        case "echo": contentHandler(request.content)
        default:
            bestAttemptContent?.title = "\(bestAttemptContent?.title ?? "") [modified]"
            contentHandler(bestAttemptContent ?? request.content)
        }
    }

    // WWDC17 708, "Modifying Push Content".
    func modifyPushContent(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        if let mutableContent = self.bestAttemptContent,
            let urlString = mutableContent.userInfo["video-url"] as? String
        {
            self.download(url: urlString) { (fileLocation) in
                if let attachment = try? UNNotificationAttachment(
                    identifier: "video",
                    url: fileLocation)
                {
                    mutableContent.attachments = [attachment]
                    contentHandler(mutableContent)
                }
            }
        }
    }

    override public func serviceExtensionTimeWillExpire() {
        if let contentHandler = self.contentHandler,
            let bestAttemptContent = self.bestAttemptContent,
            let mediaType = bestAttemptContent.userInfo["type"] as? String
        {
            bestAttemptContent.title = "Incoming \(mediaType)!"
            contentHandler(bestAttemptContent)
        }
    }

    // WWDC21 10091, "Create a messaging notification".
    func makeMessage(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let incomingMessageIntent = Self.messageIntent(request.content.userInfo)
        let interaction = INInteraction(intent: incomingMessageIntent, response: nil)
        interaction.direction = .incoming
        interaction.donate(completion: nil)
        do {
            let messageContent = try request.content.updating(from: incomingMessageIntent)
            contentHandler(messageContent)
        } catch {
            // Handle error
            contentHandler(request.content)
        }
    }

    /// The seed's `INSendMessageIntent(…)`, from the push's "sender" (handle, name, avatar URL),
    /// "group" and "conversation". The avatar is downloaded and given as bytes, as an extension does
    /// for an image on its server (its URL as it is when the download fails).
    static func messageIntent(_ userInfo: [AnyHashable: Any]) -> INSendMessageIntent {
        let sender = userInfo["sender"] as? [String: Any] ?? [:]
        let handle = INPersonHandle(value: sender["handle"] as? String, type: .emailAddress)
        let avatarURL = (sender["avatar"] as? String).flatMap(URL.init(string:))
        let avatar =
            avatarURL.flatMap { try? Data(contentsOf: $0) }.map { INImage(imageData: $0) }
            ?? avatarURL.flatMap { INImage(url: $0) }
        let person1 = INPerson(
            personHandle: handle, nameComponents: nil, displayName: sender["name"] as? String, image: avatar,
            contactIdentifier: nil, customIdentifier: nil)
        let person2 = INPerson(
            personHandle: INPersonHandle(value: "me@example.com", type: .emailAddress), nameComponents: nil,
            displayName: "Me", image: nil, contactIdentifier: nil, customIdentifier: nil, isMe: true)
        let speakableGroupName = (userInfo["group"] as? String).map { INSpeakableString(spokenPhrase: $0) }
        return INSendMessageIntent(
            recipients: [person2], outgoingMessageType: .outgoingMessageText,
            content: userInfo["text"] as? String, speakableGroupName: speakableGroupName,
            conversationIdentifier: userInfo["conversation"] as? String, serviceName: nil, sender: person1,
            attachments: nil)
    }

    /// Downloads `url` to a temporary file named with the URL's extension (the attachment's type).
    func download(url: String, completion: @escaping (URL) -> Void) {
        guard let source = URL(string: url) else { return }
        let task = URLSession.shared.downloadTask(with: source) { location, _, _ in
            guard let location else { return }
            let destination = FileManager.default.temporaryDirectory
                .appendingPathComponent(UUID().uuidString).appendingPathExtension(source.pathExtension)
            guard (try? FileManager.default.moveItem(at: location, to: destination)) != nil else { return }
            completion(destination)
        }
        task.resume()
    }

    /// Touches 512 MiB, page by page, then waits: more than any sensible memory limit.
    func useTooMuchMemory() {
        let size = 512 << 20
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        for offset in stride(from: 0, to: size, by: 4096) {
            memory.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
        }
        Thread.sleep(forTimeInterval: 60)
        memory.deallocate()
    }
}
