import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The JSON API as a Hummingbird application (a `Service`: add it to the server's `ServiceGroup`).
public typealias APIApplication = Application<RouterResponder<APIRequestContext>>

/// The HTTP/1.1 server of the JSON API (`APIChannel`): the router, and the stream route's SSE and
/// WebSocket sessions served on their connections. Past `maximumConnections` open connections a new
/// one is closed at once.
public func makeAPIServerBuilder(_ dependencies: APIDependencies) -> HTTPServerBuilder {
    HTTPServerBuilder { responder in
        APIChannel(responder: responder, dependencies: dependencies)
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
