import Foundation
import HeraldCore
import HeraldStore
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Herald's store on PostgreSQL, for several Herald nodes sharing one database (`herald serve
/// --database postgres://…`). It keeps the store contract `SQLiteStore` keeps (the contract suite in
/// `Tests/HeraldStoreTests` runs against both): dates as BIGINT milliseconds, ids compared byte by byte
/// (`COLLATE "C"`, whatever the cluster's locale), a write durable when it returns
/// (`synchronous_commit = on` for Herald's sessions).
///
/// Each part of `HeraldStore` is in a file of its own (`PostgresStore+Registry.swift`, …); the
/// schema's migrations are `PostgresSchema`.
public final class PostgresStore: HeraldStore, Sendable {
    /// The connections that write (transactions, the group commit): at most 10 per node.
    let client: PostgresClient
    /// The connections that only read (lists, catch-up reads of live sessions): at most 10 per node. Apart,
    /// so that thousands of sessions catching up at once never keep the writer waiting for a
    /// connection (seen: 400 stalled sessions reading made a run of 1,000 pushes take over a minute).
    let readers: PostgresClient
    let logger: Logger
    /// Where the database is: the feed's listening connection connects there itself.
    let url: PostgresURL
    /// This store's name in the signals it sends the other nodes (`PostgresStore+Feed.swift`).
    public let nodeID = UUID().uuidString
    /// The tasks relaying other nodes' changes (`changesFromOtherNodes`): cancelled by `close`.
    let relays = Mutex<[Task<Void, Never>]>([])
    /// When a lease last timed out (`leased`); nil once one succeeds.
    let unavailableSince = Mutex<ContinuousClock.Instant?>(nil)
    /// The operations running on leased connections, failed when their connection closes (`leased`).
    let watch = ConnectionWatch()
    private let running: Task<Void, Never>

    /// Connects to the database at `url` (see ``PostgresURL``), waits until it answers, and brings
    /// its schema up to date (one node at a time: the migrations hold an advisory lock).
    public static func connect(_ url: String, logger: Logger = Logger(label: "herald.postgres")) async throws
        -> PostgresStore
    {
        // PostgresNIO logs every query at debug and trace: at `herald serve --log-level trace` that
        // was 240,000 lines in one interop test, and the test ran out of time. The driver and this
        // store log at info and above.
        var logger = logger
        if logger.logLevel < .info { logger.logLevel = .info }
        let parsed = try PostgresURL(url)
        // One connection first: a server that is not there (or refuses Herald's user) fails here at
        // once, with PostgreSQL's words, where the pool would keep retrying.
        let probe = try await PostgresConnection.connect(
            configuration: try parsed.connectionConfiguration(), id: 0, logger: logger)
        try await probe.close()
        var writers = try parsed.configuration()
        writers.options.maximumConnections = 10
        var readers = try parsed.configuration()
        readers.options.maximumConnections = 10
        let store = PostgresStore(
            client: PostgresClient(configuration: writers, backgroundLogger: logger),
            readers: PostgresClient(configuration: readers, backgroundLogger: logger), url: parsed, logger: logger)
        do {
            try await PostgresSchema.migrate(store)
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    private init(client: PostgresClient, readers: PostgresClient, url: PostgresURL, logger: Logger) {
        self.client = client
        self.readers = readers
        self.url = url
        self.logger = logger
        running = Task {
            async let writing: Void = client.run()
            async let reading: Void = readers.run()
            _ = await (writing, reading)
        }
    }

    /// Closes the connections (their pool stops with the task that runs it) and waits until they are.
    public func close() async {
        for relay in relays.withLock({ $0 }) { relay.cancel() }
        running.cancel()
        await running.value
    }

    /// A store released without `close()` ends its pools too (without waiting for them): its
    /// connections would otherwise stay open until the pools' idle timeout, and a test process that
    /// makes hundreds of stores ran the server out of connections (max_connections, "too many
    /// clients": leases then timed out in tests that had nothing to do with each other).
    deinit {
        running.cancel()
    }

    /// None: the database server keeps its own house.
    public var backgroundServices: [any Service] { [] }

    // MARK: Transactions

    /// Runs `body` in one transaction on one connection: committed (durable) when this returns,
    /// rolled back when `body` throws. Constraint violations become `StoreError`s with `messages`.
    func write<T: Sendable>(
        _ messages: ConstraintMessages = ConstraintMessages(),
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await transaction(on: client, "BEGIN", messages, body)
    }

    /// Runs `body` in one read-only transaction that sees one snapshot of the database (REPEATABLE
    /// READ): reads that must agree with each other, like a device's whole policy context.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await transaction(
            on: readers, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", ConstraintMessages(), body)
    }

    private func transaction<T: Sendable>(
        on pool: PostgresClient, _ begin: PostgresQuery, _ messages: ConstraintMessages,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await leased(pool) { connection in
                try await connection.query(begin, logger: self.logger)
                do {
                    let value = try await body(connection)
                    try await connection.query("COMMIT", logger: self.logger)
                    return value
                } catch {
                    // A failed ROLLBACK leaves the connection broken, and the pool drops it.
                    _ = try? await connection.query("ROLLBACK", logger: self.logger)
                    throw error
                }
            }
        } catch let error as PSQLError {
            throw Self.mapped(error, messages)
        }
    }

