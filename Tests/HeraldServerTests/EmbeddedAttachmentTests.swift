#if os(Linux)
    import Foundation
    import HeraldEmbedded
    import HeraldServer
    import HeraldStore
    import Intents
    import Synchronization
    import Testing
    import UserNotifications

    /// An app's files through UserNotifications on a real (embedded) Herald: an image attached to a
    /// local request and a sender's avatar given as bytes or as a file are moved into Herald's store,
    /// and come back — from `deliveredNotifications()` and in the delegate's responses — as files the
    /// app reads, as Apple's attachment URLs are.
    @Suite("Attachments and avatars through UserNotifications")
    struct EmbeddedAttachmentTests {
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 3, count: 300)
        static let gif: [UInt8] = Array("GIF89a".utf8) + Array(repeating: 9, count: 120)

        final class Responses: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            let received = Mutex<[UNNotificationResponse]>([])

            func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse)
                async
            {
                received.withLock { $0.append(response) }
            }
        }

        static func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
            try Data(bytes).write(to: url)
            return url
        }

        static func message(from sender: INImage) -> INSendMessageIntent {
            let ana = INPerson(
                personHandle: INPersonHandle(value: "ana@example.com", type: .emailAddress), nameComponents: nil,
                displayName: "Ana", image: sender, contactIdentifier: nil, customIdentifier: nil)
            return INSendMessageIntent(
                recipients: nil, outgoingMessageType: .outgoingMessageText, content: "Look", speakableGroupName: nil,
                conversationIdentifier: "ana", serviceName: nil, sender: ana, attachments: nil)
        }

        @Test("an attached image and a sender's avatar given as bytes or a file come back as files the app reads")
        func filesComeBack() async throws {
            let herald = try await EmbeddedHerald.start()
            do {
                let center = try await herald.center()
                let delegate = Responses()
                center.delegate = delegate
                try await center.waitUntilConnected()

                // Bytes: INImage(imageData:), with an attached photo.
                let content = UNMutableNotificationContent()
                content.body = "Look"
                let photoFile = try Self.file("p.png", Self.png)
                content.attachments = [try UNNotificationAttachment(identifier: "photo", url: photoFile)]
                let fromBytes = try content.updating(from: Self.message(from: INImage(imageData: Data(Self.gif))))
                try await center.add(UNNotificationRequest(identifier: "bytes", content: fromBytes, trigger: nil))
                // Apple moves an attachment's file into its store: the app's file is gone once added.
                #expect(!FileManager.default.fileExists(atPath: photoFile.path))
                // A file: INImage(url:) of a file URL.
                let plain = UNMutableNotificationContent()
                plain.body = "Again"
                let avatarFile = try Self.file("ana.png", Self.png)
                let fromFile = try plain.updating(from: Self.message(from: try #require(INImage(url: avatarFile))))
                try await center.add(UNNotificationRequest(identifier: "file", content: fromFile, trigger: nil))

                let delivered = try await center.deliveredNotifications()
                let withBytes = try #require(delivered.first { $0.request.identifier == "bytes" }).request.content
                #expect(withBytes.title == "Ana")
                let photo = try #require(withBytes.attachments.first)
                #expect(withBytes.attachments.count == 1)
                #expect(photo.identifier == "photo" && photo.type == "public.png" && photo.url.isFileURL)
                #expect(try Data(contentsOf: photo.url) == Data(Self.png))
                guard case .url(let avatar)? = withBytes.communication?.avatar else {
                    Issue.record("no avatar file: \(String(describing: withBytes.communication?.avatar))")
                    throw CancellationError()
                }
                #expect(avatar.isFileURL)
                #expect(try Data(contentsOf: avatar) == Data(Self.gif))

                let withFile = try #require(delivered.first { $0.request.identifier == "file" }).request.content
                #expect(withFile.attachments.isEmpty)
                guard case .url(let copied)? = withFile.communication?.avatar else {
                    Issue.record("no avatar file for the file URL")
                    throw CancellationError()
                }
                // Herald's copy (served from its store), not the app's own file, which stays the app's.
                #expect(copied != avatarFile)
                #expect(FileManager.default.fileExists(atPath: avatarFile.path))
                try? FileManager.default.removeItem(at: avatarFile)
                #expect(try Data(contentsOf: copied) == Data(Self.png))
                // The server keeps the avatar beside the attachments, flagged.
                let id = LocalNotificationID.make(bundleID: herald.demo.topic, identifier: "bytes")
                let row = try #require(
                    try await herald.application.store.notification(deviceID: herald.demo.deviceID, id: id))
                #expect(row.attachments.map(\.isAvatar) == [false, true])

                // The delegate's response carries the same files.
                try await herald.respond(to: "bytes")
                var response: UNNotificationResponse?
                for _ in 0..<500 where response == nil {
                    response = delegate.received.withLock { $0.first }
                    if response == nil { try await Task.sleep(for: .milliseconds(20)) }
                }
                let answered = try #require(response).notification.request.content
                #expect(answered.attachments.map(\.identifier) == ["photo"])
                #expect(try answered.attachments.first.map { try Data(contentsOf: $0.url) } == Data(Self.png))

                // An avatar whose bytes are no image is refused as Apple refuses an attachment.
                let wrong = try plain.updating(from: Self.message(from: INImage(imageData: Data("text".utf8))))
                await #expect(throws: UNError.self) {
                    try await center.add(UNNotificationRequest(identifier: "wrong", content: wrong, trigger: nil))
                }
                // An unreadable file: attachmentInvalidURL.
                let missing = try plain.updating(
                    from: Self.message(from: try #require(INImage(url: URL(fileURLWithPath: "/nonexistent/a.png")))))
                do {
                    try await center.add(UNNotificationRequest(identifier: "missing", content: missing, trigger: nil))
                    Issue.record("an unreadable avatar file was accepted")
                } catch let error as UNError {
                    #expect(error.code == .attachmentInvalidURL)
                }
            } catch {
                Issue.record(error)
            }
            try await herald.stop()
        }
    }
#endif
