import Logging
import NIOCore
import Synchronization

/// Where a live session's outputs go: the SSE response or the WebSocket of its connection.
protocol LiveSessionTransport: Sendable {
    /// Writes one output; returns when the connection takes more.
    func write(_ output: LiveFeedOutput) async throws
    /// The session ended (the hub closed, the server shuts down, the client went away): end the
    /// response or the WebSocket.
    func end()
    /// Reading the feed or writing failed: drop the connection.
    func fail()
}

/// One live session of a device (SSE or WebSocket) driven without a task of its own while idle:
/// `drain()` runs a task that steps the feed and writes until the feed is idle, then asks the
/// subscription to call it again (`LiveFeed.Iterator.step`, `LiveSubscription.whenReady`). A
/// suspended task keeps the frames of its deepest call: a session that waited in one held ~24 KB.
final class LiveSession: Sendable {
    private let subscription: LiveSubscription
    private let transport: any LiveSessionTransport
    private let logger: Logger
    /// The feed's position between drains (taken by the one drain that runs).
    private let iterator: Mutex<LiveFeed.Iterator?>
    private let heartbeat = Mutex<RepeatedTask?>(nil)
    /// Whether `finish()` was called (the server shuts down, the client went away).
    private let isFinished = Mutex(false)

    init(
        deviceID: String, cursor: Int64, dependencies: APIDependencies, logger: Logger,
        transport: any LiveSessionTransport
    ) {
        // Subscribe before the feed reads the backlog, so nothing committed in between is missed.
        let subscription = dependencies.hub.subscribe(deviceID: deviceID)
        self.subscription = subscription
        self.transport = transport
        self.logger = logger
        let feed = LiveFeed(
            subscription: subscription, after: cursor, store: dependencies.store, now: dependencies.now, logger: logger)
        self.iterator = Mutex(feed.makeAsyncIterator())
    }

    /// Starts writing: the backlog, then live changes; a heartbeat every `interval` when given (an
    /// event-loop timer that wakes the session).
    func start(heartbeatEvery interval: TimeAmount?, on eventLoop: any EventLoop) {
        if let interval {
            let subscription = self.subscription
            heartbeat.withLock {
                $0 = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                    subscription.requestHeartbeat()
                }
            }
        }
        drain()
    }

    /// Ends the session: the drain writes what is queued, then the transport ends.
    func finish() {
        isFinished.withLock { $0 = true }
        heartbeat.withLock { $0?.cancel() }
        subscription.finish()
    }

    private func drain() {
        Task { [self] in
            guard var feed = iterator.withLock({ $0.take() }) else { return }
            do {
                while true {
                    switch try await feed.step() {
                    case .output(let output):
                        try await transport.write(output)
                    case .idle:
                        iterator.withLock { $0 = feed }
                        subscription.whenReady { [self] in drain() }
                        return
                    case .ended:
                        finish()
                        transport.end()
                        return
                    }
                }
            } catch {
                logger.debug(
                    "Live session ended", metadata: ["error.type": .string(String(describing: type(of: error)))])
                // Ended already (a shutdown closes the database too): the goodbye of an end, not of a failure.
                let wasFinished = isFinished.withLock { $0 }
                finish()
                if wasFinished { transport.end() } else { transport.fail() }
            }
        }
    }
}

/// A channel handler with its context, reached from any task: what a session's transport writes
/// through (the context belongs to the handler's event loop).
struct HandlerOnLoop<Handler: AnyObject>: Sendable {
    private let bound: NIOLoopBound<(Handler, ChannelHandlerContext)>
    private let eventLoop: any EventLoop

    init(_ handler: Handler, context: ChannelHandlerContext) {
        self.bound = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
        self.eventLoop = context.eventLoop
    }

    /// Runs `body` on the event loop and waits for the future it returns.
    func submit<Value: Sendable>(
        _ body: @escaping @Sendable (Handler, ChannelHandlerContext) -> EventLoopFuture<Value>
    ) async throws -> Value {
        try await eventLoop.flatSubmit { [bound] in body(bound.value.0, bound.value.1) }.get()
    }

    /// Runs `body` on the event loop.
    func execute(_ body: @escaping @Sendable (Handler, ChannelHandlerContext) -> Void) {
        eventLoop.execute { [bound] in body(bound.value.0, bound.value.1) }
    }
}
