import Foundation
import HeraldDelivery
import Testing

@Suite("The policy services' event fan-out")
struct PolicyActivityTests {
    @Test("finish ends every subscription, and one made after it ends at once instead of waiting forever")
    func aSubscriptionAfterFinishEnds() async {
        let fanOut = PolicyActivityFanOut()
        let before = fanOut.subscribe()
        fanOut.finish()
        var count = 0
        for await _ in before { count += 1 }
        for await _ in fanOut.subscribe() { count += 1 }
        #expect(count == 0)
    }
}
