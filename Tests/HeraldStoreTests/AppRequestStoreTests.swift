import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Testing

/// The store contract of what apps ask the store for besides their requests: the person's
/// permission (one pending request per user and app, answered once), donated interactions, and the
/// attachments notifications show (a quota per app; freed when nothing shows them).
@Suite struct AppRequestStoreTests {
    static func authorization(_ id: String, device: String = Fixture.deviceID, at seconds: Int64 = 0)
        -> AuthorizationRequestRecord
    {
        AuthorizationRequestRecord(
            id: id, deviceID: device, bundleID: Fixture.appID, userID: Fixture.userID, options: ["alert", "sound"],
            requestedAt: Fixture.time(seconds, milliseconds: 250))
    }

    @Test(arguments: StoreEngine.all)
    func oneRequestPendingPerUserAndAppAnsweredOnce(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let asked = try await store.askAuthorization(Self.authorization("a-1"), provisional: false)
        guard case .pending(let pending) = asked else {
            Issue.record("expected a pending request, got \(asked)")
            return
        }
        #expect(pending.options == ["alert", "sound"])
        #expect(pending.requestedAt == Fixture.time(0, milliseconds: 250))
        #expect(pending.answeredAt == nil && pending.granted == nil)
        #expect(
            try await store.appSettings(userID: Fixture.userID)[Fixture.appID]?.authorizationStatus == .notDetermined)
        // The person's other device asks too: the same request is still pending.
        let again = try await store.askAuthorization(
            Self.authorization("a-2", device: Fixture.otherDeviceID, at: 5), provisional: false)
        #expect(again == .pending(pending))
        #expect(try await store.pendingAuthorizationRequests(deviceID: Fixture.deviceID) == [pending])
        #expect(try await store.pendingAuthorizationRequests(deviceID: Fixture.otherDeviceID).isEmpty)
        #expect(try await store.authorizationRequest(id: "a-2") == nil)

