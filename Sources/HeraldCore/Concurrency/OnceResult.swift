import Foundation
import Synchronization

/// A result set once, by whichever comes first, and awaited once: a race between an operation and
/// a deadline or a close, where the loser may go on running (it is not awaited). A second `value()`
/// throws `CancellationError`.
public final class OnceResult<T: Sendable>: Sendable {
    private enum State {
        case pending(CheckedContinuation<T, any Error>?)
        case resolved(Result<T, any Error>)
        case taken
    }

    private let state = HeraldMutex(State.pending(nil))

    public init() {}

    public func resolve(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard case .pending(let waiter) = state else { return nil }
            state = waiter == nil ? .resolved(result) : .taken
            return waiter
        }
        waiter?.resume(with: result)
    }

    public func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .pending:
                    state = .pending(continuation)
                    return nil
                case .resolved(let result):
                    state = .taken
                    return result
                case .taken:
                    return .failure(CancellationError())
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

/// Whether `operation` succeeds within `timeout`: false when it throws, when the time passes first,
/// or when the caller is cancelled. Raced, not awaited: an operation stuck on a peer that went away
/// (a database that will never answer) is cancelled and left behind, and does not hold the caller.
public func succeeds(
    within timeout: Duration, _ operation: @escaping @Sendable () async throws -> Void
) async -> Bool {
    let outcome = OnceResult<Bool>()
    let attempt = Task {
        do {
            try await operation()
            outcome.resolve(.success(true))
        } catch {
            outcome.resolve(.success(false))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        outcome.resolve(.success(false))
    }
    defer {
        attempt.cancel()
        timer.cancel()
    }
    return await withTaskCancellationHandler {
        (try? await outcome.value()) ?? false
    } onCancel: {
        outcome.resolve(.success(false))
    }
}
