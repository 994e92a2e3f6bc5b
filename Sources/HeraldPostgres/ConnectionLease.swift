import Foundation
import HeraldCore
import PostgresNIO
import Synchronization

/// The database did not give a connection in time: it is away (stopped, restarting, unreachable) or
/// every connection is busy. The operation did nothing; the API answers 500 (the APNs endpoint
/// `InternalServerError`), never a success that is not durable.
public struct DatabaseUnavailableError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension PostgresStore {
    /// How long an operation waits for a connection of a pool before it fails: long enough for a
    /// busy pool on a loaded machine (3 seconds failed contract tests on 2 busy cores), short enough
    /// that a provider gets its answer before its own timeout. While the database is known to be
    /// away, operations fail at once instead (`unavailableSince`).
    static let leaseTimeout: Duration = .seconds(10)
    /// How long an operation waits while the database is believed away.
    static let awayLeaseTimeout: Duration = .seconds(1)
    /// How long operations fail at once after the database was found away.
    static let failFastPeriod: Duration = .milliseconds(500)

    /// Runs `body` with a connection of `pool`, or throws `DatabaseUnavailableError` when none comes
    /// within `leaseTimeout`. PostgresNIO's pool waits for a connection as long as it takes (it keeps
    /// trying to connect to a server that is away): the group-commit writer, waiting so, held every
    /// push behind it, unanswered, for as long as PostgreSQL was down. Here the connection is leased
    /// by a task of its own and handed over; the wait for it has a deadline; the query itself has none
    /// (a commit under way is never cut short) — but it fails when its connection closes under it
    /// (`ConnectionWatch`).
    func leased<T: Sendable>(
        _ pool: PostgresClient, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        // The database is believed away (a lease timed out, or the feed's connection could not
        // connect): an operation right after that fails at once, the others wait a second only —
        // a push reads and writes several times, and each waiting its full time left providers
        // unanswered. The first lease that succeeds ends it.
        let since = unavailableSince.withLock { $0 }
        if let since, ContinuousClock.now - since < Self.failFastPeriod { throw LeaseHandoff.unavailable }
        let timeout = since == nil ? Self.leaseTimeout : Self.awayLeaseTimeout
        let handoff = LeaseHandoff()
        let holder = Task {
            do {
                try await pool.withConnection { connection in
                    guard handoff.offer(connection) else { return }  // given up on: back to the pool
                    await handoff.waitUntilReleased()
                }
            } catch {
                handoff.fail(error)
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if handoff.giveUp() { holder.cancel() }
        }
        defer {
            timer.cancel()
            handoff.release()
        }
        let connection: PostgresConnection
        do {
            connection = try await handoff.connection()
        } catch let error as DatabaseUnavailableError {
            unavailableSince.withLock { $0 = ContinuousClock.now }
            throw error
        }
        timer.cancel()
        unavailableSince.withLock { $0 = nil }
        return try await watch.run(on: connection) { try await body(connection) }
    }
}

/// Runs operations on leased connections so that one whose connection closes under it fails at
/// once. A query in flight when the server ends the connection never completes in PostgresNIO 1.33.2
/// (found with gdb after PostgreSQL was restarted under load: the group-commit writer waited on such
/// a query for ever, and every push after it with it), like its LISTEN sequence (which the feed ends
/// the same way). So each operation runs in a task of its own, and the caller waits for whichever
/// comes first: its result, or the connection's close — then it throws `DatabaseUnavailableError`
/// (the provider gets 500; a commit the server made before it went away stays, as APNs's 500 allows)
/// and the abandoned task ends whenever the driver lets it. One close callback per connection, not
/// per operation: a connection lives for millions of operations.
final class ConnectionWatch: Sendable {
    private struct Watched {
        var failures: [Int: @Sendable () -> Void] = [:]
    }

    private let watched = Mutex<(next: Int, connections: [ObjectIdentifier: Watched])>((0, [:]))

    func run<T: Sendable>(
        on connection: PostgresConnection, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = OnceResult<T>()
        let key = ObjectIdentifier(connection)
        let (id, isNew) = watched.withLock { state -> (Int, Bool) in
            state.next += 1
            let isNew = state.connections[key] == nil
            state.connections[key, default: Watched()].failures[state.next] = {
                outcome.resolve(.failure(Self.connectionClosed))
            }
            return (state.next, isNew)
        }
        // (Registered after the entry exists: a connection closed already calls back at once.)
        if isNew { connection.closeFuture.whenComplete { [self] _ in closed(key) } }
        let task = Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.resolve(result)
        }
        defer { watched.withLock { _ = $0.connections[key]?.failures.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            task.cancel()
        }
    }

    /// The connection closed: every operation still running on it fails.
    private func closed(_ key: ObjectIdentifier) {
        let failures = watched.withLock { $0.connections.removeValue(forKey: key)?.failures.values }
        for fail in failures.map(Array.init) ?? [] { fail() }
    }

    static let connectionClosed = DatabaseUnavailableError(
        description: "The connection to the database closed during the operation: it is away or restarting.")
}

/// One lease handed from the task holding it to the operation using it.
final class LeaseHandoff: Sendable {
    private enum State {
        case waiting(CheckedContinuation<PostgresConnection, any Error>?)
        /// Handed over before the operation asked for it (the holder may wait for its release already).
        case offered(PostgresConnection, release: CheckedContinuation<Void, Never>?)
        case inUse(release: CheckedContinuation<Void, Never>?)
        case done
    }

    private let state = Mutex(State.waiting(nil))

    /// The connection, once the holder has it; `DatabaseUnavailableError` when given up on first.
    func connection() async throws -> PostgresConnection {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<PostgresConnection, any Error>? = state.withLock { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .offered(let connection, let release):
                    state = .inUse(release: release)
                    return .success(connection)
                case .inUse, .done:
                    return .failure(Self.unavailable)
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The holder has a connection: hands it over; false when the operation gave up already.
    func offer(_ connection: PostgresConnection) -> Bool {
        let waiter: CheckedContinuation<PostgresConnection, any Error>?? = state.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = waiter == nil ? .offered(connection, release: nil) : .inUse(release: nil)
            return .some(waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(returning: connection)
        return true
    }

    /// The holder could not lease one.
    func fail(_ error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<PostgresConnection, any Error>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .done
            return waiter
        }
        waiter?.resume(throwing: error is CancellationError ? Self.unavailable : error)
    }

    /// The deadline passed: true when no connection had come (the operation fails).
    func giveUp() -> Bool {
        let waiter: CheckedContinuation<PostgresConnection, any Error>?? = state.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = .done
            return .some(waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(throwing: Self.unavailable)
        return true
    }

    /// The holder waits here until the operation is done with the connection.
    func waitUntilReleased() async {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state -> Bool in
                switch state {
                case .inUse(nil):
                    state = .inUse(release: continuation)
                    return false
                case .offered(let connection, nil):
                    state = .offered(connection, release: continuation)
                    return false
                default:
                    return true
                }
            }
            if released { continuation.resume() }
        }
    }

    /// The operation is done (or never got it): the holder gives the connection back.
    func release() {
        let holder = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .done }
            switch state {
            case .inUse(let release), .offered(_, let release): return release
            default: return nil
            }
        }
        holder?.resume()
    }

    static let unavailable = DatabaseUnavailableError(
        description: "The database gave no connection in time: it is away or every connection is busy.")
}
