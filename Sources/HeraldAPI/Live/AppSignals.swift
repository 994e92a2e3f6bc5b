import HeraldCore
import Synchronization

/// Wakes the live connections of one app on one device (`GET /v1/app/stream`) when something for
/// the app was stored (a person's response): each connection then reads the store. A signal sent
/// while a connection reads is kept, so nothing stored between its read and its wait is missed.
public final class AppSignals: Sendable {
    private struct Waiter {
        var pending = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = HeraldMutex<[String: [UInt64: Waiter]]>([:])
    private let nextID = Atomic<UInt64>(0)

    public init() {}

    static func key(deviceID: String, bundleID: String) -> String { deviceID + "\u{0}" + bundleID }

    /// A connection's registration; `wait()` returns after the next signal (or at once when one came
    /// since the last wait). Call `cancel()` when the connection ends.
    public struct Registration: Sendable {
        let signals: AppSignals
        let key: String
        let id: UInt64

        /// Waits for a signal, or until `timeout` passes (then it returns too: the caller reads anyway).
        public func wait(timeout: Duration) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await withCheckedContinuation { continuation in
                        let resumeNow = signals.state.withLock { state -> Bool in
                            guard var waiter = state[key]?[id] else { return true }
                            if waiter.pending {
                                waiter.pending = false
                                state[key]?[id] = waiter
                                return true
                            }
                            waiter.continuation = continuation
                            state[key]?[id] = waiter
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                }
                group.addTask { try? await Task.sleep(for: timeout) }
                await group.next()
                group.cancelAll()
                // Wake a wait the timeout ended, so its task can finish.
                let continuation = signals.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    let continuation = state[key]?[id]?.continuation
                    state[key]?[id]?.continuation = nil
                    return continuation
                }
                continuation?.resume()
                await group.waitForAll()
            }
        }

        public func cancel() {
            let continuation = signals.state.withLock { state -> CheckedContinuation<Void, Never>? in
                let continuation = state[key]?[id]?.continuation
                state[key]?[id] = nil
                if state[key]?.isEmpty == true { state[key] = nil }
                return continuation
            }
            continuation?.resume()
        }
    }

    public func register(deviceID: String, bundleID: String) -> Registration {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let key = Self.key(deviceID: deviceID, bundleID: bundleID)
        state.withLock { $0[key, default: [:]][id] = Waiter() }
        return Registration(signals: self, key: key, id: id)
    }

    /// Wakes every connection of the app on the device.
    public func signal(deviceID: String, bundleID: String) {
        let key = Self.key(deviceID: deviceID, bundleID: bundleID)
        let continuations = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var waiters = state[key] else { return [] }
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, var waiter) in waiters {
                if let continuation = waiter.continuation {
                    woken.append(continuation)
                    waiter.continuation = nil
                } else {
                    waiter.pending = true
                }
                waiters[id] = waiter
            }
            state[key] = waiters
            return woken
        }
        for continuation in continuations { continuation.resume() }
    }
}
