// herald-policy-bench: decisions per second of the pure delivery policy on one thread, and the
// time to release the Scheduled Summary of 10,000 users holding 100 notifications each: in memory
// (the policy's state machine) and durably (the server's summary service on a SQLite store).
// Run with `swift run -c release herald-policy-bench [seconds] [--markdown]` (scripts/bench-policy).
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy

/// One decision's inputs. A final class with `let` fields so the harness passes them to
/// `decide` borrowed, as a caller holding the state does, rather than copying seven structs
/// (and retaining their strings and sets) per call.
final class Input {
    let notification: NotificationFacts
    let app: App
    let settings: AppNotificationSettings
    let preferences: UserPreferences
    let focus: ActiveFocus?
    let summary: SummarySchedule
    let device: DeviceState

    init(
        notification: NotificationFacts, app: App, settings: AppNotificationSettings, preferences: UserPreferences,
        focus: ActiveFocus?, summary: SummarySchedule, device: DeviceState
    ) {
        self.notification = notification
        self.app = app
        self.settings = settings
        self.preferences = preferences
        self.focus = focus
        self.summary = summary
        self.device = device
    }
}

let epoch = Date(timeIntervalSince1970: 1_800_000_000)
let bundleIDs = (0..<20).map { "com.example.app\($0)" }
let people = (0..<8).map { PersonHandle("person\($0)@example.com", kind: .emailAddress) }
let apps = bundleIDs.enumerated().map { index, id in
    App(
        bundleID: id, teamID: "TEAM123456", name: "App \(index)",
        entitlements: Entitlements(
            timeSensitive: index % 2 == 0, criticalAlerts: index % 5 == 0, communication: index % 3 == 0
        ), createdAt: epoch)
}