    /// Runs one statement, a transaction of its own (committed when this returns: one round trip
    /// where `write` takes three).
    func execute(_ query: PostgresQuery, _ messages: ConstraintMessages = ConstraintMessages()) async throws {
        do {
            try await leased(client) { connection in _ = try await connection.query(query, logger: self.logger) }
        } catch let error as PSQLError {
            throw Self.mapped(error, messages)
        }
    }

    /// Runs `body` on one connection, outside a transaction (each statement its own).
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await leased(readers) { connection in try await body(connection) }
        } catch let error as PSQLError {
            throw Self.mapped(error, ConstraintMessages())
        }
    }

    /// A PostgreSQL error as the store's callers see it: a constraint as a `StoreError`, anything
    /// else as it is.
    static func mapped(_ error: PSQLError, _ messages: ConstraintMessages) -> any Error {
        switch error.serverInfo?[.sqlState] {
        case "23505": StoreError(.conflict, messages.conflict)  // unique_violation
        case "23503": StoreError(.notFound, messages.notFound)  // foreign_key_violation
        case "23502", "23514", "22001", "22P02", "22003": StoreError(.invalid, messages.invalid)
        default: error
        }
    }

    /// Whether `query` (of the form `SELECT 1 FROM …`) finds a row.
    static func exists(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Bool {
        let wrapped = PostgresQuery(unsafeSQL: "SELECT EXISTS (\(query.sql))", binds: query.binds)
        for try await found in try await connection.query(wrapped, logger: logger).decode(Bool.self) { return found }
        return false
    }
}

/// Where the database is, as a URL in libpq's form:
/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`, or with
/// `?host=/a/directory` for the server's Unix socket in that directory (the host part is then
/// ignored). The password may also come from `PGPASSWORD`.
public struct PostgresURL: Sendable, Hashable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var socketDirectory: String?
    public var sslMode: String

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw PostgresURLError(
                "The database URL must be postgres://user@host/database, not \(Self.redacted(text)).")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresURLError("The database URL names no user: postgres://USER@host/database.")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresURLError("The database URL names no database: postgres://user@host/DATABASE.")
        }
        self.user = user.removingPercentEncoding ?? user
        password = components.password?.removingPercentEncoding ?? ProcessInfo.processInfo.environment["PGPASSWORD"]
        host = components.host ?? "localhost"
        port = components.port ?? 5432
        self.database = database
        var sslMode = "prefer"
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    throw PostgresURLError("The database URL's host= must be a socket directory (an absolute path).")
                }
                socketDirectory = value
            case "sslmode":
                guard let value = item.value, ["disable", "prefer", "require"].contains(value) else {
                    throw PostgresURLError("The database URL's sslmode must be disable, prefer or require.")
                }
                sslMode = value
            default:
                throw PostgresURLError("The database URL has an option Herald does not know: \(item.name).")
            }
        }
        self.sslMode = sslMode
    }

    /// The client's configuration: Herald's sessions commit synchronously whatever the server's
    /// default, so a write that returned is on the server's disk.
    func configuration() throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password,
                database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(.makeClientConfiguration())
                default: .prefer(.makeClientConfiguration())
                }
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.additionalStartupParameters = [
            ("synchronous_commit", "on"), ("application_name", "herald"), ("TimeZone", "UTC"),
        ]
        return configuration
    }

    /// The configuration of one connection (the probe `PostgresStore.connect` makes first).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password,
                database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return "(not a URL)" }
        if components.password != nil { components.password = "…" }
        return components.string ?? "(not a URL)"
    }
}

public struct PostgresURLError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
