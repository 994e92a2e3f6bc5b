// How `UNUserNotificationCenter` reaches Herald: the app API (`/v1/app/…`) of the server named by
// the environment, signed with the app's credential. Foundation's URLSession only (no dependency an
// app would have to carry).
#if os(Linux)
    import Foundation
    import FoundationNetworking

    extension UNUserNotificationCenter {
        /// A failure to talk to Herald (not one of Apple's `UNError`s): the server could not be
        /// reached, refused the credential, or answered an error Apple's API has no code for. The
        /// message is the server's (`{"error":{"code","message"}}`) or the transport's.
        public struct HeraldError: Error, LocalizedError, Hashable, Sendable {
            /// The HTTP status (0: no answer).
            public var status: Int
            /// The server's error code (`unauthorized`, `invalid_field`, …), or `connection_failed`.
            public var code: String
            public var message: String

            public var errorDescription: String? { "Herald: \(message) (\(code))" }
        }

        /// Where `current()` connects: the environment variables, documented in the README
        /// ("import UserNotifications on Linux").
        public enum Environment {
            /// The JSON API of the Herald server, `http://127.0.0.1:8080`.
            public static let serverURL = "HERALD_URL"
            /// The app's credential on this device (`herald admin app-credential --device-id … --bundle-id …`).
            public static let appCredential = "HERALD_APP_CREDENTIAL"
        }
    }

    /// One app on one device as Herald's app API sees it.
    package final class HeraldConnection: Sendable {
        let serverURL: URL
        let credential: String
        let session: URLSession

        package init(serverURL: URL, credential: String) {
            self.serverURL = serverURL
            self.credential = credential
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 30
            session = URLSession(configuration: configuration)
        }

        /// The connection the environment names, or why there is none.
        static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<
            HeraldConnection, UNUserNotificationCenter.HeraldError
        > {
            let names = UNUserNotificationCenter.Environment.self
            guard let text = environment[names.serverURL], !text.isEmpty else {
                return .failure(Self.configurationError("\(names.serverURL) is not set"))
            }
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else {
                return .failure(Self.configurationError("\(names.serverURL) must be an http(s) URL, not \(text)"))
            }
            guard let credential = environment[names.appCredential], !credential.isEmpty else {
                return .failure(Self.configurationError("\(names.appCredential) is not set"))
            }
            return .success(HeraldConnection(serverURL: url, credential: credential))
        }

        static func configurationError(_ problem: String) -> UNUserNotificationCenter.HeraldError {
            UNUserNotificationCenter.HeraldError(
                status: 0, code: "not_configured",
                message:
                    "UNUserNotificationCenter on Linux talks to a Herald server: \(problem). Set \(UNUserNotificationCenter.Environment.serverURL) (the JSON API's URL, e.g. http://127.0.0.1:8080) and \(UNUserNotificationCenter.Environment.appCredential) (from `herald admin app-credential --device-id ID --bundle-id ID`)."
            )
        }

        /// Sends a request of the app API; returns the answer's JSON object. Throws `UNError` for the
        /// server errors Apple has a code for, `HeraldError` for the rest.
        @discardableResult
        package func send(_ method: String, _ path: String, body: [String: Any]? = nil) async throws -> [String: Any] {
            try await send(method, path, bodyData: try body.map { try Self.encode($0).get() })
        }

        /// A request body as JSON, or why it cannot be one.
        static func encode(_ body: [String: Any]) -> Result<Data, UNUserNotificationCenter.HeraldError> {
            guard JSONSerialization.isValidJSONObject(body),
                let data = try? JSONSerialization.data(withJSONObject: body)
            else {
                return .failure(
                    UNUserNotificationCenter.HeraldError(
                        status: 0, code: "invalid_json",
                        message:
                            "The request holds a value JSON cannot carry (userInfo takes strings, numbers, booleans, arrays and dictionaries with string keys)."
                    ))
            }
            return .success(data)
        }

        /// Moves an attachment's file into Herald's attachment store (`POST /v1/app/attachments`, the
        /// bytes as the body): the server sniffs and checks it and answers its id. Throws Apple's
        /// `UNError` attachment codes for what it refuses.
        package func upload(_ attachment: UNNotificationAttachment) async throws -> [String: Any] {
            let data: Data
            do {
                data = try Data(contentsOf: attachment.url)
            } catch {
                throw UNError(.attachmentInvalidURL, reason: "Attachment file cannot be read: \(attachment.url.path)")
            }
            return try await upload(data, identifier: attachment.identifier, typeHint: attachment.type)
        }

        private func upload(_ data: Data, identifier: String, typeHint: String?) async throws -> [String: Any] {
            var headers = ["X-Herald-Attachment-Identifier": identifier]
            headers["X-Herald-Attachment-Type"] = typeHint
            let answer = try await send(
                "POST", "v1/app/attachments", bodyData: data, contentType: "application/octet-stream", headers: headers)
            guard let stored = answer["attachment"] as? [String: Any] else {
                throw UNError(.attachmentMoveIntoDataStoreFailed, reason: "Herald did not keep the attachment.")
            }
            return stored
        }

        /// Apple moves an attachment's file into its attachment store once the request is accepted
        /// ("attachments located inside an app's bundle are copied instead of moved"): Herald's store
        /// has its own copy by then, so the app's file is removed — unless it lies inside the app's
        /// bundle (`Bundle.main`, the executable's directory on Linux). An avatar's file (`INImage`)
        /// is the app's and stays. A file that is already gone is not an error.
        package static func removeMovedFiles(of content: UNNotificationContent, bundle: URL = Bundle.main.bundleURL) {
            let bundlePath = bundle.standardizedFileURL.resolvingSymlinksInPath().path
            for attachment in content.attachments where attachment.url.isFileURL {
                let path = attachment.url.standardizedFileURL.resolvingSymlinksInPath().path
                if path == bundlePath || path.hasPrefix(bundlePath.hasSuffix("/") ? bundlePath : bundlePath + "/") {
                    continue
                }
                try? FileManager.default.removeItem(atPath: path)
            }
        }

        /// The bytes of a communication avatar Herald keeps as a file (`INImage(imageData:)` or a
        /// file URL); nil for a named image or an http(s) URL, which the content names as they are.
        static func avatarBytes(_ content: UNNotificationContent) throws -> Data? {
            switch content.communication?.avatar {
            case .data(let data)?: return data
            case .url(let url)? where url.isFileURL:
                do {
                    return try Data(contentsOf: url)
                } catch {
                    throw UNError(.attachmentInvalidURL, reason: "The avatar's file cannot be read: \(url.path)")
                }
            default: return nil
            }
        }

        /// Whether `contentJSON` has files to move into Herald's store first.
        static func hasFiles(_ content: UNNotificationContent) -> Bool {
            guard content.attachments.isEmpty else { return true }
            switch content.communication?.avatar {
            case .data?: return true
            case .url(let url)?: return url.isFileURL
            default: return false
            }
        }

        /// The content's JSON with its attachments (and an avatar given as bytes or a file) moved into
        /// Herald's store first, each named by the id the store gave it.
        package func contentJSON(_ content: UNNotificationContent) async throws -> [String: Any] {
            var json = try HeraldWireFormat.json(content)
            guard Self.hasFiles(content) else { return json }
            var attachments: [[String: Any]] = []
            for attachment in content.attachments {
                let stored = try await upload(attachment)
                attachments.append([
                    "identifier": attachment.identifier, "attachment_id": stored["id"] as? String ?? "",
                    "thumbnail_hidden": (attachment.options[UNNotificationAttachmentOptionsThumbnailHiddenKey] as? Bool)
                        ?? false,
                ])
            }
            if let avatar = try Self.avatarBytes(content) {
                // Any image type; the server sniffs it and refuses what is not an image.
                let stored = try await upload(avatar, identifier: "avatar", typeHint: nil)
                attachments.append([
                    "identifier": "avatar", "attachment_id": stored["id"] as? String ?? "", "avatar": true,
                ])
            }
            json["attachments"] = attachments
            return json
        }

        @discardableResult
        func send(
            _ method: String, _ path: String, bodyData: Data?, contentType: String = "application/json",
            headers: [String: String] = [:]
        ) async throws -> [String: Any] {
            var request = URLRequest(url: serverURL.appendingPathComponent(path))
            request.httpMethod = method
            request.setValue("Bearer \(credential)", forHTTPHeaderField: "Authorization")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            if let bodyData {
                request.httpBody = bodyData
                request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            }
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await session.data(for: request)
            } catch {
                throw UNUserNotificationCenter.HeraldError(
                    status: 0, code: "connection_failed",
                    message: "Could not reach Herald at \(serverURL.absoluteString): \(error.localizedDescription)")
            }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            guard (200..<300).contains(status) else {
                let error = object["error"] as? [String: Any]
                let code = error?["code"] as? String ?? "http_\(status)"
                let message = error?["message"] as? String ?? "HTTP \(status)"
                switch code {
                case "notifications_not_allowed": throw UNError(.notificationsNotAllowed, reason: message)
                case "notification_invalid_no_content": throw UNError(.notificationInvalidNoContent, reason: message)
                case "badge_input_invalid": throw UNError(.badgeInputInvalid, reason: message)
                case "attachment_unrecognized_type": throw UNError(.attachmentUnrecognizedType, reason: message)
                case "attachment_invalid_file_size": throw UNError(.attachmentInvalidFileSize, reason: message)
                case "attachment_corrupt": throw UNError(.attachmentCorrupt, reason: message)
                case "attachment_not_in_data_store": throw UNError(.attachmentNotInDataStore, reason: message)
                case "attachment_move_into_data_store_failed":
                    throw UNError(.attachmentMoveIntoDataStoreFailed, reason: message)
                default: throw UNUserNotificationCenter.HeraldError(status: status, code: code, message: message)
                }
            }
            return object
        }
    }
#endif
