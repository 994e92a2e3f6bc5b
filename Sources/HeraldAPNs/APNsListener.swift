import HeraldCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where and how the APNs endpoint listens.
public struct APNsListenerConfiguration: Sendable {
    public var host: String
    /// The cleartext port (h2c with prior knowledge, and HTTP/1.1); 0 picks a free port.
    public var cleartextPort: Int
    /// The TLS port; 0 picks a free port, nil turns TLS off.
    public var tlsPort: Int?
    /// PEM files of the server certificate chain and its private key (needed with `tlsPort`).
    public var certificatePath: String?
    public var privateKeyPath: String?
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to clients (APNs: "don't assume"; ~1000 observed).
    public var maximumConcurrentStreams: Int = 1000
    /// Open connections of both listeners together; past it a new connection is closed at once. By
    /// default half the process's open-files limit (`RLIMIT_NOFILE`, soft), so that idle connections
    /// can't take the descriptors the database, the JSON API and its streams need.
    public var maximumConnections: Int = APNsListenerConfiguration.defaultMaximumConnections()
    /// How long a new connection may take to choose its protocol (finish the TLS handshake and send the
    /// HTTP/2 preface or an HTTP/1.1 request line); then it is closed. Once chosen, HTTP/2 connections
    /// may stay idle (providers keep them open, as APNs asks).
    public var protocolChoiceTimeout: TimeAmount = .seconds(10)

    public init(
        host: String, cleartextPort: Int, tlsPort: Int?, certificatePath: String? = nil, privateKeyPath: String? = nil
    ) {
        self.host = host
        self.cleartextPort = cleartextPort
        self.tlsPort = tlsPort
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

extension APNsListenerConfiguration {
    /// Half the soft open-files limit, at least 64 (the whole limit if it is that small).
    public static func defaultMaximumConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return 10_000
        }
        let files = Int(clamping: limit.rlim_cur)
        return max(min(64, files), files / 2)
    }
}

/// The APNs-compatible listeners: TLS (ALPN `h2`, no ALPN → HTTP/2, `http/1.1`) and cleartext
/// (h2c prior knowledge and HTTP/1.1). A `Service`: on graceful shutdown it stops accepting, sends
/// GOAWAY, answers `503 Shutdown` to requests that still arrive, and finishes those in flight.
public final class APNsListener: Service, Sendable {
    /// The addresses the listeners are bound to.
    public struct BoundAddresses: Sendable {
        public var cleartext: SocketAddress
        public var tls: SocketAddress?
    }

    private let configuration: APNsListenerConfiguration
    private let handler: any PushHandler
    private let group: any EventLoopGroup
    private let logger: Logger
    private let tracker = ConnectionTracker()
    private let serverChannels = HeraldMutex<[any Channel]>([])

    /// The connections counted against `maximumConnections` now.
    var openConnections: Int { tracker.connectionCount }

    public init(
        configuration: APNsListenerConfiguration, handler: any PushHandler, group: any EventLoopGroup, logger: Logger
    ) {
        self.configuration = configuration
        self.handler = handler
        self.group = group
        self.logger = logger
    }

