import Foundation

/// The Focus that is on at some instant, and why.
public struct ActiveFocus: Sendable, Codable, Hashable {
    /// How the Focus came to be on.
    public enum Activation: String, Sendable, Codable, Hashable {
        /// The person turned it on.
        case manual
        /// One of its schedules.
        case scheduled
    }

    public var mode: FocusMode
    public var activation: Activation
    /// When it turned on (the manual switch, or the start of the scheduled window).
    public var since: Date
    /// When it turns off by itself; nil when it stays on until turned off.
    public var until: Date?

    public init(mode: FocusMode, activation: Activation, since: Date, until: Date?) {
        self.mode = mode
        self.activation = activation
        self.since = since
        self.until = until
    }
}
