import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The JSON API as a Hummingbird application (a `Service`: add it to the server's `ServiceGroup`).
public typealias APIApplication = Application<RouterResponder<APIRequestContext>>

/// The HTTP/1.1 server of the JSON API with the WebSocket upgrade of the stream route: requests
/// with `Upgrade: websocket` on `/v1/devices/{device_id}/stream` become WebSocket sessions, the
/// stream's SSE requests are served on the connection (`EventStreamHandler`), all others go to the
/// router. A connection's first request head must arrive within the idle timeout
/// and 96 KiB (`RequestHeadGuard`); later ones are under Hummingbird's idle timeout. Past
/// `maximumConnections` open connections a new one is closed at once.
public func makeAPIServerBuilder(_ dependencies: APIDependencies) -> HTTPServerBuilder {
    let authenticator = Authenticator(adminToken: dependencies.adminToken, store: dependencies.store)
    let streams = WebSocketStreams(dependencies: dependencies, authenticator: authenticator)
    let idleTimeout = TimeAmount(dependencies.idleTimeout)
    let connections = APIConnectionCount(limit: dependencies.maximumConnections)
    return HTTPServerBuilder { responder in
        APIChildChannel(
            base: HTTP1WebSocketUpgradeChannel(
                responder: responder,
                configuration: .init(
                    http1: .init(
                        additionalChannelHandlers: [
                            EventStreamHandler(dependencies: dependencies, authenticator: authenticator)
                        ],
                        idleTimeout: idleTimeout),
                    ws: .init(autoPing: .enabled(timePeriod: .seconds(30)))),
                shouldUpgrade: { head, channel, logger in
                    await streams.shouldUpgrade(head, channel: channel, logger: logger)
                }
            ),
            timeout: idleTimeout, connections: connections, logger: dependencies.logger
        )
    }
}

/// The JSON API application listening on `host:port` (port 0 picks a free port).
/// `onServerRunning` gets the port it listens on once it does.
public func makeAPIApplication(
    _ dependencies: APIDependencies,
    host: String = "127.0.0.1",
    port: Int = 8080,
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> APIApplication {
    Application(
        router: makeAPIRouter(dependencies),
        server: makeAPIServerBuilder(dependencies),
        configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "Herald"),
        onServerRunning: { channel in
            await onServerRunning(channel.localAddress?.port ?? port)
        },
        logger: dependencies.logger
    )
}

/// The JSON API server, for the server's service group.
public enum APIServer {
    /// The JSON API application on `host:port` (0 picks a free port); `onServerRunning` gets the
    /// port it listens on once it does.
    public static func make(
        dependencies: APIDependencies,
        host: String = "127.0.0.1",
        port: Int = 8080,
        logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> APIApplication {
        var dependencies = dependencies
        if let logger { dependencies.logger = logger }
        return makeAPIApplication(dependencies, host: host, port: port, onServerRunning: onServerRunning)
    }
}
