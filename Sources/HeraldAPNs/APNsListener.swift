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
    private let serverChannels = Mutex<[any Channel]>([])

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

    /// Serves until graceful shutdown, then drains.
    public func run() async throws {
        let channels = serverChannels.withLock { $0 }
        if channels.isEmpty { _ = try await bind() }
        await withGracefulShutdownHandler {
            for channel in serverChannels.withLock({ $0 }) {
                try? await channel.closeFuture.get()
            }
        } onGracefulShutdown: {
            for channel in self.serverChannels.withLock({ $0 }) { channel.close(promise: nil) }
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
                channel.eventLoop.makeCompletedFuture {
                    tracker.add(channel)
                    let pipeline = channel.pipeline.syncOperations
                    let configure = { (context: ChannelHandlerContext, chosen: ProtocolSniffer.Choice) throws in
                        try Self.configure(
                            chosen, pipeline: context.pipeline.syncOperations, channel: context.channel,
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
                                    try Self.configure(
                                        .http2, pipeline: sync, channel: channel, after: nil, settings: settings,
                                        handler: handler, tracker: tracker, logger: logger)
                                case .negotiated("http/1.1"):
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
            // No stream multiplexer: HTTP2ConnectionHandler answers every stream of the connection.
            let http2 = NIOHTTP2Handler(mode: .server, connectionConfiguration: connectionConfiguration)
            let streams = HTTP2ConnectionHandler(
                connection: APNsConnection(), handler: handler, tracker: tracker, logger: logger)
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
