import Foundation

/// A per-key token bucket: `rate` requests per second with a burst of `rate`.
public struct RateLimiter: Sendable {
    /// Requests per second per key; 0 turns the limit off.
    public let rate: Double
    private var buckets: [String: (tokens: Double, updated: Date)] = [:]

    public init(perSecond rate: Double) {
        self.rate = rate
    }

    /// Takes one request for `key` at `now`; false when the key is over its rate.
    public mutating func allow(_ key: String, now: Date) -> Bool {
        guard rate > 0 else { return true }
        var bucket = buckets[key] ?? (tokens: rate, updated: now)
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        bucket.tokens = min(rate, bucket.tokens + elapsed * rate)
        bucket.updated = now
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 }
        buckets[key] = bucket
        if buckets.count > 100_000 { prune(now: now) }
        return allowed
    }

    /// Forgets buckets that have refilled completely (they behave like new ones).
    private mutating func prune(now: Date) {
        buckets = buckets.filter { now.timeIntervalSince($0.value.updated) * rate + $0.value.tokens < rate }
    }
}
