import HeraldAPI
import HeraldDelivery
import HeraldStore
import Logging
import ServiceLifecycle

/// On a database several nodes share: sends this node's presence to the others (`ClusterPresence`),
/// in order — `hello` and the whole when due, then each change — says `alive` every 10 s, forgets
/// nodes unheard for 30 s, and says `bye` when it stops.
struct PresenceRelay: Service, CustomStringConvertible {
    let presence: ClusterPresence
    let store: any SharedDatabaseStore
    let hub: LiveHub
    let logger: Logger

    var description: String { "PresenceRelay" }

    func run() async throws {
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: ClusterPresence.heartbeat)
                presence.outgoingSignal.signal()
            }
        }
        defer { heartbeat.cancel() }
        await cancelWhenGracefulShutdown { await loop() }
        try? await store.send(.bye)
    }

    private func loop() async {
        var lastAlive = ContinuousClock.now
        var failures = 0
        while !Task.isCancelled {
            let messages = presence.takeOutgoing { hub.localPresence() }
            var sent = true
            for message in messages where sent {
                do {
                    try await store.send(message)
                } catch {
                    sent = false
                }
            }
            if !sent {
                // The others may have missed part: the whole again, after a second.
                presence.sendFailed()
                failures += 1
                if failures == 1 { logger.warning("Could not tell the other nodes of this node's sessions") }
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            failures = 0
            if ContinuousClock.now - lastAlive >= ClusterPresence.heartbeat {
                try? await store.send(.alive)
                lastAlive = .now
                presence.expire()
            }
            await presence.outgoingSignal.wait()
        }
    }
}
