// Herald in this process, for tests and one-binary tools: `EmbeddedHerald.start()` runs the same
// server `herald serve` runs (SQLite in a temporary data directory, the demo setup, the APNs and JSON
// API listeners on free ports of 127.0.0.1) and hands out `UNUserNotificationCenter`s of apps on its
// demo device — so code written against Apple's API runs unchanged against it, `current()` included
// (`makeCurrent`). With a manual clock, triggers fire when the test moves time (`advanceClock`).
#if os(Linux)
    import Foundation
    import HeraldAPI
    import HeraldClient
    import HeraldCore
    import HeraldDelivery
    import HeraldServer
    import HeraldStore
    import Logging
    import UserNotifications

    public final class EmbeddedHerald: Sendable {
        /// The server assembled (its store, registry, policy).
        public let application: HeraldApplication
        /// Where it listens (`apiURL`, `apnsURL`).
        public let runtime: RuntimeInfo
        /// Its data directory; removed by `stop()` when `start` made it.
        public let dataDirectory: URL
        /// The demo setup: team, key, app (`topic`), user, device, device token.
        public let demo: DemoSetup
        private let removesData: Bool
        private let task: Task<Void, any Error>
        private let person: HeraldAPIClient

        private init(
            application: HeraldApplication, runtime: RuntimeInfo, dataDirectory: URL, removesData: Bool,
            task: Task<Void, any Error>
        ) throws {
            self.application = application
            self.runtime = runtime
            self.dataDirectory = dataDirectory
            self.removesData = removesData
            self.task = task
            guard let demo = application.demo else { throw EmbeddedHeraldError("the data directory has no demo setup") }
            self.demo = demo
            person = try HeraldAPIClient(baseURL: URL(string: runtime.apiURL)!, bearerToken: demo.userToken)
        }

        /// Starts Herald in this process and returns once it listens.
        /// - Parameters:
        ///   - dataDirectory: where its database lives (kept); nil: a fresh temporary one, removed by `stop()`.
        ///   - manualClock: the time to start a manual clock at (time then moves only by `advanceClock`);
        ///     nil: the wall clock.
        ///   - logLevel: the server's log level (its log goes to standard error).
        ///   - attachmentQuota: the bytes each app's attachments may take (1 GiB by default).
        public static func start(
            dataDirectory: URL? = nil, manualClock: Date? = nil, logLevel: Logger.Level = .warning,
            attachmentQuota: Int = 1 << 30
        ) async throws -> EmbeddedHerald {
            let directory =
                dataDirectory
                ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                    "herald-embedded-\(UUID().uuidString)", isDirectory: true)
            var configuration = HeraldConfiguration(dataDirectory: directory.path)
            configuration.apiPort = 0
            configuration.apnsPort = 0
            configuration.apnsTLSPort = nil
            configuration.attachmentQuota = attachmentQuota
            var logger = Logger(label: "herald.embedded")
            logger.logLevel = logLevel
            let application: HeraldApplication
            if let manualClock {
                application = try await HeraldApplication.make(
                    configuration: configuration, logger: logger, clock: ManualClock(now: manualClock))
            } else {
                application = try await HeraldApplication.make(configuration: configuration, logger: logger)
            }
            let (ready, readyContinuation) = AsyncStream.makeStream(of: RuntimeInfo.self)
            let task = Task {
                defer { readyContinuation.finish() }
                try await application.run(signals: []) { runtime in readyContinuation.yield(runtime) }
            }
            var iterator = ready.makeAsyncIterator()
            guard let runtime = await iterator.next() else {
                try await task.value
                throw EmbeddedHeraldError("the server stopped before it listened")
            }
            return try EmbeddedHerald(
                application: application, runtime: runtime, dataDirectory: directory,
                removesData: dataDirectory == nil, task: task)
        }

        /// A center of the app `bundleID` (the demo app by default) on the demo device, with a fresh
        /// credential; an app the server does not know is created in the demo team.
        public func center(bundleID: String? = nil) async throws -> UNUserNotificationCenter {
            let bundleID = bundleID ?? demo.topic
            if try await application.store.apps().contains(where: { $0.bundleID == bundleID }) == false {
                _ = try await application.registry.createApp(bundleID: bundleID, teamID: demo.teamID)
            }
            let created = try await application.registry.createAppCredential(
                deviceID: demo.deviceID, bundleID: bundleID)
            return UNUserNotificationCenter(
                connection: HeraldConnection(serverURL: URL(string: runtime.apiURL)!, credential: created.credential))
        }

        /// Makes `UNUserNotificationCenter.current()` return a center of `bundleID` on this server (until
        /// `stop()`), so code that calls `current()`, as every iOS app does, runs against it.
        @discardableResult
        public func makeCurrent(bundleID: String? = nil) async throws -> UNUserNotificationCenter {
            let center = try await center(bundleID: bundleID)
            UNUserNotificationCenter.setCurrent(center)
            return center
        }

        /// Moves the manual clock forward and returns once every trigger, Focus schedule and summary
        /// due by then has acted. Throws when the server runs on the wall clock.
        @discardableResult
        public func advanceClock(by seconds: TimeInterval) async throws -> Date {
            guard let control = application.timeControl else {
                throw EmbeddedHeraldError("the clock is the wall clock: start with `manualClock:` to move it")
            }
            return try await control.move(.by(seconds))
        }

        /// Answers, as the person, the app's permission request (`requestAuthorization`) — waiting
        /// up to `timeout` seconds for the app to ask.
        public func answerAuthorization(bundleID: String? = nil, allow: Bool, timeout: TimeInterval = 10) async throws {
            let bundleID = bundleID ?? demo.topic
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let pending = try await application.store.pendingAuthorizationRequests(deviceID: demo.deviceID)
                if let request = pending.first(where: { $0.bundleID == bundleID }) {
                    _ = try await person.answerAuthorizationRequest(
                        deviceID: demo.deviceID, requestID: request.id, allow: allow)
                    return
                }
                guard Date() < deadline else {
                    throw EmbeddedHeraldError("\(bundleID) did not ask for permission within \(timeout) s")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// Responds, as the person, to the delivered notification with request `identifier` of the
        /// app (a local notification's identifier, or a push's `apns-id`): `action` is
        /// `UNNotificationDefaultActionIdentifier` (a tap) by default, `text` the reply of a
        /// text-input action. It reaches the app's delegate (`didReceive`).
        public func respond(
            to identifier: String, bundleID: String? = nil,
            action: String = UNNotificationDefaultActionIdentifier, text: String? = nil
        ) async throws {
            let bundleID = bundleID ?? demo.topic
            let localID = LocalNotificationID.make(bundleID: bundleID, identifier: identifier)
            let id =
                try await application.store.notification(deviceID: demo.deviceID, id: localID) != nil
                ? localID : identifier.lowercased()
            _ = try await person.respond(deviceID: demo.deviceID, id: id, action: action, text: text)
        }

        /// Stops the server (gracefully, as SIGTERM does) and removes a temporary data directory.
        public func stop() async throws {
            // Only this server's: an embedded Herald running beside it (another test) keeps its own.
            UNUserNotificationCenter.resetCurrent(ifOn: URL(string: runtime.apiURL)!)
            try await person.shutdown()
            await application.shutdown()
            try await task.value
            if removesData { try? FileManager.default.removeItem(at: dataDirectory) }
        }
    }

    /// Why an embedded Herald could not do what was asked.
    public struct EmbeddedHeraldError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
#endif
