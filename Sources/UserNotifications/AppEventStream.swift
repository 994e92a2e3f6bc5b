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
        private var connectedWaiters: [CheckedContinuation<Void, Never>] = []
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
            let (session, waiters) = lock.withLock { () -> (URLSession?, [CheckedContinuation<Void, Never>]) in
                isStopped = true
                defer {
                    self.session = nil
                    connectedWaiters = []
                }
                return (self.session, connectedWaiters)
            }
            session?.invalidateAndCancel()
            for waiter in waiters { waiter.resume() }
        }

        /// Returns once the server has subscribed the connection (its `: connected` line).
        func waitUntilConnected() async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock { () -> Bool in
                    if isConnected || isStopped { return true }
                    connectedWaiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            var events: [Event] = []
            var connectedNow: [CheckedContinuation<Void, Never>] = []
            lock.withLock {
                let output = parser.parse(data)
                events = output.events
                if output.sawConnected {
                    isConnected = true
                    connectedNow = connectedWaiters
                    connectedWaiters = []
                }
            }
            for waiter in connectedNow { waiter.resume() }
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
