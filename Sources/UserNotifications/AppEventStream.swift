// The app's live connection to Herald (`GET /v1/app/stream?will_present=true`, Server-Sent Events):
// the person's responses to its notifications, each handed to the delegate's `didReceive` once, and
// `willPresent` questions while the app is in front of the device. It reconnects after a failure (a
// second later); responses made meanwhile wait in the server.
#if os(Linux)
    import Foundation
    import FoundationNetworking

    final class AppEventStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        /// One event of the stream.
        typealias Event = AppEventParser.Event

        private let connection: HeraldConnection
        private let onEvent: @Sendable (Event) -> Void
        private let lock = NSLock()
        private var parser = AppEventParser()
        private var session: URLSession?
        private var isStopped = false
        private var isConnected = false

        init(connection: HeraldConnection, onEvent: @escaping @Sendable (Event) -> Void) {
            self.connection = connection
            self.onEvent = onEvent
            super.init()
        }

        func start() {
            let session = lock.withLock { () -> URLSession? in
                guard !isStopped else { return nil }
                let configuration = URLSessionConfiguration.ephemeral
                configuration.timeoutIntervalForRequest = 3600
                configuration.timeoutIntervalForResource = .infinity
                let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
                self.session = session
                parser = AppEventParser()
                return session
            }
            guard let session else { return }
            var components = URLComponents(
                url: connection.serverURL.appendingPathComponent("v1/app/stream"), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "will_present", value: "true")]
            var request = URLRequest(url: components.url!)
            request.setValue("Bearer \(connection.credential)", forHTTPHeaderField: "Authorization")
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            session.dataTask(with: request).resume()
        }

        func stop() {
            let session = lock.withLock { () -> URLSession? in
                isStopped = true
                defer { self.session = nil }
                return self.session
            }
            session?.invalidateAndCancel()
        }

        /// Whether the server subscribed the connection (its `: connected` line) or the stream was
        /// stopped within `seconds`. It looks every 10 ms: a wait for tests, which fails rather than
        /// waits for ever when the connection never comes.
        func waitUntilConnected(within seconds: Double) async -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < deadline {
                if lock.withLock({ isConnected || isStopped }) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return lock.withLock { isConnected || isStopped }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let events = lock.withLock { () -> [Event] in
                let output = parser.parse(data)
                if output.sawConnected { isConnected = true }
                return output.events
            }
            for event in events { onEvent(event) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let again = lock.withLock { () -> Bool in
                isConnected = false
                return !isStopped
            }
            session.finishTasksAndInvalidate()
            guard again else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in self?.start() }
        }
    }
#endif
