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
}
