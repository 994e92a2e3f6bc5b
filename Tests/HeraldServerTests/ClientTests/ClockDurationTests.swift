import HeraldClient
import Testing

@Suite("herald clock advance: durations as people type them")
struct ClockDurationTests {
    @Test(
        "seconds, amounts with units largest first, and ISO 8601 days and time",
        arguments: [
            ("90", 90.0), ("0", 0), ("1.5", 1.5), ("45s", 45), ("10m", 600), ("1h", 3600), ("1h30m", 5400),
            ("2d", 172_800), ("1d12h", 129_600), ("1h0m5s", 3605), ("500ms", 0.5), ("1m500ms", 60.5), ("1.5h", 5400),
            (" 2H ", 7200), ("PT1H30M", 5400), ("P1DT2H", 93_600), ("P2W", 1_209_600), ("PT0.5S", 0.5), ("p1d", 86_400),
        ])
    func parses(_ text: String, _ seconds: Double) {
        #expect(ClockDuration.seconds(text) == seconds, "\(text)")
    }

    @Test(
        "anything else is refused: negative, units out of order or repeated, months, empty",
        arguments: [
            "", "-5", "-1h", "soon", "1m1h", "1h1h", "1e3", "inf", "nan", "h", "1x", "1h 30m", "P1M", "P1Y", "PT",
            "P1DT", "PT1D", "P1H",
        ])
    func refuses(_ text: String) {
        #expect(ClockDuration.seconds(text) == nil, "\(text)")
    }
}
