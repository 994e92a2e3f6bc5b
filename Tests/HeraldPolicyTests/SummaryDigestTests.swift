import Foundation
import HeraldPolicy
import Testing

/// `SummaryDigest.make`: ranking within apps, app order, featured notifications.
@Suite("Scheduled Summary digest")
struct SummaryDigestTests {
    func note(_ id: String, app: String, relevance: Double = 0, media: Bool = false, minutesAgo: Double = 0)
        -> NotificationFacts
    {
        NotificationFacts(
            id: id, bundleID: app, relevanceScore: relevance, hasMediaAttachment: media,
            receivedAt: Fixture.now.addingTimeInterval(-minutesAgo * 60)
        )
    }

    @Test("Within an app: relevance, then media attachments, then the most recent")
    func orderWithinApp() {
        let digest = SummaryDigest.make(
            from: [
                note("old-plain", app: "news", relevance: 0.5, minutesAgo: 30),
                note("new-plain", app: "news", relevance: 0.5, minutesAgo: 5),
                note("media", app: "news", relevance: 0.5, media: true, minutesAgo: 60),
                note("top", app: "news", relevance: 0.9, minutesAgo: 90),
                note("low", app: "news", relevance: 0.1, media: true),
            ], now: Fixture.now)
        #expect(digest.apps.map(\.bundleID) == ["news"])
        #expect(digest.apps[0].notifications.map(\.id) == ["top", "media", "new-plain", "old-plain", "low"])
        #expect(digest.deliveredAt == Fixture.now && digest.count == 5)
    }

    @Test("Apps are ordered by their top notification; the top of the first four apps is featured")
    func appsAndFeatured() {
        let held = (0..<6).flatMap { app in
            [
                note("a\(app)-1", app: "app\(app)", relevance: Double(app) / 10),
                note("a\(app)-2", app: "app\(app)", relevance: 0),
            ]
        }
        let digest = SummaryDigest.make(from: held.shuffled(), now: Fixture.now)
        #expect(digest.apps.map(\.bundleID) == ["app5", "app4", "app3", "app2", "app1", "app0"])
        #expect(digest.featured.map(\.id) == ["a5-1", "a4-1", "a3-1", "a2-1"])
        #expect(SummaryDigest.featuredLimit == 4)
    }

    @Test("Out-of-range relevance scores are clamped; equal notifications order by id")
    func clampingAndTies() {
        let digest = SummaryDigest.make(
            from: [
                note("b", app: "x", relevance: 7), note("a", app: "x", relevance: 1),
                note("c", app: "x", relevance: .nan),
                note("d", app: "x", relevance: -3),
            ], now: Fixture.now)
        #expect(digest.apps[0].notifications.map(\.id) == ["a", "b", "c", "d"])
    }

    @Test("An empty digest has no apps")
    func empty() {
        #expect(SummaryDigest.make(from: [], now: Fixture.now).isEmpty)
    }
}
