import Foundation

/// A failure on the client side (unreadable key, bad URL, …), with a message for the user.
public struct HeraldClientError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in a sentence.
    public let description: String

    /// An error with a user-facing message.
    public init(_ description: String) {
        self.description = description
    }
}
