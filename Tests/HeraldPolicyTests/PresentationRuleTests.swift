import Foundation
import HeraldCore
import HeraldPolicy
import Testing

/// The docs/delivery-policy.md rows for the ringer, Announce, the foreground app, previews and expiry.
@Suite("Delivery policy: presentation")
struct PresentationRuleTests {
    @Test("Silent ringer: no sound, except critical")
    func silentRinger() {
        var scenario = Scenario.chat
        scenario.device.isRingerSilent = true
        let muted = scenario.decide()
        #expect(muted.disposition == .alerted && muted.banner == .banner)
        #expect(!muted.sound.plays && Array(muted.reasons) == [.ringerSilent])

        scenario.notification.level = .critical
        #expect(scenario.decide().sound.plays)
    }

    @Test("Announce: on headphones or in the car with Announce on; communication and time-sensitive by default")
    func announce() {
        var scenario = Scenario.chat
        scenario.preferences.announce.isOn = true
        scenario.device.audioRoute = .headphones
        #expect(!scenario.decide().announce, "an ordinary notification is not announced by default")

        scenario.notification.isCommunication = true
        let announced = scenario.decide()
        #expect(announced.announce && announced.reasons.contains(.announced))

        scenario.notification.isCommunication = false
        scenario.notification.level = .timeSensitive
        #expect(scenario.decide().announce)

        for route in [AudioRoute.none, .speaker] {
            scenario.device.audioRoute = route
            #expect(!scenario.decide().announce)
        }
        scenario.device.audioRoute = .car
        #expect(scenario.decide().announce)
        scenario.settings.carPlay = .disabled
        #expect(!scenario.decide().announce, "in the car only for apps allowed in CarPlay")

        scenario.device.audioRoute = .headphones
        scenario.preferences.announce.isOn = false
        #expect(!scenario.decide().announce)
    }

    @Test("Announce: other apps when the person enabled them, never when the app's announce is off")
    func announcePerApp() {
        var scenario = Scenario()
        scenario.preferences.announce.isOn = true
        scenario.device.audioRoute = .headphones
        #expect(!scenario.decide().announce)
        scenario.preferences.announce.apps = [Fixture.demoID]
        #expect(scenario.decide().announce)
        scenario.preferences.announce.apps = []
        scenario.settings.announcement = .enabled
        #expect(scenario.decide().announce)

        var chat = Scenario.chat
        chat.preferences.announce.isOn = true
        chat.device.audioRoute = .headphones
        chat.notification.isCommunication = true
        chat.settings.announcement = .disabled
        #expect(!chat.decide().announce)
    }

    @Test("Announce: never passive, never held")
    func announceNeverPassiveOrHeld() {
        var scenario = Scenario.chat
        scenario.preferences.announce = AnnounceSettings(isOn: true, apps: [Fixture.chatID])
        scenario.device.audioRoute = .headphones
        scenario.notification.level = .passive
        #expect(!scenario.decide().announce)
        scenario.notification.level = .active
        scenario.focus = Fixture.on(Fixture.work())
        #expect(scenario.decide().disposition == .heldForFocus && !scenario.decide().announce)
    }

    @Test("Foreground app: its willPresent answer replaces the alert")
    func foregroundWillPresent() {
        var scenario = Scenario()
        scenario.notification.setsBadge = true
        scenario.device.foregroundApp = ForegroundApp(bundleID: Fixture.demoID, willPresent: [.list, .badge])
        let listed = scenario.decide()
        #expect(listed.disposition == .listedSilently && listed.notificationCenter && listed.badge)
        #expect(listed.banner == .none && !listed.sound.plays)
        #expect(listed.reasons.contains(.foregroundWillPresent))

        scenario.device.foregroundApp?.willPresent = [.banner, .sound]
        let alerted = scenario.decide()
        #expect(alerted.disposition == .alerted && alerted.banner == .banner && alerted.sound.plays)
        #expect(!alerted.notificationCenter && !alerted.badge)

        scenario.device.foregroundApp = ForegroundApp(bundleID: Fixture.chatID, willPresent: [])
        #expect(scenario.decide().disposition == .alerted, "another app in front changes nothing")
    }

