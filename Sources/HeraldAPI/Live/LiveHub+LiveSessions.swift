import HeraldDelivery
import HeraldPolicy

/// The hub is where the delivery policy finds a device's sessions and sends what it changes, and
/// where it asks a foreground app how to present a notification.
extension LiveHub: LiveSessions {
    public func answersWillPresent(deviceID: String, bundleID: String) -> Bool {
        apps.answersWillPresent(deviceID: deviceID, bundleID: bundleID)
    }

    public func willPresent(_ question: WillPresentQuestion) async -> PresentationOptions? {
        await apps.ask(question)
    }
}