        var settings = AppNotificationSettings()
        settings.authorizationStatus = .authorized
        let answered = try await store.answerAuthorizationRequest(
            id: "a-1", granted: true, settings: settings, at: Fixture.time(9))
        #expect(answered?.granted == true)
        #expect(answered?.answeredAt == Fixture.time(9))
        #expect(try await store.authorizationRequest(id: "a-1") == answered)
        // An answer is given once.
        #expect(
            try await store.answerAuthorizationRequest(
                id: "a-1", granted: false, settings: settings, at: Fixture.time(10))
                == nil)
        #expect(try await store.pendingAuthorizationRequests(deviceID: Fixture.deviceID).isEmpty)
        // Answered: asking again returns the person's settings, and nothing is pending.
        #expect(
            try await store.askAuthorization(Self.authorization("a-3"), provisional: false) == .determined(settings))
        #expect(try await store.authorizationRequest(id: "a-3") == nil)
        let unknown = await #expect(throws: StoreError.self) {
            var request = Self.authorization("a-4")
            request.bundleID = "com.example.none"
            _ = try await store.askAuthorization(request, provisional: false)
        }
        #expect(unknown?.kind == .notFound)
    }

    @Test(arguments: StoreEngine.all)
    func provisionalIsGrantedQuietlyWithoutARequest(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let outcome = try await store.askAuthorization(Self.authorization("p-1"), provisional: true)
        guard case .determined(let settings) = outcome else {
            Issue.record("expected settings, got \(outcome)")
            return
        }
        #expect(settings.authorizationStatus == .provisional)
        #expect(try await store.appSettings(userID: Fixture.userID)[Fixture.appID] == settings)
        #expect(try await store.authorizationRequest(id: "p-1") == nil)
    }

    static func interaction(
        _ identifier: String, group: String? = nil, direction: InteractionRecord.Direction = .incoming,
        app: String = Fixture.appID, at seconds: Int64
    ) -> InteractionRecord {
        InteractionRecord(
            userID: Fixture.userID, bundleID: app, deviceID: Fixture.deviceID, identifier: identifier,
            groupIdentifier: group, direction: direction, kind: .message, json: #"{"identifier":"\#(identifier)"}"#,
            donatedAt: Fixture.time(seconds))
    }

    @Test(arguments: StoreEngine.all)
    func interactionsAreReplacedListedAndDeleted(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.donateInteraction(Self.interaction("i-1", group: "g", at: 1))
        try await store.donateInteraction(Self.interaction("i-2", group: "g", direction: .outgoing, at: 2))
        try await store.donateInteraction(Self.interaction("i-3", at: 3))
        try await store.donateInteraction(Self.interaction("o-1", app: Fixture.otherAppID, at: 4))
        // Donating an identifier again replaces it (and it is now the latest).
        try await store.donateInteraction(Self.interaction("i-1", group: "g", at: 5))
        #expect(
            try await store.interactions(userID: Fixture.userID, bundleID: Fixture.appID).map(\.identifier) == [
                "i-2", "i-3", "i-1",
            ])
        #expect(
            try await store.interactions(userID: Fixture.userID, direction: .incoming, limit: 2).map(\.identifier) == [
                "i-1", "o-1",
            ])
        #expect(try await store.interactions(userID: Fixture.userID, direction: .outgoing, limit: 9).count == 1)
        #expect(
            try await store.deleteInteractions(
                userID: Fixture.userID, bundleID: Fixture.appID, identifiers: nil, groupIdentifier: "g") == 2)
        #expect(
            try await store.deleteInteractions(
                userID: Fixture.userID, bundleID: Fixture.appID, identifiers: ["i-3", "nope"], groupIdentifier: nil)
                == 1)
        #expect(
            try await store.deleteInteractions(
                userID: Fixture.userID, bundleID: Fixture.otherAppID, identifiers: nil, groupIdentifier: nil) == 1)
        #expect(try await store.interactions(userID: Fixture.userID, direction: .incoming, limit: 9).isEmpty)
        let error = await #expect(throws: StoreError.self) {
            var interaction = Self.interaction("x", at: 6)
            interaction.userID = "nobody"
            try await store.donateInteraction(interaction)
        }
        #expect(error?.kind == .notFound)
    }

    static func attachment(_ id: String, size: Int, at seconds: Int64 = 0) -> AttachmentRecord {
        AttachmentRecord(
            id: id, bundleID: Fixture.appID, deviceID: Fixture.deviceID, identifier: "image-\(id)", type: "image/png",
            size: size, createdAt: Fixture.time(seconds))
    }

    @Test(arguments: StoreEngine.all)
    func attachmentsKeepToTheQuotaAndAreFreedWhenNothingShowsThem(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.addAttachment(Self.attachment("shown", size: 400), quota: 1000)
        try await store.addAttachment(Self.attachment("pending", size: 400), quota: 1000)
        let full = await #expect(throws: StoreError.self) {
            try await store.addAttachment(Self.attachment("too-much", size: 201), quota: 1000)
        }
        #expect(full?.kind == .conflict)
        try await store.addAttachment(Self.attachment("fresh", size: 200, at: 50), quota: 1000)
        #expect(try await store.attachmentBytes(bundleID: Fixture.appID) == 1000)
        #expect(try await store.attachments(ids: ["fresh", "unknown"]).map(\.id) == ["fresh"])

        // A notification shows one, a pending request the other; both are linked.
        var shown = Fixture.notification("n-1")
        shown.attachments = [
            NotificationAttachment(id: "shown", identifier: "image-shown", type: "image/png", size: 400)
        ]
        _ = try await store.insert([shown])
        var request = LocalNotificationStoreTests.request("r-1")
        request.content = #"{"body":"b","attachments":[{"id":"pending","identifier":"image-pending"}]}"#
        _ = try await store.addLocalRequest(request, limit: 64)
        try await store.linkAttachments(ids: ["shown", "pending"], at: Fixture.time(10))
        #expect(try await store.attachments(ids: ["shown"]).first?.linkedAt == Fixture.time(10))
        // Nothing unused: "fresh" was never linked and is younger than the grace period.
        #expect(try await store.unusedAttachments(unlinkedBefore: Fixture.time(20), limit: 10).isEmpty)
        // Past its grace period, the never-linked one is unused.
        #expect(try await store.unusedAttachments(unlinkedBefore: Fixture.time(60), limit: 10).map(\.id) == ["fresh"])

        // The notification removed, the request removed: theirs are unused too.
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "n-1", at: Fixture.time(30))
        _ = try await store.removeLocalRequests(deviceID: Fixture.deviceID, bundleID: Fixture.appID, identifiers: nil)
        let unused = try await store.unusedAttachments(unlinkedBefore: Fixture.time(20), limit: 10)
        #expect(Set(unused.map(\.id)) == ["shown", "pending"])
        try await store.removeAttachments(ids: unused.map(\.id))
        #expect(try await store.attachmentBytes(bundleID: Fixture.appID) == 200)
        let unknown = await #expect(throws: StoreError.self) {
            var record = Self.attachment("orphan", size: 1)
            record.deviceID = "no-device"
            try await store.addAttachment(record, quota: 1000)
        }
        #expect(unknown?.kind == .notFound)
    }
}
