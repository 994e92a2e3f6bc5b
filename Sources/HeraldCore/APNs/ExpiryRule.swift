import Foundation

/// The one expiry rule of `apns-expiration`, for every place that asks: the push path (drop an
/// expired push after its 200, as APNs does), the delivery decision (`expired`,
/// `expired-no-session`), the stored list (`StoredNotification.isDeliverable`) and the live streams.
/// The store's SQL filter repeats it for speed; a test holds the two equal.
///
/// A notification is deliverable at `now` when a session already received it, when it has no
/// expiration, when it expires at `now` or later (UNIX seconds), or — `apns-expiration: 0`, "now or
/// never" — when the session it would reach is connected at that moment.
public enum ExpiryRule {
    public static func isDeliverable(expiration: Int64?, alreadyDelivered: Bool, toConnectedSession: Bool, now: Date)
        -> Bool
    {
        if alreadyDelivered { return true }
        guard let expiration else { return true }
        if expiration == 0 { return toConnectedSession }
        return Double(expiration) >= now.timeIntervalSince1970
    }
}

extension PushExpiration {
    /// The `apns-expiration` value: nil without one, 0 for "now or never", else UNIX seconds.
    public var seconds: Int64? {
        switch self {
        case .none: nil
        case .immediately: 0
        case .at(let seconds): seconds
        }
    }
}