    @Test("Foreground app without a delegate: not presented; a locked device has no foreground app")
    func foregroundWithoutDelegate() {
        var scenario = Scenario()
        scenario.device.foregroundApp = ForegroundApp(bundleID: Fixture.demoID, willPresent: nil)
        let hidden = scenario.decide()
        #expect(hidden.disposition == .listedSilently)
        #expect(hidden.banner == .none && !hidden.sound.plays && !hidden.notificationCenter && !hidden.lockScreen)
        #expect(Array(hidden.reasons) == [.foregroundNoDelegate])

        scenario.device.isLocked = true
        #expect(scenario.decide().disposition == .alerted)
    }

    @Test("Foreground passive notifications stay silent; foreground critical alerts still alert")
    func foregroundKeepsLevelGuarantees() {
        var scenario = Scenario.chat
        scenario.notification.level = .passive
        scenario.device.foregroundApp = ForegroundApp(bundleID: Fixture.chatID, willPresent: [.banner, .sound, .list])
        #expect(scenario.decide().disposition == .listedSilently)
        scenario.notification.level = .critical
        scenario.device.foregroundApp?.willPresent = nil
        let critical = scenario.decide()
        #expect(critical.disposition == .alerted && critical.sound.plays)
    }

    @Test("Previews: always, when unlocked, never; the app's setting overrides the default")
    func previews() {
        var scenario = Scenario()
        scenario.preferences.showPreviews = .whenAuthenticated
        scenario.device.isLocked = false
        #expect(scenario.decide().preview == .full)
        scenario.device.isLocked = true
        #expect(scenario.decide().preview.isHidden)
        #expect(scenario.decide().reasons.contains(.previewsHiddenLocked))

        scenario.settings.showPreviews = .always
        #expect(scenario.decide().preview == .full)
        scenario.settings.showPreviews = .never
        scenario.device.isLocked = false
        #expect(scenario.decide().reasons.contains(.previewsHiddenNever))
        scenario.settings.showPreviews = nil
        scenario.preferences.showPreviews = .never
        #expect(scenario.decide().preview.isHidden)
    }

    @Test("Hidden previews carry the category placeholder, the thread count, the locale and the title options")
    func hiddenPreviewInputs() {
        var scenario = Scenario()
        scenario.preferences.showPreviews = .never
        scenario.preferences.locale = "en"
        scenario.device.locale = "ar"
        scenario.notification.hiddenPreviewsPlaceholder = "%u new comments"
        scenario.notification.threadCount = 3
        scenario.notification.categoryOptions = [.hiddenPreviewsShowTitle]
        let expected = HiddenPreview(
            placeholder: "%u new comments", threadCount: 3, locale: "ar", showsTitle: true, showsSubtitle: false)
        #expect(scenario.decide().preview == .hidden(expected))

        scenario.device.locale = nil
        guard case .hidden(let preview) = scenario.decide().preview else {
            Issue.record("not hidden")
            return
        }
        #expect(preview.locale == "en")
    }

    @Test("Expiration: 0 delivers only to a connected device; a past expiry is never delivered")
    func expiration() {
        var scenario = Scenario()
        scenario.notification.expiry = .immediately
        #expect(scenario.decide().disposition == .alerted)
        scenario.device.hasConnectedSession = false
        #expect(scenario.decide().disposition == .notDelivered)
        #expect(Array(scenario.decide().reasons) == [.expiredNoSession])

        scenario.notification.expiry = .at(Fixture.now)
        #expect(scenario.decide().disposition == .alerted, "still valid at its expiry instant")
        scenario.now = Fixture.now.addingTimeInterval(1)
        #expect(Array(scenario.decide().reasons) == [.expired])
        #expect(scenario.decide().disposition == .notDelivered)
    }

    @Test("Sound and banner settings: off means no sound, no banner, listed silently")
    func appAlertSettings() {
        var scenario = Scenario()
        scenario.settings.alertStyle = .none
        scenario.settings.sound = .disabled
        let decision = scenario.decide()
        #expect(decision.disposition == .listedSilently)
        #expect(Array(decision.reasons) == [.bannersOff, .soundOff])

        scenario.settings.alertStyle = .alert
        #expect(scenario.decide().banner == .alert)
    }
}
