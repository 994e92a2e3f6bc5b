import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldServer
import HeraldStore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attachments through the app API of a real Herald: uploaded bytes are sniffed (not named), kept
/// within the app's quota, shown by the notification that names them, served to the device's owner
/// only, and freed when nothing shows them.
@Suite("Notification attachments", .serialized)
struct AttachmentTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 2000)
    static let gif: [UInt8] = Array("GIF89a".utf8) + Array(repeating: 1, count: 100)

    struct Answer {
        var status: Int
        var json: [String: Any]
        var data: Data
        var headers: [AnyHashable: Any]
        var code: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    static func call(
        _ herald: PolicyHerald, _ method: String, _ path: String, token: String, body: Data? = nil,
        headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: herald.runtime.apiURL + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(
            status: http?.statusCode ?? 0,
            json: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:], data: data,
            headers: http?.allHeaderFields ?? [:])
    }

    static func credential(_ herald: PolicyHerald) async throws -> String {
        try await herald.application.registry.createAppCredential(
            deviceID: herald.demo.deviceID, bundleID: herald.demo.topic
        ).credential
    }

    static func upload(_ herald: PolicyHerald, _ bytes: [UInt8], credential: String, type: String? = nil)
        async throws -> Answer
    {
        var headers = ["X-Herald-Attachment-Identifier": "pic"]
        headers["X-Herald-Attachment-Type"] = type
        return try await call(
            herald, "POST", "/v1/app/attachments", token: credential, body: Data(bytes), headers: headers)
    }

    @Test(
        "a local notification shows an uploaded image; only its device's owner gets the file; removing it frees the file"
    )
    func shownServedFreed() async throws {
        let herald = try await PolicyHerald.start()
        let credential = try await Self.credential(herald)
        let uploaded = try await Self.upload(herald, Self.png, credential: credential)
        #expect(uploaded.status == 201)
        let attachment = try #require(uploaded.json["attachment"] as? [String: Any])
        let id = try #require(attachment["id"] as? String)
        #expect(attachment["type"] as? String == "public.png" && attachment["size"] as? Int == Self.png.count)
        let file = herald.application.dataDirectory.attachmentsDirectory.appendingPathComponent(id)
        #expect(FileManager.default.contents(atPath: file.path) == Data(Self.png))

        let body = try JSONSerialization.data(withJSONObject: [
            "identifier": "photo",
            "content": [
                "title": "A photo",
                "attachments": [["identifier": "pic", "attachment_id": id, "thumbnail_hidden": true]],
            ],
        ])
        let added = try await Self.call(herald, "POST", "/v1/app/requests", token: credential, body: body)
        #expect(added.status == 201)
        let notification = try #require(
            (added.json["notification"] as? [String: Any])?["notification"] as? [String: Any])
        let shown = try #require((notification["attachments"] as? [[String: Any]])?.first)
        #expect(shown["id"] as? String == id && shown["type"] as? String == "public.png")
        #expect(shown["identifier"] as? String == "pic" && shown["thumbnail_hidden"] as? Bool == true)
        let url = try #require(shown["url"] as? String)

        let served = try await Self.call(herald, "GET", url, token: herald.demo.userToken)
        #expect(served.status == 200 && served.data == Data(Self.png))
        #expect(served.headers["Content-Type"] as? String == "image/png")
        // Another user: as if it did not exist.
        let stranger = try await herald.application.registry.createUser(name: "Eve")
        #expect(try await Self.call(herald, "GET", url, token: stranger.token).status == 404)
        // A file the notification does not show is not served through it.
        let other = try #require(
            try await Self.upload(herald, Self.gif, credential: credential).json["attachment"] as? [String: Any])
        let otherURL = url.replacingOccurrences(of: id, with: other["id"] as! String)
        #expect(try await Self.call(herald, "GET", otherURL, token: herald.demo.userToken).status == 404)

        // Shown: kept by a sweep. Removed: freed (file and record), and no longer served.
        #expect(try await herald.application.attachments.sweep().isEmpty)
        let notificationID = try #require(notification["id"] as? String)
        let removed = try await Self.call(
            herald, "DELETE", "/v1/devices/\(herald.demo.deviceID)/notifications/\(notificationID)",
            token: herald.demo.userToken)
        #expect(removed.status == 204)
        // Freed by this sweep — or by the sweeper's own round (every 10 s) if one came in between: on a
        // loaded machine this test takes that long (a fresh-clone run saw it). What counts is below.
        let swept = try await herald.application.attachments.sweep()
        #expect(swept == [id] || swept.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try await herald.store.attachments(ids: [id]).isEmpty)
        #expect(try await Self.call(herald, "GET", url, token: herald.demo.userToken).status == 404)
        try await herald.stop()
    }

    @Test("uploads are sniffed and checked as Apple checks them; a content may name only the app's own")
    func refusals() async throws {
        let herald = try await PolicyHerald.start(attachmentQuota: 3000)
        let credential = try await Self.credential(herald)
        // Bytes of no supported type; a hint the bytes do not match; a hint of no supported type.
        #expect(
            try await Self.upload(herald, Array("hello".utf8), credential: credential).code
                == "attachment_unrecognized_type")
        #expect(
            try await Self.upload(herald, Self.gif, credential: credential, type: "public.png").code
                == "attachment_corrupt")
        #expect(
            try await Self.upload(herald, Self.png, credential: credential, type: "public.text").code
                == "attachment_unrecognized_type")
        // Over the type's limit: a 10 MB image is the most.
        let big = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 10_000_001)
        #expect(try await Self.upload(herald, big, credential: credential).code == "attachment_invalid_file_size")
        // Within the quota (3,000 bytes): one PNG of 2,008 fits, a second does not.
        #expect(try await Self.upload(herald, Self.png, credential: credential).status == 201)
        #expect(
            try await Self.upload(herald, Self.png, credential: credential).code
                == "attachment_move_into_data_store_failed")
        // Nothing refused was kept.
        let files = try FileManager.default.contentsOfDirectory(
            atPath: herald.application.dataDirectory.attachmentsDirectory.path)
        #expect(files.count == 1)

        // A content naming an attachment that is not the app's on this device.
        let body = try JSONSerialization.data(withJSONObject: [
            "identifier": "x", "content": ["title": "t", "attachments": [["attachment_id": "nope"]]],
        ])
        let refused = try await Self.call(herald, "POST", "/v1/app/requests", token: credential, body: body)
        #expect(refused.status == 400 && refused.code == "attachment_not_in_data_store")
        try await herald.stop()
    }

    @Test("a communication avatar given as bytes is kept and served to the owner and the app, but is not an attachment")
    func avatar() async throws {
        let herald = try await PolicyHerald.start()
        let credential = try await Self.credential(herald)
        let uploaded = try await Self.upload(herald, Self.png, credential: credential)
        let id = try #require((uploaded.json["attachment"] as? [String: Any])?["id"] as? String)
        let communication: [String: Any] = [
            "kind": "message",
            "sender": ["handle": "ana@example.com", "handle_type": "email", "display_name": "Ana"],
        ]
        func request(_ attachments: [[String: Any]], communication: [String: Any]? = communication) throws -> Data {
            var content: [String: Any] = ["title": "Ana", "body": "Hi", "attachments": attachments]
            content["communication"] = communication
            return try JSONSerialization.data(withJSONObject: ["identifier": "m", "content": content])
        }
        let added = try await Self.call(
            herald, "POST", "/v1/app/requests", token: credential,
            body: try request([["attachment_id": id, "identifier": "avatar", "avatar": true]]))
        #expect(added.status == 201)
        let notification = try #require(
            (added.json["notification"] as? [String: Any])?["notification"] as? [String: Any])
        #expect((notification["attachments"] as? [Any])?.isEmpty == true)
        let avatar = try #require(notification["avatar"] as? [String: Any])
        #expect(avatar["id"] as? String == id && avatar["type"] as? String == "public.png")
        let url = try #require(avatar["url"] as? String)
        let served = try await Self.call(herald, "GET", url, token: herald.demo.userToken)
        #expect(served.status == 200 && served.data == Data(Self.png))
        // The app reads its own notification's files with its credential; a user token is not one.
        let notificationID = try #require(notification["id"] as? String)
        let appURL = "/v1/app/notifications/\(notificationID)/attachments/\(id)"
        let byApp = try await Self.call(herald, "GET", appURL, token: credential)
        #expect(byApp.status == 200 && byApp.data == Data(Self.png))
        #expect(try await Self.call(herald, "GET", appURL, token: herald.demo.userToken).status == 401)
        #expect(
            try await Self.call(herald, "GET", "/v1/app/notifications/nope/attachments/\(id)", token: credential).status
                == 404)
        // Stored with the flag: kept while shown.
        let row = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: notificationID))
        #expect(row.attachments.map(\.isAvatar) == [true])
        #expect(try await herald.application.attachments.sweep().isEmpty)

        // Refused: an avatar that is not an image, two avatars, an avatar without a communication.
        let video: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array(repeating: 1, count: 64)
        let clip = try #require(
            (try await Self.upload(herald, video, credential: credential).json["attachment"] as? [String: Any])?["id"]
                as? String)
        let notImage = try await Self.call(
            herald, "POST", "/v1/app/requests", token: credential,
            body: try request([["attachment_id": clip, "avatar": true]]))
        #expect(notImage.status == 400 && notImage.code == "attachment_unrecognized_type")
        let twice = try await Self.call(
            herald, "POST", "/v1/app/requests", token: credential,
            body: try request([["attachment_id": id, "avatar": true], ["attachment_id": id, "avatar": true]]))
        #expect(twice.status == 400 && twice.code == "invalid_field")
        let alone = try await Self.call(
            herald, "POST", "/v1/app/requests", token: credential,
            body: try request([["attachment_id": id, "avatar": true]], communication: nil))
        #expect(alone.status == 400 && alone.code == "invalid_field")
        try await herald.stop()
    }
}
