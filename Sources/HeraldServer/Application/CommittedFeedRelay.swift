import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Logging
import ServiceLifecycle

/// On a database several nodes share: hands every committed change of the devices' lists to this
/// node's live sessions, in seq order whichever node committed it (the hub `followsCommittedFeed`),
/// and reads the registry (and the apps' service extensions) again when another node changed them.
struct CommittedFeedRelay: Service, CustomStringConvertible {
    let store: any SharedDatabaseStore
    /// Where the feed starts: the latest seq when the node started, before it accepted anything.
    let cursor: Int64
    let hub: LiveHub
    let registry: RegistryCache
    let extensions: ServiceExtensionService
    let policy: PolicyCoordinator
    let logger: Logger

    var description: String { "CommittedFeedRelay" }

    func run() async throws {
        let changes = store.committedChanges(after: cursor)
        // Listed first in the service group, it ends last: the writer's last commits still reach
        // the sessions, until the streams close.
        try await cancelWhenGracefulShutdown {
            for await change in changes {
                switch change {
                case .feed(let rows, let summaries):
                    hub.publishCommitted(rows, summaries: summaries)
                case .registry:
                    await readRegistry()
                case .listening:
                    await readRegistry()
                    policy.forgetCached()
                    hub.presence?.rejoined()
                case .message(let node, let message):
                    hub.presence?.received(message, from: node, hub: hub)
                case .changed(let change):
                    policy.changed(change)
                    switch change {
                    case .device(let deviceID): await publishState(of: deviceID)
                    case .appResponses(let deviceID, let bundleID):
                        hub.apps.signal(deviceID: deviceID, bundleID: bundleID)
                    default: break
                    }
                }
            }
        }
    }

    private func readRegistry() async {
        do {
            try await registry.reload { try await store.registrySnapshot() }
            await extensions.changed()
        } catch {
            // The next change (or the reconnection's) reads it again.
            logger.warning(
                "Could not read the registry another node changed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Another node changed the device's state: its sessions here hear of it too.
    private func publishState(of deviceID: String) async {
        guard hub.hasLocalSession(deviceID: deviceID) else { return }
        do {
            hub.publishState(
                deviceID: deviceID, state: try await store.deviceState(deviceID: deviceID) ?? DeviceState())
        } catch {
            logger.warning(
                "Could not read the state another node changed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
