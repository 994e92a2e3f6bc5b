// The files of delivered notifications as the app reads them: Apple gives an attachment's `url` as a
// file the app may open; Herald's are on the server (`GET /v1/app/notifications/{id}/attachments/
// {attachment_id}`, the app's credential), so each is downloaded once into a cache directory and the
// app gets that file's URL. Attachment ids name immutable files: a cached one is never fetched again.
#if os(Linux)
    import Foundation
    import FoundationNetworking
    import HeraldAttachments

    extension HeraldConnection {
        /// Where downloaded attachments are kept: `$TMPDIR/herald-attachments/`.
        static var attachmentCache: URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("herald-attachments", isDirectory: true)
        }

        /// A delivered notification (the app API's JSON) with its attachments and avatar as local
        /// files. A file that cannot be fetched is left out (the notification itself still is shown).
        package func notification(json object: [String: Any]) async -> UNNotification? {
            guard let row = object["notification"] as? [String: Any], let id = row["id"] as? String else {
                return HeraldWireFormat.notification(json: object)
            }
            var items = row["attachments"] as? [[String: Any]] ?? []
            if let avatar = row["avatar"] as? [String: Any] { items.append(avatar) }
            var files: [String: URL] = [:]
            for item in items {
                guard let attachmentID = item["id"] as? String else { continue }
                files[attachmentID] = try? await file(
                    notificationID: id, attachmentID: attachmentID, type: item["type"] as? String)
            }
            return HeraldWireFormat.notification(json: object, files: files)
        }

        /// The attachment's local copy, downloaded when it is not cached yet.
        func file(notificationID: String, attachmentID: String, type: String?) async throws -> URL {
            // Ids are UUIDs the server made; anything else is not used as a file name.
            guard attachmentID.allSatisfy({ $0.isHexDigit || $0 == "-" }), !attachmentID.isEmpty else {
                throw UNError(.attachmentInvalidURL, reason: "Not an attachment id: \(attachmentID)")
            }
            let suffix = type.flatMap(AttachmentMediaType.from(uti:))?.extensions.first.map { ".\($0)" } ?? ""
            let directory = Self.attachmentCache
            let target = directory.appendingPathComponent(attachmentID + suffix)
            if FileManager.default.fileExists(atPath: target.path) { return target }
            let path = "v1/app/notifications/\(Self.pathComponent(notificationID))/attachments/\(attachmentID)"
            var request = URLRequest(url: serverURL.appendingPathComponent(path))
            request.setValue("Bearer \(credential)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await session.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw UNError(.attachmentNotInDataStore, reason: "Herald did not serve attachment \(attachmentID).")
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Written aside, then moved: a reader never sees half a file.
            let partial = directory.appendingPathComponent(".\(UUID().uuidString)")
            try data.write(to: partial)
            do {
                try FileManager.default.moveItem(at: partial, to: target)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                if !FileManager.default.fileExists(atPath: target.path) { throw error }
            }
            return target
        }

        private static func pathComponent(_ text: String) -> String {
            text.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
                ?? text
        }
    }
#endif
