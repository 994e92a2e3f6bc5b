// herald-policy-bench: decisions per second of the pure delivery policy on one thread, and the
// time to release the Scheduled Summary of 10,000 users holding 100 notifications each.
// Run with `swift run -c release herald-policy-bench [seconds]`.
import Foundation
import HeraldCore
import HeraldPolicy

/// A deterministic generator (SplitMix64), so every run measures the same inputs.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
    App(bundleID: id, teamID: "TEAM123456", name: "App \(index)", entitlements: Entitlements(
        timeSensitive: index % 2 == 0, criticalAlerts: index % 5 == 0, communication: index % 3 == 0
    ), createdAt: epoch)
}

func makeInputs(count: Int, rng: inout SplitMix) -> [Input] {
    let focusModes = [
        FocusMode(id: "work", name: "Work", kind: .work, allowedApps: Set(bundleIDs.prefix(4)), allowedPeople: Set(people.prefix(3))),
        FocusMode(id: "sleep", name: "Sleep", kind: .sleep, allowsTimeSensitive: false),
        FocusMode(id: "personal", name: "Personal", kind: .personal, filterMode: .silenceFrom, silencedApps: Set(bundleIDs.suffix(5))),
    ]
    let summary = try! SummarySchedule(times: [TimeOfDay(hour: 8), TimeOfDay(hour: 18)], apps: Set(bundleIDs.prefix(6)))
    let levels: [InterruptionLevel] = [.passive, .active, .active, .active, .timeSensitive, .critical]
    let statuses: [AuthorizationStatus] = Array(repeating: .authorized, count: 8) + [.provisional, .denied, .notDetermined]
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
        let focus = Int.random(in: 0..<2, using: &rng) == 0 ? nil : focusModes.randomElement(using: &rng).map {
            ActiveFocus(mode: $0, activation: .manual, since: epoch, until: nil)
        }
        let device = DeviceState(
            isLocked: Bool.random(using: &rng), isRingerSilent: Int.random(in: 0..<4, using: &rng) == 0,
            audioRoute: routes.randomElement(using: &rng)!,
            foregroundApp: Int.random(in: 0..<8, using: &rng) == 0 ? ForegroundApp(bundleID: bundleIDs[appIndex], willPresent: [.banner, .list]) : nil,
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

let runSeconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3
var rng = SplitMix(state: 42)
let inputs = makeInputs(count: 8192, rng: &rng)
let clock = ContinuousClock()

// Decisions per second.
var dispositions: [Disposition: Int] = [:]
for input in inputs {  // warm-up, and the mix of outcomes
    let decision = decide(input.notification, app: input.app, settings: input.settings, preferences: input.preferences,
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
            checksum &+= decision.reasons.count &+ (decision.sound.plays ? 1 : 0) &+ (decision.disposition == .alerted ? 2 : 0)
        }
        count += inputs.count
        elapsed = seconds(clock.now - start)
    }
    return (count, elapsed, checksum)
}

let (decisions, elapsed, checksum) = measureDecisions(inputs, for: runSeconds)
let mix = Disposition.allCases.map { "\($0.rawValue) \(dispositions[$0, default: 0] * 100 / inputs.count)%" }.joined(separator: ", ")
print("decide: \(decisions) decisions in \(String(format: "%.2f", elapsed)) s on one thread = \(Int(Double(decisions) / elapsed)) decisions/s")
print("  inputs: \(inputs.count) varied scenarios (\(mix)); checksum \(checksum & 0xFFFF)")

// Scheduled Summary release: 10,000 users × 100 held notifications.
let users = 10_000, perUser = 100
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
print("summary: released \(released) notifications for \(users) users × \(perUser) held as \(users) ranked digests in \(String(format: "%.3f", releaseSeconds)) s")

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
print("  SummaryDigest.make alone: \(users) digests of \(perUser) (\(digested) items) in \(String(format: "%.3f", digestSeconds)) s")
