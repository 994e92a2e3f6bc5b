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

        @discardableResult
        func send(_ method: String, _ path: String, bodyData: Data?) async throws -> [String: Any] {
            var request = URLRequest(url: serverURL.appendingPathComponent(path))
            request.httpMethod = method
            request.setValue("Bearer \(credential)", forHTTPHeaderField: "Authorization")
            if let bodyData {
                request.httpBody = bodyData
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
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
                default: throw UNUserNotificationCenter.HeraldError(status: status, code: code, message: message)
                }
            }
            return object
        }
    }
#endif
