import Foundation

/// One Scheduled Summary: the held notifications released together, ranked.
///
/// Within an app: relevance score (higher first, clamped to 0…1), then notifications with a
/// media attachment, then the most recent, then the id (so the order is total). Apps are
/// ordered by their top notification with the same comparison, then by bundle id. The top
/// notification of each of the first `featuredLimit` apps is featured.
public struct SummaryDigest: Sendable, Codable, Hashable {
    /// How many notifications are featured at most: one per app, for the first four apps.
    public static let featuredLimit = 4

    /// One app's part of the digest.
    public struct AppSection: Sendable, Codable, Hashable {
        public var bundleID: String
        /// Best first.
        public var notifications: [NotificationFacts]
        /// Whether `notifications[0]` is featured.
        public var isFeatured: Bool
    }

    /// When it is delivered.
    public var deliveredAt: Date
    /// Best app first.
    public var apps: [AppSection]

    /// The featured notifications, best first.
    public var featured: [NotificationFacts] {
        apps.lazy.filter(\.isFeatured).compactMap(\.notifications.first)
    }

    /// Every notification in it.
    public var count: Int { apps.reduce(0) { $0 + $1.notifications.count } }

    public var isEmpty: Bool { apps.isEmpty }

    /// Ranks `held` into a digest delivered at `now`.
    public static func make(from held: [NotificationFacts], now: Date) -> SummaryDigest {
        // Sections and their ranking hold indices into `held`: a sort moves integers, not facts
        // (a `NotificationFacts` is a few hundred bytes).
        var sectionOfApp: [String: Int] = [:]
        sectionOfApp.reserveCapacity(16)
        var sections: [[Int]] = []
        for (index, notification) in held.enumerated() {
            if let section = sectionOfApp[notification.bundleID] {
                sections[section].append(index)
            } else {
                sectionOfApp[notification.bundleID] = sections.count
                sections.append([index])
            }
        }
        for index in sections.indices {
            sections[index].sort { ranksBefore(held[$0], held[$1]) }
        }
        sections.sort { ranksBefore(held[$0[0]], held[$1[0]]) }
        let apps = sections.enumerated().map { offset, indices in
            AppSection(
                bundleID: held[indices[0]].bundleID, notifications: indices.map { held[$0] },
                isFeatured: offset < featuredLimit)
        }
        return SummaryDigest(deliveredAt: now, apps: apps)
    }

    /// Whether `a` ranks before `b`: relevance, then media, then recency, then app and id.
    public static func ranksBefore(_ a: NotificationFacts, _ b: NotificationFacts) -> Bool {
        let relevanceA = rankedRelevance(a), relevanceB = rankedRelevance(b)
        if relevanceA != relevanceB { return relevanceA > relevanceB }
        if a.hasMediaAttachment != b.hasMediaAttachment { return a.hasMediaAttachment }
        if a.receivedAt != b.receivedAt { return a.receivedAt > b.receivedAt }
        if a.bundleID != b.bundleID { return a.bundleID < b.bundleID }
        return a.id < b.id
    }

    /// The relevance score clamped to 0…1 (NaN counts as 0, the default).
    @inline(__always)
    static func rankedRelevance(_ notification: NotificationFacts) -> Double {
        let score = notification.relevanceScore
        return score.isNaN ? 0 : min(max(score, 0), 1)
    }
}

/// What the next summary would hold, and when it comes.
public struct SummaryPreview: Sendable, Codable, Hashable {
    /// The next summary time; nil when the summary is off.
    public var at: Date?
    /// The digest as it would be made now.
    public var digest: SummaryDigest

    public init(at: Date?, digest: SummaryDigest) {
        self.at = at
        self.digest = digest
    }
}
