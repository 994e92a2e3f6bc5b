import HeraldDelivery
import HeraldPolicy

/// The hub is where the delivery policy finds a device's sessions and sends what it changes, and
/// where it asks a foreground app how to present a notification.
extension LiveHub: LiveSessions {
    public func answersWillPresent(deviceID: String, bundleID: String) -> Bool {
        apps.answersWillPresent(deviceID: deviceID, bundleID: bundleID)
            || presence?.answeringNode(deviceID: deviceID, bundleID: bundleID) != nil
    }

    /// Asks this node's answering connection of the app, or else the one on another node.
    public func willPresent(_ question: WillPresentQuestion) async -> PresentationOptions? {
        if apps.answersWillPresent(deviceID: question.deviceID, bundleID: question.bundleID) {
            return await apps.ask(question)
        }
        guard let presence, let node = presence.answeringNode(deviceID: question.deviceID, bundleID: question.bundleID)
        else { return nil }
        return await presence.ask(question, on: node, timeout: apps.willPresentTimeout + .seconds(1))
    }
}
