import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// How a stream reconnects after its connection drops or fails: exponential backoff from
/// `initialDelay` (or the server's `retry:`) up to `maximumDelay`.
public struct ReconnectPolicy: Hashable, Sendable {
    /// The wait before the first reconnect after a drop.
    public var initialDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration
    /// How many failed attempts in a row end the stream; nil retries for ever, 0 never reconnects.
    public var maximumAttempts: Int?

    /// A policy from its parts.
    public init(
        initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(15), maximumAttempts: Int? = nil
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// Reconnects for ever: 0.5 s, 1 s, 2 s, … up to 15 s between attempts.
    public static let standard = ReconnectPolicy()
    /// Ends the stream when its connection ends.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The wait before attempt number `failures` (1 = the first after a failure), from `base`.
    func delay(afterFailures failures: Int, base: Duration? = nil) -> Duration {
        var delay = base ?? initialDelay
        for _ in 1..<max(failures, 1) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }

    func allows(failures: Int) -> Bool {
        maximumAttempts.map { failures <= $0 } ?? true
    }
}

/// The live events of one device (`GET /v1/devices/{id}/stream`): an `AsyncSequence` of
/// ``ServerSentEvent``s that reconnects after a drop and resumes from the last event id.
///
/// It ends (returns nil) only when the policy gives up after a clean close; it throws when the
/// policy gives up after a failure, or at once for an answer no retry can fix (401, 403, 404, a
/// response that is not `text/event-stream`).
public struct DeviceEventStream: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    /// What happened to the connection, for a status line.
    public enum Status: Hashable, Sendable {
        /// Connected; the stream resumes after `lastEventID` (nil: from the cursor given, or now).
        case connected(lastEventID: String?)
        /// The connection ended or could not be made; the next attempt follows after `retryDelay`.
        case disconnected(reason: String, retryDelay: Duration)
    }

    let client: HeraldAPIClient
    let deviceID: String
    let cursor: String?
    let reconnect: ReconnectPolicy
    let onStatus: @Sendable (Status) -> Void

    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads events, reconnecting as the policy allows.
    public struct Iterator: AsyncIteratorProtocol {
        private let stream: DeviceEventStream
        private var parser: ServerSentEventParser
        private var pending: [ServerSentEvent] = []
        private var body: HTTPClientResponse.Body.AsyncIterator?
        private var failures = 0
        private var waitBeforeConnecting: Duration?
        private var reportedConnected = false
        /// The event id the current connection resumed after.
        private var resumedAfter: String?

        init(stream: DeviceEventStream) {
            self.stream = stream
            self.parser = ServerSentEventParser(lastEventID: stream.cursor)
        }

        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if !pending.isEmpty { return pending.removeFirst() }
                try Task.checkCancellation()
                guard var iterator = body else {
                    if let wait = waitBeforeConnecting { try await Task.sleep(for: wait) }
                    do {
                        body = try await connect()
                        failures = 0
                        waitBeforeConnecting = nil
                        reportedConnected = false
                        resumedAfter = parser.lastEventID
                    } catch {
                        guard Self.isRetryable(error) else { throw error }
                        try failed(error, reason: "\(error)")
                    }
                    continue
                }
                do {
                    if let chunk = try await iterator.next() {
                        body = iterator
                        pending = parser.parse(chunk.readableBytesView)
                        // Connected once the server says the session is subscribed (`: connected`),
                        // or, from a server that does not say so, at the first event.
                        if !reportedConnected, parser.sawConnected || !pending.isEmpty {
                            reportedConnected = true
                            stream.onStatus(.connected(lastEventID: resumedAfter))
                        }
                    } else {
                        body = nil
                        parser.reset()
                        if try !failed(nil, reason: "the server closed the stream") { return nil }
                    }
                } catch {
                    body = nil
                    parser.reset()
                    if Task.isCancelled { throw CancellationError() }
                    try failed(error, reason: "\(error)")
                }
            }
        }

        /// Counts a failure; returns whether to retry, throws `error` when the policy gives up on it.
        @discardableResult
        private mutating func failed(_ error: (any Error)?, reason: String) throws -> Bool {
            failures += 1
            guard stream.reconnect.allows(failures: failures) else {
                if let error { throw error }
                return false
            }
            let base = parser.retryMilliseconds.map { Duration.milliseconds($0) }
            let delay = stream.reconnect.delay(afterFailures: failures, base: base)
            waitBeforeConnecting = delay
            stream.onStatus(.disconnected(reason: reason, retryDelay: delay))
            return true
        }

        private func connect() async throws -> HTTPClientResponse.Body.AsyncIterator {
            let client = stream.client
            var request = client.makeRequest(
                path: "/v1/devices/\(HeraldAPIClient.pathSegment(stream.deviceID))/stream", query: [])
            request.method = .GET
            request.headers.add(name: "accept", value: "text/event-stream")
            request.headers.add(name: "cache-control", value: "no-cache")
            if let lastEventID = parser.lastEventID, !lastEventID.isEmpty {
                request.headers.add(name: "last-event-id", value: lastEventID)
            }
            let response = try await client.httpClient.client.execute(request, timeout: .seconds(30))
            guard (200..<300).contains(response.status.code) else {
                let body = try await response.body.collect(upTo: 64 * 1024)
                throw HeraldAPIError(status: Int(response.status.code), body: Data(buffer: body))
            }
            let contentType = response.headers.first(name: "content-type") ?? ""
            guard contentType.lowercased().hasPrefix("text/event-stream") else {
                throw HeraldClientError(
                    "The stream answered with content type \"\(contentType)\", not text/event-stream.")
            }
            return response.body.makeAsyncIterator()
        }

        /// Whether another attempt may succeed: network failures and 5xx/429/408 answers may pass,
        /// client errors (wrong token, unknown device, not a stream) will not.
        static func isRetryable(_ error: any Error) -> Bool {
            switch error {
            case is CancellationError, is HeraldClientError: false
            case let error as HeraldAPIError: error.status >= 500 || error.status == 429 || error.status == 408
            default: true
            }
        }
    }
}