func makeInputs(count: Int, rng: inout SplitMix64) -> [Input] {
    let focusModes = [
        FocusMode(
            id: "work", name: "Work", kind: .work, allowedApps: Set(bundleIDs.prefix(4)),
            allowedPeople: Set(people.prefix(3))),
        FocusMode(id: "sleep", name: "Sleep", kind: .sleep, allowsTimeSensitive: false),
        FocusMode(
            id: "personal", name: "Personal", kind: .personal, filterMode: .silenceFrom,
            silencedApps: Set(bundleIDs.suffix(5))),
    ]
    let summary = try! SummarySchedule(
        times: [TimeOfDay(hour: 8), TimeOfDay(hour: 18)], apps: Set(bundleIDs.prefix(6)))
    let levels: [InterruptionLevel] = [.passive, .active, .active, .active, .timeSensitive, .critical]
    let statuses: [AuthorizationStatus] =
        Array(repeating: .authorized, count: 8) + [.provisional, .denied, .notDetermined]
    let routes: [AudioRoute] = [.none, .speaker, .headphones, .car]
    return (0..<count).map { index in
        let appIndex = Int.random(in: 0..<apps.count, using: &rng)
        var notification = NotificationFacts(
            id: "n\(index)", bundleID: bundleIDs[appIndex], level: levels.randomElement(using: &rng)!,
            relevanceScore: Double.random(in: 0...1, using: &rng), threadID: "thread\(index % 7)",
            isCommunication: Bool.random(using: &rng), sender: people.randomElement(using: &rng),
            expiry: Int.random(in: 0..<20, using: &rng) == 0 ? .immediately : nil, receivedAt: epoch,
            setsBadge: Bool.random(using: &rng), threadCount: Int.random(in: 1...5, using: &rng)
        )
        if Int.random(in: 0..<4, using: &rng) == 0 { notification.hiddenPreviewsPlaceholder = "%u new messages" }
        var settings = AppNotificationSettings.authorized
        settings.authorizationStatus = statuses.randomElement(using: &rng)!
        settings.criticalAlerts = Bool.random(using: &rng) ? .enabled : .disabled
        settings.showPreviews = [nil, .always, .never].randomElement(using: &rng)!
        settings.alertStyle = [.banner, .alert, .none].randomElement(using: &rng)!
        var preferences = UserPreferences(locale: ["en", "ar", "de"].randomElement(using: &rng)!)
        preferences.announce = AnnounceSettings(isOn: Bool.random(using: &rng), apps: Set(bundleIDs.prefix(2)))
        let focus =
            Int.random(in: 0..<2, using: &rng) == 0
            ? nil
            : focusModes.randomElement(using: &rng).map {
                ActiveFocus(mode: $0, activation: .manual, since: epoch, until: nil)
            }
        let device = DeviceState(
            isLocked: Bool.random(using: &rng), isRingerSilent: Int.random(in: 0..<4, using: &rng) == 0,
            audioRoute: routes.randomElement(using: &rng)!,
            foregroundApp: Int.random(in: 0..<8, using: &rng) == 0
                ? ForegroundApp(bundleID: bundleIDs[appIndex], willPresent: [.banner, .list]) : nil,
            hasConnectedSession: Bool.random(using: &rng)
        )
        return Input(
            notification: notification, app: apps[appIndex], settings: settings, preferences: preferences,
            focus: focus, summary: Bool.random(using: &rng) ? summary : .off, device: device
        )
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let runSeconds = CommandLine.arguments.dropFirst().lazy.compactMap(Double.init).first ?? 3
let markdown = CommandLine.arguments.contains("--markdown")

/// A line of the plain report (on standard error with `--markdown`, which prints a section instead).
func report(_ line: String) {
    if markdown {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    } else {
        print(line)
    }
}
// A deterministic generator, so every run measures the same inputs.
var rng = SplitMix64(seed: 42)
let inputs = makeInputs(count: 8192, rng: &rng)
let clock = ContinuousClock()

// Decisions per second.
var dispositions: [Disposition: Int] = [:]
for input in inputs {  // warm-up, and the mix of outcomes
    let decision = decide(
        input.notification, app: input.app, settings: input.settings, preferences: input.preferences,
        focus: input.focus, summary: input.summary, device: input.device, now: epoch)
    dispositions[decision.disposition, default: 0] += 1
}

/// Runs `decide` over `inputs` until `duration` seconds have passed; returns (decisions, seconds, checksum).
func measureDecisions(_ inputs: [Input], for duration: Double) -> (count: Int, seconds: Double, checksum: Int) {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0, checksum = 0, elapsed = 0.0
    while elapsed < duration {
        for input in inputs {
            let decision = decide(
                input.notification, app: input.app, settings: input.settings, preferences: input.preferences,
                focus: input.focus, summary: input.summary, device: input.device, now: epoch
            )
            checksum &+=
                decision.reasons.count &+ (decision.sound.plays ? 1 : 0) &+ (decision.disposition == .alerted ? 2 : 0)
        }
        count += inputs.count
        elapsed = seconds(clock.now - start)
    }
    return (count, elapsed, checksum)
}

let (decisions, elapsed, checksum) = measureDecisions(inputs, for: runSeconds)
let mix = Disposition.allCases.map { "\($0.rawValue) \(dispositions[$0, default: 0] * 100 / inputs.count)%" }.joined(
    separator: ", ")
report(
    "decide: \(decisions) decisions in \(String(format: "%.2f", elapsed)) s on one thread = \(Int(Double(decisions) / elapsed)) decisions/s"
)
report("  inputs: \(inputs.count) varied scenarios (\(mix)); checksum \(checksum & 0xFFFF)")

// Scheduled Summary release: 10,000 users × 100 held notifications.
let users = ProcessInfo.processInfo.environment["HERALD_POLICY_BENCH_USERS"].flatMap(Int.init) ?? 10_000, perUser = 100
var machines: [HeldNotifications] = []
machines.reserveCapacity(users)
let held = Decision(disposition: .heldForSummary, effectiveLevel: .active)
for user in 0..<users {
    var machine = HeldNotifications()
    for index in 0..<perUser {
        let facts = NotificationFacts(
            id: "u\(user)n\(index)", bundleID: bundleIDs[Int.random(in: 0..<8, using: &rng)],
            relevanceScore: Double(Int.random(in: 0...10, using: &rng)) / 10, threadID: "t\(index % 5)",
            hasMediaAttachment: Int.random(in: 0..<5, using: &rng) == 0,
            receivedAt: epoch.addingTimeInterval(Double(Int.random(in: 0..<36_000, using: &rng)))
        )
        _ = machine.event(.decided(facts, held, at: facts.receivedAt))
    }
    machines.append(machine)
}
let summaryAt = epoch.addingTimeInterval(36_000)
var released = 0
let releaseStart = clock.now
for index in machines.indices {
    for case .deliverDigest(let digest) in machines[index].event(.summaryTimeArrived(at: summaryAt)) {
        released += digest.count
    }
}
let releaseSeconds = seconds(clock.now - releaseStart)
report(
    "summary: released \(released) notifications for \(users) users × \(perUser) held as \(users) ranked digests in \(String(format: "%.3f", releaseSeconds)) s"
)

// SummaryDigest.make alone: one user's 100 held notifications ranked 10,000 times.
let sample = (0..<perUser).map { index in
    NotificationFacts(
        id: "s\(index)", bundleID: bundleIDs[Int.random(in: 0..<8, using: &rng)],
        relevanceScore: Double.random(in: 0...1, using: &rng), hasMediaAttachment: index % 5 == 0,
        receivedAt: epoch.addingTimeInterval(Double(index))
    )
}
var digested = 0
let digestStart = clock.now
for _ in 0..<users { digested += SummaryDigest.make(from: sample, now: summaryAt).count }
let digestSeconds = seconds(clock.now - digestStart)
report(
    "  SummaryDigest.make alone: \(users) digests of \(perUser) (\(digested) items) in \(String(format: "%.3f", digestSeconds)) s"
)

// The durable release, through the server's code.
let durable = try await durableSummaryBenchmark(users: users, perUser: perUser, seed: 7)
report(
    "durable summary: \(durable.digests) digests (\(durable.released) notifications) of \(users) users × \(perUser) held committed and published in \(String(format: "%.3f", durable.releaseSeconds)) s"
)
report(
    "  seeded in \(String(format: "%.1f", durable.seedSeconds)) s (\(String(format: "%.0f", durable.databaseMegabytes)) MB); the same summaries again: \(durable.deliveredAgain) delivered in \(String(format: "%.3f", durable.againSeconds)) s; one session's summary event read in \(String(format: "%.2f", durable.eventReadMilliseconds)) ms"
)

if markdown {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print(
        """
        ## Delivery policy

        `scripts/bench-policy` (`swift run -c release herald-policy-bench \(Int(runSeconds)) --markdown`), \(cores) cores.

        | Measure | Result | Target |
        |---|---|---|
        | Decisions per second, pure `decide()` on one core (\(inputs.count) varied inputs) | \(Int(Double(decisions) / elapsed).formatted()) /s | over 1,000,000 /s |
        | Scheduled Summary release, \(users.formatted()) users × \(perUser) held, durable: from the summary time until every digest is committed (SQLite, synchronous = FULL) and published | \(String(format: "%.2f", durable.releaseSeconds)) s | under 2 s |
        | The same release in memory (`HeldNotifications` + `SummaryDigest`, no store) | \(String(format: "%.2f", releaseSeconds)) s | |
        | The same summaries delivered again (exactly once: nothing changes) | \(String(format: "%.2f", durable.againSeconds)) s, \(durable.deliveredAgain) delivered | 0 delivered |
        | One session reading its summary event (\(perUser) notifications) from the store | \(String(format: "%.1f", durable.eventReadMilliseconds)) ms | |

        The durable release runs the server's `SummaryService` (`PolicyCoordinator.deliverSummaries`) on a
        temporary `SQLiteStore` seeded with \(durable.released.formatted()) held notifications (\(String(format: "%.0f", durable.databaseMegabytes)) MB,
        seeded and its log written back to the database file in \(String(format: "%.0f", durable.seedSeconds)) s, not counted), one device and one
        live session per user. A release writes
        one `summary_releases` row per device in the transaction that records the user's slot; the
        notifications are not rewritten (reads derive their released state), so its cost follows users
        and devices, not notifications. The bench checks that the list shows every notification released.
        """)
}
