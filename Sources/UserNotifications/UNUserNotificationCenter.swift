// UNUserNotificationCenter: Apple's API, backed by a Herald server's app API (one app on one device,
// signed with the app's credential). Both spellings where Apple has both: the completion handler
// (called on a background thread, as Apple's) and async.
//
// `current()` connects to the server the environment names (`HERALD_URL`, `HERALD_APP_CREDENTIAL`).
// Without them it stops the program with a message saying what to set — as Apple's `current()`
// raises an exception in a process that is not an app bundle.
#if os(Linux)
    import Foundation
    import Synchronization

    open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
        package let connection: HeraldConnection
        private let delegateLock = NSLock()
        private weak var storedDelegate: (any UNUserNotificationCenterDelegate)?

        private static let shared: UNUserNotificationCenter = {
            switch HeraldConnection.fromEnvironment() {
            case .success(let connection): return UNUserNotificationCenter(connection: connection)
            case .failure(let error): preconditionFailure(error.message)
            }
        }()

        /// The center of this app: the server and credential of the environment, unless an embedded
        /// Herald made its own current (`HeraldEmbedded`).
        open class func current() -> UNUserNotificationCenter { replacement.withLock { $0 } ?? shared }

        private static let replacement = Mutex<UNUserNotificationCenter?>(nil)

        /// The connection of `current()`'s app, or why there is none (no environment), without stopping
        /// the program: what the app's other calls to Herald (Intents' donations) go through.
        package static var currentConnection: Result<HeraldConnection, HeraldError> {
            if let center = replacement.withLock({ $0 }) { return .success(center.connection) }
            return HeraldConnection.fromEnvironment()
        }

        /// Makes `current()` return `center` (nil: the environment's again), for an in-process server.
        package static func setCurrent(_ center: UNUserNotificationCenter?) {
            replacement.withLock { $0 = center }
        }

        /// Stops `current()` returning a center of this server (`HeraldConnection.serverURL`): one
        /// made current by another server stays.
        package static func resetCurrent(ifOn serverURL: URL) {
            replacement.withLock { current in
                if current?.connection.serverURL == serverURL { current = nil }
            }
        }

        /// A center for one app on one device of a Herald server (tests, tools that talk to several).
        package init(connection: HeraldConnection) {
            self.connection = connection
            let (stream, continuation) = AsyncStream.makeStream(of: String.self)
            responses = continuation
            super.init()
            responseTask = Task { [weak self, connection] in
                for await event in stream {
                    // Made here, in order: its attachments are fetched as files first.
                    guard let response = await Self.response(event, connection: connection), let self,
                        let delegate = self.delegate
                    else { continue }
                    nonisolated(unsafe) let unsafeDelegate = delegate
                    await unsafeDelegate.userNotificationCenter(self, didReceive: response)
                }
            }
        }

        @available(*, unavailable, message: "Use UNUserNotificationCenter.current()")
        public override init() { fatalError("UNUserNotificationCenter() is unavailable") }

        /// Setting a delegate opens the app's live connection to Herald, which hands it the person's
        /// responses (`userNotificationCenter(_:didReceive:withCompletionHandler:)`), each once — also
        /// those made while the app was not running.
        open var delegate: (any UNUserNotificationCenterDelegate)? {
            get { delegateLock.withLock { storedDelegate } }
            set {
                let start = delegateLock.withLock { () -> AppEventStream? in
                    storedDelegate = newValue
                    guard newValue != nil, events == nil else { return nil }
                    let stream = AppEventStream(connection: connection) { [weak self] event in
                        self?.handle(event)
                    }
                    events = stream
                    return stream
                }
                start?.start()
            }
        }

        private var events: AppEventStream?

        /// Waits until the app's live connection is subscribed (after a delegate was set): tests and
        /// tools that respond right away use it; an app needs not. Throws when it is not within
        /// `seconds`.
        package func waitUntilConnected(within seconds: Double = 30) async throws {
            guard let events = delegateLock.withLock({ events }) else { return }
            guard await events.waitUntilConnected(within: seconds) else {
                throw ConnectionWaitTimedOut(seconds: seconds)
            }
        }

        package struct ConnectionWaitTimedOut: Error, CustomStringConvertible {
            let seconds: Double
            package var description: String { "The app's live connection was not subscribed within \(seconds) s." }
        }

        deinit {
            events?.stop()
            responses.finish()
            responseTask?.cancel()
        }

        /// An event of the app's live connection: a `response` goes to the delegate's `didReceive`, in
        /// the order they came; a `will_present` question to its `willPresent`, whose answer goes back
        /// to Herald (each on its own, so a delegate that never answers holds up nothing else).
        private func handle(_ event: AppEventStream.Event) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any],
                let notification = (object["notification"] as? [String: Any]).flatMap({
                    HeraldWireFormat.notification(json: $0)
                })
            else { return }
            switch event.name {
            case "response":
                responses.yield(event.data)
            case "will_present":
                guard let id = object["id"] as? String else { return }
                Task { [weak self] in
                    guard let self, let delegate = self.delegate else { return }
                    nonisolated(unsafe) let unsafeDelegate = delegate
                    let options = await unsafeDelegate.userNotificationCenter(self, willPresent: notification)
                    // A question that timed out is gone (404): Herald decided without the answer.
                    _ = try? await self.connection.send(
                        "POST", "v1/app/will-present/\(id)", body: ["options": HeraldWireFormat.names(options)])
                }
            default:
                return
            }
        }

        /// A `response` event's response, its notification's files fetched (nil: not a response).
        private static func response(_ data: String, connection: HeraldConnection) async -> UNNotificationResponse? {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any],
                let action = object["action_identifier"] as? String,
                let json = object["notification"] as? [String: Any],
                let notification = await connection.notification(json: json)
            else { return nil }
            if let text = object["user_text"] as? String {
                return UNTextInputNotificationResponse(
                    notification: notification, actionIdentifier: action, userText: text)
            }
            return UNNotificationResponse(notification: notification, actionIdentifier: action)
        }

        /// The responses to hand to the delegate, one after the other (the events' JSON).
        private let responses: AsyncStream<String>.Continuation
        private var responseTask: Task<Void, Never>?

        /// Herald runs no content extensions (they draw custom UI on a device).
        open var supportsContentExtensions: Bool { false }

        // MARK: Authorization and settings

        /// Asks the person for permission, the first time: the request appears on the device (its
        /// streams, `herald authorize`) and the call returns the person's answer, however long they
        /// take. `.provisional` is granted quietly, without asking. Once answered, later calls return
        /// the stored answer without asking again. Herald's default for an app whose settings the
        /// person never set (and that never asked) is authorized, so pushes work without an app.
        open func requestAuthorization(
            options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void
        ) {
            Self.complete(completionHandler) { try await self.requestAuthorization(options: options) }
        }

        open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
            let body = HeraldConnection.encode(["options": HeraldWireFormat.names(options), "wait": 25])
            while true {
                let answer = try await connection.send("POST", "v1/app/authorization", bodyData: try body.get())
                if let granted = answer["granted"] as? Bool { return granted }
                // 202: the person has not answered yet; ask again (the server waits up to 25 s a call).
                try Task.checkCancellation()
            }
        }

        open func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
            Task {
                let settings = (try? await notificationSettings()) ?? UNNotificationSettings(values: .init())
                completionHandler(settings)
            }
        }

        open func notificationSettings() async throws -> UNNotificationSettings {
            HeraldWireFormat.settings(json: try await connection.send("GET", "v1/app/settings"))
        }

        // MARK: Categories

        /// Replaces the app's categories (Apple's call returns at once; the server is updated in
        /// the background, and a later `notificationCategories()` sees the new set).
        open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
            let body = HeraldConnection.encode([
                "categories": categories.sorted { $0.identifier < $1.identifier }.map(HeraldWireFormat.json)
            ])
            categoryWrites.enqueue { [connection] in
                try await connection.send("PUT", "v1/app/categories", bodyData: try body.get())
            }
        }

        open func getNotificationCategories(
            completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void
        ) {
            Task { completionHandler((try? await notificationCategories()) ?? []) }
        }

        open func notificationCategories() async throws -> Set<UNNotificationCategory> {
            await categoryWrites.drain()
            let object = try await connection.send("GET", "v1/app/categories")
            return Set((object["categories"] as? [[String: Any]] ?? []).compactMap(HeraldWireFormat.category(json:)))
        }

        /// Category writes in the order the app made them (`setNotificationCategories` does not wait).
        private let categoryWrites = SerialWrites()

        // MARK: Requests

        open func add(
            _ request: UNNotificationRequest,
            withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
        ) {
            Task {
                do {
                    try await add(request)
                    completionHandler?(nil)
                } catch {
                    completionHandler?(error)
                }
            }
        }

        open func add(_ request: UNNotificationRequest) async throws {
            var body: [String: Any] = [
                "identifier": request.identifier, "content": try await connection.contentJSON(request.content),
            ]
            body["trigger"] = try HeraldWireFormat.json(request.trigger) ?? NSNull()
            try await connection.send("POST", "v1/app/requests", body: body)
            // Accepted: its attachments' files are in Herald's store now (Apple moves them).
            HeraldConnection.removeMovedFiles(of: request.content)
        }

        open func getPendingNotificationRequests(
            completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void
        ) {
            Task { completionHandler((try? await pendingNotificationRequests()) ?? []) }
        }

        open func pendingNotificationRequests() async throws -> [UNNotificationRequest] {
            let object = try await connection.send("GET", "v1/app/requests")
            return (object["requests"] as? [[String: Any]] ?? []).compactMap(HeraldWireFormat.request(json:))
        }

        open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
            let body = HeraldConnection.encode(["identifiers": identifiers])
            pendingWrites.enqueue { [connection] in
                try await connection.send("POST", "v1/app/requests/remove", bodyData: try body.get())
            }
        }

        open func removeAllPendingNotificationRequests() {
            pendingWrites.enqueue { [connection] in try await connection.send("DELETE", "v1/app/requests") }
        }

        /// Removals in the order the app made them (Apple's calls return at once).
        private let pendingWrites = SerialWrites()

        // MARK: Delivered notifications

        open func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
            Task { completionHandler((try? await deliveredNotifications()) ?? []) }
        }

        open func deliveredNotifications() async throws -> [UNNotification] {
            await pendingWrites.drain()
            let object = try await connection.send("GET", "v1/app/notifications")
            var notifications: [UNNotification] = []
            for json in object["notifications"] as? [[String: Any]] ?? [] {
                if let notification = await connection.notification(json: json) { notifications.append(notification) }
            }
            return notifications
        }

        open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
            let body = HeraldConnection.encode(["identifiers": identifiers])
            pendingWrites.enqueue { [connection] in
                try await connection.send("POST", "v1/app/notifications/remove", bodyData: try body.get())
            }
        }

        open func removeAllDeliveredNotifications() {
            pendingWrites.enqueue { [connection] in try await connection.send("DELETE", "v1/app/notifications") }
        }

        // MARK: Badge

        open func setBadgeCount(
            _ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
        ) {
            Task {
                do {
                    try await setBadgeCount(newBadgeCount)
                    completionHandler?(nil)
                } catch {
                    completionHandler?(error)
                }
            }
        }

        open func setBadgeCount(_ newBadgeCount: Int) async throws {
            guard newBadgeCount >= 0 else {
                throw UNError(.badgeInputInvalid, reason: "The badge count must not be negative.")
            }
            try await connection.send("PUT", "v1/app/badge", body: ["count": newBadgeCount])
        }

        /// Waits until the fire-and-forget calls made so far (`setNotificationCategories`, the removals)
        /// reached the server. Apple's calls need no such wait on a device; a test or tool on Linux
        /// that reads the server directly afterwards may.
        package func flush() async {
            await categoryWrites.drain()
            await pendingWrites.drain()
        }

        private static func complete<T: Sendable>(
            _ handler: @escaping @Sendable (T, (any Error)?) -> Void, default value: T,
            _ body: @escaping @Sendable () async throws -> T
        ) {
            Task {
                do {
                    handler(try await body(), nil)
                } catch {
                    handler(value, error)
                }
            }
        }

        private static func complete(
            _ handler: @escaping @Sendable (Bool, (any Error)?) -> Void,
            _ body: @escaping @Sendable () async throws -> Bool
        ) {
            complete(handler, default: false, body)
        }
    }

    /// Requests sent one after another in the order they were enqueued, without the caller waiting
    /// (Apple's `setNotificationCategories` and removal calls return at once); `drain()` waits for
    /// those enqueued so far. A failed write is dropped (Apple's calls report nothing either).
    final class SerialWrites: Sendable {
        private let last = Mutex<Task<Void, Never>?>(nil)

        func enqueue(_ write: @escaping @Sendable () async throws -> Void) {
            last.withLock { last in
                let previous = last
                last = Task {
                    await previous?.value
                    try? await write()
                }
            }
        }

        func drain() async {
            await last.withLock { $0 }?.value
        }
    }
#endif
