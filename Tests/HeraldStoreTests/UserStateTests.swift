import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Testing

@Suite("User-side state")
struct UserStateTests {
    @Test(arguments: StoreEngine.all)
    func appSettingsRoundTripPerUserAndApp(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.appSettings(userID: Fixture.userID).isEmpty)

        try await store.setAppSettings(Fixture.appSettings, userID: Fixture.userID, bundleID: Fixture.appID)
        try await store.setAppSettings(.authorized, userID: Fixture.userID, bundleID: Fixture.otherAppID)
        try await store.setAppSettings(
            AppNotificationSettings(authorizationStatus: .denied), userID: Fixture.otherUserID, bundleID: Fixture.appID)
        #expect(
            try await store.appSettings(userID: Fixture.userID) == [
                Fixture.appID: Fixture.appSettings, Fixture.otherAppID: .authorized,
            ])

        // Setting an app again replaces its settings only
        var changed = Fixture.appSettings
        changed.showPreviews = nil
        changed.authorizationStatus = .ephemeral
        try await store.setAppSettings(changed, userID: Fixture.userID, bundleID: Fixture.appID)
        #expect(
            try await store.appSettings(userID: Fixture.userID) == [
                Fixture.appID: changed, Fixture.otherAppID: .authorized,
            ])
        #expect(try await store.appSettings(userID: Fixture.otherUserID)[Fixture.appID]?.authorizationStatus == .denied)
    }

    @Test(arguments: StoreEngine.all)
    func preferencesRoundTripWithTheirTimeZoneAndLocale(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.preferences(userID: Fixture.userID) == nil)
        try await store.setPreferences(Fixture.preferences, userID: Fixture.userID)
        let read = try await store.preferences(userID: Fixture.userID)
        #expect(read == Fixture.preferences)
        #expect(read?.timeZone.identifier == "Europe/Paris")
        try await store.setPreferences(UserPreferences(), userID: Fixture.userID)
        #expect(try await store.preferences(userID: Fixture.userID) == UserPreferences())
        #expect(try await store.preferences(userID: Fixture.otherUserID) == nil)
    }

    @Test(arguments: StoreEngine.all)
    func focusModesKeepTheOrderTheyWereAddedIn(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        try await store.upsertFocusMode(Fixture.workFocus, userID: Fixture.userID)
        try await store.upsertFocusMode(Fixture.sleepFocus, userID: Fixture.userID)
        try await store.upsertFocusMode(Fixture.readingFocus, userID: Fixture.userID)
        try await store.upsertFocusMode(Fixture.readingFocus, userID: Fixture.otherUserID)
        #expect(
            try await store.focusModes(userID: Fixture.userID) == [
                Fixture.workFocus, Fixture.sleepFocus, Fixture.readingFocus,
            ])

        // Replacing a mode keeps its place (the order breaks ties between modes)
        var sleep = Fixture.sleepFocus
        sleep.manual = .on(since: Fixture.time(5), until: nil)
        sleep.allowsTimeSensitive = false
        try await store.upsertFocusMode(sleep, userID: Fixture.userID)
        #expect(try await store.focusModes(userID: Fixture.userID) == [Fixture.workFocus, sleep, Fixture.readingFocus])

        // Deleting one; a new one goes last
        #expect(try await store.deleteFocusMode(id: "work", userID: Fixture.userID))
        #expect(try await store.deleteFocusMode(id: "work", userID: Fixture.userID) == false)
        try await store.upsertFocusMode(Fixture.workFocus, userID: Fixture.userID)
        #expect(try await store.focusModes(userID: Fixture.userID).map(\.id) == ["sleep", "reading", "work"])
        #expect(try await store.focusModes(userID: Fixture.otherUserID) == [Fixture.readingFocus])

        // The modes read back decide what is on exactly as the originals do
        let modes = FocusModes(try await store.focusModes(userID: Fixture.userID))
        #expect(modes.active(at: Fixture.time(10), in: Fixture.preferences.timeZone)?.mode.id == "sleep")
    }

    @Test(arguments: StoreEngine.all)
    func aFocusModeDateIsKeptToTheMillisecond(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        var mode = Fixture.readingFocus
        mode.manual = .on(
            since: Date(timeIntervalSince1970: 1_750_000_000.123_4),
            until: Date(timeIntervalSince1970: 1_750_000_100.000_6))
        try await store.upsertFocusMode(mode, userID: Fixture.userID)
        let read = try await store.focusModes(userID: Fixture.userID)
        #expect(read.first?.manual == .on(since: Fixture.time(), until: Date(timeIntervalSince1970: 1_750_000_100.001)))
    }

    @Test(arguments: StoreEngine.all)
    func theSummaryScheduleRoundTrips(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.summarySchedule(userID: Fixture.userID) == nil)
        try await store.setSummarySchedule(Fixture.summary, userID: Fixture.userID)
        let read = try await store.summarySchedule(userID: Fixture.userID)
        #expect(read == Fixture.summary)
        #expect(read?.times == [TimeOfDay(hour: 8, minute: 30), TimeOfDay(hour: 18)])
        try await store.setSummarySchedule(.off, userID: Fixture.userID)
        #expect(try await store.summarySchedule(userID: Fixture.userID) == .off)
    }

    @Test(arguments: StoreEngine.all)
    func theDeviceStateRoundTripsPerDevice(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.deviceState(deviceID: Fixture.deviceID) == nil)
        try await store.setDeviceState(Fixture.deviceState, deviceID: Fixture.deviceID)
        try await store.setDeviceState(DeviceState(), deviceID: Fixture.otherDeviceID)
        #expect(try await store.deviceState(deviceID: Fixture.deviceID) == Fixture.deviceState)
        #expect(try await store.deviceState(deviceID: Fixture.otherDeviceID) == DeviceState())

        var unlocked = Fixture.deviceState
        unlocked.foregroundApp = ForegroundApp(bundleID: Fixture.otherAppID, willPresent: nil)
        try await store.setDeviceState(unlocked, deviceID: Fixture.deviceID)
        #expect(try await store.deviceState(deviceID: Fixture.deviceID) == unlocked)
    }

    @Test(arguments: StoreEngine.all)
    func thePolicyContextHasTheUsersStateAndTheDevicesOwn(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        #expect(try await store.policyContext(deviceID: "no-such-device") == nil)
        // Nothing set yet: the owner, and nothing else
        #expect(
            try await store.policyContext(deviceID: Fixture.deviceID)
                == PolicyContextRecord(deviceID: Fixture.deviceID, userID: Fixture.userID))

        // Given everything set for the user, and a state for one of their devices
        try await store.setPreferences(Fixture.preferences, userID: Fixture.userID)
        try await store.setAppSettings(Fixture.appSettings, userID: Fixture.userID, bundleID: Fixture.appID)
        try await store.upsertFocusMode(Fixture.workFocus, userID: Fixture.userID)
        try await store.upsertFocusMode(Fixture.sleepFocus, userID: Fixture.userID)
        try await store.setSummarySchedule(Fixture.summary, userID: Fixture.userID)
        try await store.setDeviceState(Fixture.deviceState, deviceID: Fixture.deviceID)
        try await store.setPreferences(UserPreferences(), userID: Fixture.otherUserID)

        // Then each device of the user sees the user's state and its own device state
        let context = try await store.policyContext(deviceID: Fixture.deviceID)
        #expect(
            context
                == PolicyContextRecord(
                    deviceID: Fixture.deviceID, userID: Fixture.userID, preferences: Fixture.preferences,
                    appSettings: [Fixture.appID: Fixture.appSettings],
                    focusModes: [Fixture.workFocus, Fixture.sleepFocus],
                    summarySchedule: Fixture.summary, deviceState: Fixture.deviceState
                ))
        let sibling = try await store.policyContext(deviceID: Fixture.otherDeviceID)
        #expect(
            sibling?.preferences == Fixture.preferences && sibling?.focusModes.count == 2 && sibling?.deviceState == nil
        )
        let stranger = try await store.policyContext(deviceID: Fixture.strangerDeviceID)
        #expect(
            stranger
                == PolicyContextRecord(
                    deviceID: Fixture.strangerDeviceID, userID: Fixture.otherUserID, preferences: UserPreferences()))
    }

    @Test(arguments: StoreEngine.all)
    func stateForAnUnknownUserAppOrDeviceIsNotFound(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        let errors: [StoreError?] = [
            await #expect(throws: StoreError.self) {
                try await store.setAppSettings(.authorized, userID: "nobody", bundleID: Fixture.appID)
            },
            await #expect(throws: StoreError.self) {
                try await store.setAppSettings(.authorized, userID: Fixture.userID, bundleID: "com.example.none")
            },
            await #expect(throws: StoreError.self) {
                try await store.setPreferences(UserPreferences(), userID: "nobody")
            },
            await #expect(throws: StoreError.self) {
                try await store.upsertFocusMode(Fixture.workFocus, userID: "nobody")
            },
            await #expect(throws: StoreError.self) {
                try await store.setSummarySchedule(Fixture.summary, userID: "nobody")
            },
            await #expect(throws: StoreError.self) {
                try await store.setDeviceState(DeviceState(), deviceID: "no-such-device")
            },
        ]
        #expect(errors.map(\.?.kind) == Array(repeating: .notFound, count: errors.count))

        // Reading what nobody set is empty, not an error
        #expect(try await store.appSettings(userID: "nobody").isEmpty)
        #expect(try await store.preferences(userID: "nobody") == nil)
        #expect(try await store.focusModes(userID: "nobody").isEmpty)
        #expect(try await store.summarySchedule(userID: "nobody") == nil)
        #expect(try await store.deviceState(deviceID: "no-such-device") == nil)
        #expect(try await store.deleteFocusMode(id: "work", userID: "nobody") == false)
    }

    @Test(arguments: StoreEngine.all)
    func aFocusModeWithoutAnIDIsInvalid(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        let error = await #expect(throws: StoreError.self) {
            try await store.upsertFocusMode(FocusMode(id: "", name: "Nameless"), userID: Fixture.userID)
        }
        #expect(error?.kind == .invalid)
        #expect(try await store.focusModes(userID: Fixture.userID).isEmpty)
    }
}
