import Foundation
import HeraldDelivery
import HeraldServer
import Testing

@Suite("ManualClock: time moves only when a test moves it")
struct ManualClockTests {
    @Test("a sleeper wakes when the clock reaches its deadline, not before")
    func wakesAtDeadline() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 0))
        let sleeper = Task {
            try await clock.sleep(until: Date(timeIntervalSince1970: 10))
            return clock.now
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: 5)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 5)
        #expect(try await sleeper.value == Date(timeIntervalSince1970: 10))
        #expect(clock.sleeperCount == 0)
    }

    @Test("a deadline already passed returns at once; a cancelled sleeper throws and is forgotten")
    func pastDeadlineAndCancellation() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 100))
        try await clock.sleep(until: Date(timeIntervalSince1970: 50))
        let sleeper = Task { try await clock.sleep(until: Date(timeIntervalSince1970: 200)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }
}