    /// Binds the listeners; call before `run()` to learn the ports.
    public func bind() async throws -> BoundAddresses {
        let cleartext = try await bootstrap(tls: nil)
            .bind(host: configuration.host, port: configuration.cleartextPort).get()
        serverChannels.withLock { $0.append(cleartext) }
        var tlsAddress: SocketAddress?
        if let port = configuration.tlsPort {
            guard let certificatePath = configuration.certificatePath, let keyPath = configuration.privateKeyPath else {
                throw APNsListenerError.missingCertificate
            }
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem))
            )
            tls.minimumTLSVersion = .tlsv12
            tls.applicationProtocols = ["h2", "http/1.1"]
            // Closing a TLS connection sends close_notify and waits for the peer's, for at most this
            // long. A connection closed after a protocol error is no longer read (its flood must not
            // be decoded), so that wait always runs to the end: at NIOSSL's default of 5 s, a TLS
            // CONTINUATION flood of ~250 connections a second kept ~1,300 closing connections and
            // their buffers alive (server RSS 48 → 340 MiB, scripts/abuse-report). A provider's
            // orderly close answers within milliseconds.
            tls.shutdownTimeout = .milliseconds(250)
            let context = try NIOSSLContext(configuration: tls)
            let channel = try await bootstrap(tls: context).bind(host: configuration.host, port: port).get()
            serverChannels.withLock { $0.append(channel) }
            tlsAddress = channel.localAddress
        }
        guard let cleartextAddress = cleartext.localAddress else { throw APNsListenerError.notBound }
        logger.info(
            "APNs listeners bound",
            metadata: [
                "apns.cleartext": "\(cleartextAddress)", "apns.tls": "\(tlsAddress.map { "\($0)" } ?? "off")",
            ])
        return BoundAddresses(cleartext: cleartextAddress, tls: tlsAddress)
    }

    /// Serves until graceful shutdown or cancellation (its group cancels it when another service
    /// failed), then drains.
    public func run() async throws {
        let channels = serverChannels.withLock { $0 }
        if channels.isEmpty { _ = try await bind() }
        let closeListeners = { @Sendable in
            for channel in self.serverChannels.withLock({ $0 }) { channel.close(promise: nil) }
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                for channel in serverChannels.withLock({ $0 }) {
                    try? await channel.closeFuture.get()
                }
            } onCancel: {
                closeListeners()
            }
        } onGracefulShutdown: {
            closeListeners()
        }
        await drain()
    }

    /// Sends GOAWAY on every connection, waits for the requests in flight, then closes.
    public func drain() async {
        for channel in serverChannels.withLock({ $0 }) { try? await channel.close() }
        let connections = tracker.beginQuiescing()
        for connection in connections {
            connection.eventLoop.execute {
                let goAway = HTTP2Frame(
                    streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: nil))
                if (try? connection.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self)) != nil {
                    connection.writeAndFlush(goAway, promise: nil)
                }
            }
        }
        await tracker.waitUntilDrained()
        for connection in connections { try? await connection.close() }
        logger.info("APNs listeners drained")
    }

    private func bootstrap(tls: NIOSSLContext?) -> ServerBootstrap {
        let handler = self.handler
        let tracker = self.tracker
        let logger = self.logger
        let maximumConnections = configuration.maximumConnections
        let protocolChoiceTimeout = configuration.protocolChoiceTimeout
        let refusals = ConnectionRefusals()
        let settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: configuration.maximumConcurrentStreams),
            HTTP2Setting(parameter: .initialWindowSize, value: HTTP2ConnectionStateMachine.streamWindow),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
        ]
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard tracker.add(channel, limit: maximumConnections) else {
                    if refusals.refused() {
                        logger.warning(
                            "APNs connection refused: too many open connections",
                            metadata: ["apns.maximum_connections": "\(maximumConnections)"])
                    }
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    // A connection that has not chosen its protocol in time is closed (the TLS handshake and
                    // the first bytes are where a silent connection would otherwise wait forever).
                    let chosen = ProtocolChoice()
                    let timeout = channel.eventLoop.scheduleTask(in: protocolChoiceTimeout) {
                        if !chosen.isChosen { channel.close(promise: nil) }
                    }
                    channel.closeFuture.whenComplete { _ in timeout.cancel() }
                    let pipeline = channel.pipeline.syncOperations
                    let configure = { (context: ChannelHandlerContext, choice: ProtocolSniffer.Choice) throws in
                        chosen.isChosen = true
                        try Self.configure(
                            choice, pipeline: context.pipeline.syncOperations, channel: context.channel,
                            after: context.handler, settings: settings, handler: handler, tracker: tracker,
                            logger: logger)
                    }
                    if let tls {
                        try pipeline.addHandler(NIOSSLServerHandler(context: tls))
                        let negotiation = ApplicationProtocolNegotiationHandler { result, channel in
                            channel.eventLoop.makeCompletedFuture {
                                let sync = channel.pipeline.syncOperations
                                switch result {
                                case .negotiated("h2"):
                                    chosen.isChosen = true
                                    try Self.configure(
                                        .http2, pipeline: sync, channel: channel, after: nil, settings: settings,
                                        handler: handler, tracker: tracker, logger: logger)
                                case .negotiated("http/1.1"):
                                    chosen.isChosen = true
                                    try Self.configure(
                                        .http1, pipeline: sync, channel: channel, after: nil, settings: settings,
                                        handler: handler, tracker: tracker, logger: logger)
                                default:
                                    try sync.addHandler(ProtocolSniffer(configure: configure))
                                }
                            }
                        }
                        try pipeline.addHandler(negotiation)
                    } else {
                        try pipeline.addHandler(ProtocolSniffer(configure: configure))
                    }
                }
            }
    }

    private static func configure(
        _ chosen: ProtocolSniffer.Choice,
        pipeline: ChannelPipeline.SynchronousOperations,
        channel: any Channel,
        after: (any ChannelHandler)?,
        settings: [HTTP2Setting],
        handler: any PushHandler,
        tracker: ConnectionTracker,
        logger: Logger
    ) throws {
        let position: ChannelPipeline.SynchronousOperations.Position = after.map { .after($0) } ?? .last
        switch chosen {
        case .http2:
            var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
            connectionConfiguration.initialSettings = settings
            // No stream multiplexer: HTTP2ConnectionHandler answers every stream of the connection. It is
            // NIOHTTP2's frame delegate to tell a connection error (a GOAWAY written) from a stream error.
            let streams = HTTP2ConnectionHandler(
                connection: APNsConnection(), handler: handler, tracker: tracker, logger: logger)
            let http2 = NIOHTTP2Handler(
                mode: .server, frameDelegate: streams, connectionConfiguration: connectionConfiguration)
            try pipeline.addHandler(http2, position: position)
            try pipeline.addHandler(streams, position: .after(http2))
        case .http1:
            let handlers: [any ChannelHandler] = [
                HTTPResponseEncoder(),
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)),
                HTTPServerPipelineHandler(),
                HTTPServerProtocolErrorHandler(),
                HTTP1Handler(handler: handler, tracker: tracker, logger: logger),
            ]
            try pipeline.addHandlers(handlers, position: position)
        }
    }
}

/// Whether a connection has chosen its protocol; only touched on the connection's event loop.
private final class ProtocolChoice: @unchecked Sendable {
    var isChosen = false
}

/// Counts connections refused at the limit, so that a flood of them logs one warning per 1,000.
private final class ConnectionRefusals: Sendable {
    private let count = HeraldMutex(0)

    /// Counts one refusal; true for the first and every 1,000th.
    func refused() -> Bool {
        count.withLock { count in
            count += 1
            return count % 1000 == 1
        }
    }
}

/// Why the APNs listener could not start.
public enum APNsListenerError: Error, CustomStringConvertible {
    case missingCertificate
    case notBound

    public var description: String {
        switch self {
        case .missingCertificate: "The TLS listener needs a certificate and a private key."
        case .notBound: "The APNs listener did not bind to an address."
        }
    }
}
