import Foundation
import HeraldPolicy
import HeraldStore

/// The live sessions of devices as the delivery policy sees them: whether a device has one (a
/// device with a connected session is "in use", which `decide` reads), and where committed changes
/// go. The JSON API's `LiveHub` is the implementation; the policy never imports the API.
public protocol LiveSessions: Sendable {
    /// Whether a session of the device is connected now.
    func hasSession(deviceID: String) -> Bool
    /// Sends committed changes (in seq order) to the sessions of their devices.
    func publish(_ changes: [StoredNotification])
    /// Tells the device's sessions that its summary event `seq` was committed; they read it from the store.
    func publishSummary(deviceID: String, seq: Int64)
    /// Whether a live connection of the app on the device answers `willPresent` (the app's
    /// `GET /v1/app/stream?will_present=true`).
    func answersWillPresent(deviceID: String, bundleID: String) -> Bool
    /// Asks the app's newest connection that answers `willPresent` how to present `question`; nil
    /// when none does, or none answered in time (then it is not presented, as when an app has no
    /// delegate).
    func willPresent(_ question: WillPresentQuestion) async -> PresentationOptions?
}

/// A notification about to be delivered while its app is in front of the device, as the app's
/// `userNotificationCenter(_:willPresent:withCompletionHandler:)` sees it (it is not stored yet).
public struct WillPresentQuestion: Sendable, Hashable {
    public var deviceID: String
    public var bundleID: String
    /// The request identifier: a push's `apns-id` (lowercase, its list id), a local notification's own.
    public var identifier: String
    /// Whether an app's request made it (else a push).
    public var isLocal: Bool
    /// A local notification's trigger (its JSON); nil for a push or one without a trigger.
    public var trigger: String?
    /// The APNs-shaped payload (JSON text).
    public var payload: String
    /// When it is delivered.
    public var date: Date

    public init(
        deviceID: String, bundleID: String, identifier: String, isLocal: Bool, trigger: String?, payload: String,
        date: Date
    ) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.identifier = identifier
        self.isLocal = isLocal
        self.trigger = trigger
        self.payload = payload
        self.date = date
    }
}
