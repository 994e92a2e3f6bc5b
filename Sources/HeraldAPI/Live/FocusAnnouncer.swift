import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import ServiceLifecycle

/// Tells every device of a user their active Focus (`event: focus`, the body of `GET /v1/me/focus`)
/// when it changes: at once after an API change (`UserStateRoutes`), and — as this service — when the
/// policy's `FocusService` reports that it changed by itself (a scheduled window started or ended, a
/// manual end time passed), so every open notification center shows the Focus the policy applies.
public struct FocusAnnouncer: Service, CustomStringConvertible {
    let dependencies: APIDependencies

    /// Its name in logs (the dependencies hold the admin token: never described).
    public var description: String { "FocusAnnouncer" }

    public init(dependencies: APIDependencies) {
        self.dependencies = dependencies
    }

    public func run() async throws {
        let events = dependencies.policy.events.subscribe()
        await cancelWhenGracefulShutdown {
            for await event in events {
                if case .focusChanged(let userID, _) = event {
                    await Self.announce(userID: userID, dependencies: dependencies)
                }
            }
        }
        // The events end with the streams, at the last service's shutdown — before this one's turn.
        // A service that ends before its turn makes the group cancel the others: wait for it.
        try? await gracefulShutdown()
    }

    /// Sends the user's devices their active Focus now; a store that cannot be read sends nothing
    /// (the page reads `GET /v1/me/focus` again on its next change).
    static func announce(userID: String, dependencies: APIDependencies) async {
        guard let json = try? await activeJSON(userID: userID, dependencies: dependencies),
            let devices = try? await dependencies.store.devices(userID: userID)
        else { return }
        for device in devices {
            dependencies.hub.publishEvent(deviceID: device.deviceID, name: "focus", json)
        }
    }

    /// The user's active Focus now and why, with the next change (`GET /v1/me/focus`, `event: focus`).
    static func activeJSON(userID: String, dependencies: APIDependencies) async throws -> JSONValue {
        let store = dependencies.store
        let stored = try await store.focusModes(userID: userID)
        let zone = try await store.preferences(userID: userID)?.timeZone ?? TimeZone(identifier: "UTC")!
        let modes = FocusModes(FocusCatalog.modes(stored: stored))
        let instant = dependencies.now()
        return FocusCatalog.activeJSON(
            modes.active(at: instant, in: zone), nextChange: modes.nextChange(after: instant, in: zone), timeZone: zone)
    }
}
