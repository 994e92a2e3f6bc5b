import Foundation
import HeraldCore
import HeraldPolicy
import PropertyBased

/// Reads small numbers off a bit pattern; all-zero bits read as the plainest choice, so
/// shrinking a failing pattern (which clears bits) leads to the plainest failing scenario.
struct BitReader {
    var bits: UInt64

    mutating func flag() -> Bool { take(1) == 1 }

    mutating func take(_ width: Int) -> Int {
        let value = Int(bits & ((1 << UInt64(width)) - 1))
        bits >>= UInt64(width)
        return value
    }

    mutating func pick<T>(_ choices: [T], width: Int) -> T {
        choices[take(width) % choices.count]
    }
}

extension Scenario {
    /// A scenario covering every input the policy reads, from 64 bits.
    init(bits: UInt64) {
        var r = BitReader(bits: bits)
        self.init()
        let levels: [InterruptionLevel] = [.active, .passive, .timeSensitive, .critical]
        notification.level = r.pick(levels, width: 2)
        settings.authorizationStatus = r.pick(
            [.authorized, .provisional, .denied, .notDetermined, .ephemeral, .authorized, .authorized, .authorized],
            width: 3)
        app.entitlements = Entitlements(timeSensitive: r.flag(), criticalAlerts: r.flag(), communication: r.flag())
        settings.timeSensitive = r.flag() ? .disabled : .enabled
        settings.criticalAlerts = r.flag() ? .enabled : .notSupported
        settings.alertStyle = r.pick([.banner, .alert, .none, .banner], width: 2)
        settings.sound = r.flag() ? .disabled : .enabled
        settings.badge = r.flag() ? .disabled : .enabled
        settings.showPreviews = r.pick([nil, .always, .whenAuthenticated, .never], width: 2)
        settings.scheduledDelivery = r.flag() ? .enabled : .disabled
        settings.directMessagesInSummary = r.flag() ? .enabled : .disabled
        settings.announcement = r.pick([.notSupported, .enabled, .disabled, .notSupported], width: 2)
        settings.carPlay = r.flag() ? .disabled : .enabled
        notification.isCommunication = r.flag()
        notification.sender = r.pick(
            [nil, Fixture.alice, Fixture.bob, PersonHandle("dave", kind: .appSpecific)], width: 2)
        notification.requestsSound = !r.flag()
        notification.setsBadge = r.flag()
        notification.criticalVolume = r.pick([nil, 0.25, 1, 0], width: 2)
        notification.expiry = r.pick(
            [nil, .immediately, .at(Fixture.now.addingTimeInterval(-1)), .at(Fixture.now)], width: 2)
        if r.flag() {
            let people: Set<PersonHandle> = r.flag() ? [Fixture.alice] : []
            let apps: Set<String> = r.flag() ? [Fixture.demoID] : []
            focus = Fixture.on(
                Fixture.work(
                    filterMode: r.flag() ? .silenceFrom : .allowFrom, apps: apps, people: people,
                    allowsTimeSensitive: r.flag()))
        }
        if r.flag() {
            summary = Fixture.summary(apps: r.flag() ? [Fixture.demoID] : [])
        }
        device.isLocked = r.flag()
        device.isRingerSilent = r.flag()
        device.audioRoute = r.pick([.none, .headphones, .car, .speaker], width: 2)
        device.hasConnectedSession = !r.flag()
        if r.flag() {
            let options: PresentationOptions? = r.flag() ? nil : PresentationOptions(rawValue: UInt(r.take(5)))
            device.foregroundApp = ForegroundApp(bundleID: Fixture.demoID, willPresent: options)
        }
        preferences.announce = AnnounceSettings(isOn: r.flag(), apps: r.flag() ? [Fixture.demoID] : [])
        preferences.showPreviews = r.pick([.whenAuthenticated, .always, .never, .whenAuthenticated], width: 2)
    }

    /// Scenarios over every input, shrinking towards the plainest.
    static let generator = Gen<UInt64>.bitSet.map(Scenario.init(bits:))

    /// Whether the person let the app send critical alerts and the app may.
    var isEntitledUserAllowedCritical: Bool {
        notification.level == .critical && app.entitlements.criticalAlerts && settings.criticalAlerts == .enabled
            && (settings.authorizationStatus == .authorized || settings.authorizationStatus == .ephemeral)
    }

    /// Whether the notification can still be delivered now (not expired).
    var isDeliverable: Bool {
        switch notification.expiry {
        case nil: true
        case .immediately: device.hasConnectedSession
        case .at(let date): now <= date
        }
    }
}
