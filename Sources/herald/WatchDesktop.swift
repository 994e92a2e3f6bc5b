import Foundation
import HeraldClient
import HeraldCore
import Synchronization

/// `herald watch --desktop`: the device's alerting notifications on the desktop's notification
/// service (``DesktopForwarding`` decides what shows and what an answer means), and the person's
/// answers there sent back as responses.
final class WatchDesktop: Sendable {
    private let client: HeraldAPIClient
    private let deviceID: String
    /// Shared with the task that sends the answers.
    private final class Forwarding: Sendable {
        let state = HeraldMutex(DesktopForwarding())
    }

    private let forwarding = Forwarding()
    private let service: DesktopNotifications
    private let answers: Task<Void, Never>

    init(client: HeraldAPIClient, deviceID: String) throws {
        self.client = client
        self.deviceID = deviceID
        let (signals, continuation) = AsyncStream.makeStream(of: DesktopNotificationSignal.self)
        do {
            service = try DesktopNotifications { continuation.yield($0) }
        } catch {
            throw HeraldClientError("--desktop: \(error)")
        }
        answers = Task { [forwarding] in
            for await signal in signals {
                guard let response = forwarding.state.withLock({ $0.response(to: signal) }) else { continue }
                do {
                    _ = try await client.respond(
                        deviceID: deviceID, id: response.notificationID, action: response.action, text: nil)
                    Console.printError("desktop: \(response.action) on \(response.notificationID)")
                } catch let error as HeraldAPIError {
                    Console.printError(error.jsonLine)
                } catch {
                    Console.printError("desktop: could not send the response: \(error)")
                }
            }
        }
    }

    /// Shows or closes the event's notification on the desktop; a desktop that refuses is reported,
    /// and watching goes on.
    func forward(_ event: ServerSentEvent) async {
        switch forwarding.state.withLock({ $0.step(for: event) }) {
        case .show(let id, let notification):
            do {
                let desktopID = try await service.notify(notification)
                forwarding.state.withLock { $0.shown(notificationID: id, desktopID: desktopID) }
            } catch {
                Console.printError("desktop: \(error)")
            }
        case .close(let id):
            if let desktopID = forwarding.state.withLock({ $0.closing(notificationID: id) }) {
                service.close(id: desktopID)
            }
        case nil:
            break
        }
    }

    func stop() async {
        await service.stop()
        answers.cancel()
    }
}
