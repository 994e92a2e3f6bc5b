import Foundation

/// An app's notification service extension as registered with Herald: what runs for the app's alert
/// pushes with `mutable-content: 1` before they are shown, and its limits.
public struct ServiceExtensionRecord: Hashable, Sendable {
    /// How Herald reaches the extension.
    public enum Runner: Hashable, Sendable {
        /// A Swift executable built against Herald's UserNotifications (its `main` calls the library's
        /// runner), launched by Herald with these arguments; kept running for the next push.
        case process(executable: String, arguments: [String])
        /// An HTTPS endpoint that takes the request as JSON and answers with the content; each
        /// request is signed with `secret` as Standard Webhooks sign (`whsec_…`).
        case webhook(url: String, secret: String)
    }

    public var bundleID: String
    public var runner: Runner
    /// The time the extension has for a push before `serviceExtensionTimeWillExpire()`.
    public var timeoutMilliseconds: Int
    /// The resident memory a process may use before it is stopped (processes only).
    public var memoryLimitBytes: Int
    /// How many processes may run for the app at once (one push each).
    public var processes: Int
    public var createdAt: Date

    public init(
        bundleID: String, runner: Runner, timeoutMilliseconds: Int, memoryLimitBytes: Int, processes: Int,
        createdAt: Date
    ) {
        self.bundleID = bundleID
        self.runner = runner
        self.timeoutMilliseconds = timeoutMilliseconds
        self.memoryLimitBytes = memoryLimitBytes
        self.processes = processes
        self.createdAt = createdAt
    }
}

/// A push accepted for an app with a service extension and not yet shown: kept durably from its
/// `200` until the notification (as the extension changed it, or as sent) is in the device's list.
public struct ExtensionJobRecord: Hashable, Sendable {
    /// The notification's id (its `apns-id`, lowercase).
    public var id: String
    public var deviceID: String
    public var bundleID: String
    /// The device token the push was sent to.
    public var token: String
    public var topic: String
    public var pushType: String
    public var priority: Int
    /// `apns-expiration` (UNIX seconds), nil when none was sent.
    public var expiration: Int64?
    public var collapseID: String?
    /// The payload as the provider sent it.
    public var payload: String
    public var receivedAt: Date
    /// Until when the node that keeps it runs it (`claimExtensionJobs`, `renewExtensionJobs`): another
    /// node takes it only after that. The distant past: anyone may.
    public var claimedUntil: Date

    public init(
        id: String, deviceID: String, bundleID: String, token: String, topic: String, pushType: String, priority: Int,
        expiration: Int64?, collapseID: String?, payload: String, receivedAt: Date, claimedUntil: Date = .distantPast
    ) {
        self.id = id
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.receivedAt = receivedAt
        self.claimedUntil = claimedUntil
    }

    /// A claim's end as the stores keep it, in milliseconds: the distant past as 0, before every claim.
    public static func storedClaim(_ date: Date) -> Int64 {
        date == .distantPast ? 0 : date.storedMilliseconds
    }

    /// A claim's end from what the stores keep.
    public static func claim(stored milliseconds: Int64) -> Date {
        milliseconds == 0 ? .distantPast : Date(storedMilliseconds: milliseconds)
    }
}
