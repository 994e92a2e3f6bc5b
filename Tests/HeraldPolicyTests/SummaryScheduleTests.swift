import Foundation
import HeraldPolicy
import Testing

/// `SummarySchedule.nextDelivery(after:in:)` and the schedule's limits.
@Suite("Scheduled Summary times")
struct SummaryScheduleTests {
    let newYork = TimeZone(identifier: "America/New_York")!

    func newYork(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = newYork
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    @Test("The next delivery is the next time today, else the first time tomorrow")
    func nextDelivery() throws {
        let schedule = try SummarySchedule(times: [TimeOfDay(hour: 18), TimeOfDay(hour: 8)])
        #expect(schedule.times == [TimeOfDay(hour: 8), TimeOfDay(hour: 18)])
        #expect(schedule.nextDelivery(after: newYork(2027, 1, 15, 7), in: newYork) == newYork(2027, 1, 15, 8))
        #expect(schedule.nextDelivery(after: newYork(2027, 1, 15, 8), in: newYork) == newYork(2027, 1, 15, 18))
        #expect(schedule.nextDelivery(after: newYork(2027, 1, 15, 19), in: newYork) == newYork(2027, 1, 16, 8))
        #expect(schedule.lastDelivery(atOrBefore: newYork(2027, 1, 15, 7), in: newYork) == newYork(2027, 1, 14, 18))
        #expect(SummarySchedule.off.nextDelivery(after: newYork(2027, 1, 15, 7), in: newYork) == nil)
    }

    @Test("A time skipped by the spring-forward gap is delivered an hour later, once")
    func springForward() throws {
        // 2027-03-14: 02:00 EST jumps to 03:00 EDT.
        let schedule = try SummarySchedule(times: [TimeOfDay(hour: 2, minute: 30), TimeOfDay(hour: 9)])
        let gap = schedule.nextDelivery(after: newYork(2027, 3, 14, 0), in: newYork)
        #expect(gap == newYork(2027, 3, 14, 3, 30))
        #expect(gap.map { schedule.nextDelivery(after: $0, in: newYork) } == newYork(2027, 3, 14, 9))
    }

    @Test("A time repeated by the fall-back overlap is delivered only at its first occurrence")
    func fallBack() throws {
        // 2027-11-07: 02:00 EDT falls back to 01:00 EST; 01:30 happens twice.
        let schedule = try SummarySchedule(times: [TimeOfDay(hour: 1, minute: 30)])
        let first = try #require(schedule.nextDelivery(after: newYork(2027, 11, 7, 0), in: newYork))
        #expect(first == Date(timeIntervalSince1970: 1_825_565_400), "05:30Z is 01:30 EDT")
        let next = try #require(schedule.nextDelivery(after: first, in: newYork))
        #expect(next.timeIntervalSince(first) == 25 * 3600, "the next is tomorrow's, not the repeat an hour later")
    }

    @Test("A summary has at most twelve times a day")
    func atMostTwelve() throws {
        let twelve = (0..<12).map { TimeOfDay(hour: $0 * 2) }
        #expect(try SummarySchedule(times: twelve + twelve).times.count == 12)
        #expect(throws: SummaryScheduleError.self) {
            try SummarySchedule(times: (0..<13).map { TimeOfDay(hour: $0) })
        }
        let data = Data(
            #"{"times":[\#((0..<13).map { #"{"hour":\#($0),"minute":0}"# }.joined(separator: ","))],"apps":[]}"#.utf8)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(SummarySchedule.self, from: data) }
    }
}
