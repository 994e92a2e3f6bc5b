import Foundation
import HeraldCore
import Testing

@testable import HeraldStore

/// `ExpiryRule` is the one expiry rule; the store's SQL filter repeats it for speed and must agree.
@Suite("Expiry: one rule, and the store's SQL agrees with it")
struct ExpiryRuleTests {
    @Test("the rule, case by case")
    func theRule() {
        let now = Date(timeIntervalSince1970: 100)
        #expect(ExpiryRule.isDeliverable(expiration: nil, alreadyDelivered: false, toConnectedSession: false, now: now))
        #expect(ExpiryRule.isDeliverable(expiration: 100, alreadyDelivered: false, toConnectedSession: false, now: now))
        #expect(!ExpiryRule.isDeliverable(expiration: 99, alreadyDelivered: false, toConnectedSession: true, now: now))
        #expect(
            !ExpiryRule.isDeliverable(
                expiration: 100, alreadyDelivered: false, toConnectedSession: false, now: now.addingTimeInterval(0.5)))
        #expect(ExpiryRule.isDeliverable(expiration: 99, alreadyDelivered: true, toConnectedSession: false, now: now))
        #expect(!ExpiryRule.isDeliverable(expiration: 0, alreadyDelivered: false, toConnectedSession: false, now: now))
        #expect(ExpiryRule.isDeliverable(expiration: 0, alreadyDelivered: false, toConnectedSession: true, now: now))
        #expect(ExpiryRule.isDeliverable(expiration: 0, alreadyDelivered: true, toConnectedSession: false, now: now))
    }

    @Test(
        "the store lists exactly the rows StoredNotification.isDeliverable keeps, at every boundary",
        arguments: StoreEngine.all)
    func theSQLFilterAgreesWithTheRule(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        var rows: [StoredNotification] = []
        for (index, expiration) in ([nil, 0, 99, 100, 101] as [Int64?]).enumerated() {
            for delivered in [false, true] {
                rows.append(
                    Fixture.notification(
                        "n\(index)-\(delivered)", expiration: expiration, deliveredAt: delivered ? Fixture.time(1) : nil
                    ))
            }
        }
        let stored = try await store.insert(rows)
        for seconds in [98.0, 99.5, 100, 100.001, 100.5, 101, 102] {
            let now = Date(timeIntervalSince1970: seconds)
            let listed = try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 100, now: now).map(
                \.id)
            let expected = stored.filter { $0.isDeliverable(now: now) }.map(\.id)
            #expect(listed == expected, "at \(seconds)")
            let changes = try await store.changes(deviceID: Fixture.deviceID, after: 0, limit: 100, now: now).map(\.id)
            #expect(changes == expected, "changes at \(seconds)")
        }
    }
}
