import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

@Suite("What the device shows: communication, loc keys and hidden previews (in-process server, test clock)")
struct NotificationDisplayTests {
    static let message = #"""
        {"aps":{"alert":{"title":"New message","body":"On my way"},"sound":"default"},
         "communication":{"kind":"message","sender":{"handle":"(555) 010-0200","handle_type":"phone","display_name":"Ana"},
                          "group":"Lunch crew"}}
        """#

    @Test("a message from an allowed person breaks through the Work Focus; the device shows the sender and the group")
    func allowedPerson() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let now = herald.clock.now
        // Given the Work Focus on, allowing no app but Ana, whose number is written another way
        let work = FocusMode(
            id: "work", name: "Work", kind: .work, allowedPeople: [PersonHandle("+1 555-010-0200", kind: .phoneNumber)],
            manual: .on(since: now.addingTimeInterval(-60), until: nil)
        )
        try await herald.store.upsertFocusMode(work, userID: userID)
        try await herald.userStateChanged(userID)
        try await herald.unlockDevice()
        let client = try herald.apnsClient()
        let api = try herald.apiClient()

        // When Ana's message and an ordinary notification arrive
        let fromAna = try await herald.push(payload: Self.message, client: client)
        let plain = try await herald.push(
            payload: #"{"aps":{"alert":{"title":"Sale","body":"50% off"}}}"#, client: client)

        // Then Ana's gets through, explained with her name, and shows her name and the group
        #expect(fromAna.disposition == .alerted)
        #expect(plain.disposition == .heldForFocus)
        let lines = reasons(herald.application.policy.explain(fromAna))
        #expect(
            lines.contains {
                $0.code == "focus-allowed-person"
                    && $0.sentence == "Delivered during the Work Focus: Ana is an allowed person."
            })
        let shown = try await herald.display(of: fromAna.id, api: api)
        #expect(shown.list == Display(title: "Ana", subtitle: "Lunch crew", body: "On my way"))
        #expect(shown.decision == shown.list && shown.stream == shown.list)
        // An ordinary one shows its alert as sent, and its decision stores no display
        #expect(
            try await herald.display(of: plain.id, api: api).list
                == Display(title: "Sale", subtitle: nil, body: "50% off"))
        #expect(json(try JSONParser.parse(Array(try #require(plain.decisionJSON).utf8)), "display") == .null)
        try await api.shutdown()
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("an app without the communication entitlement sends an ordinary notification: held, shown as sent")
    func notEntitled() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let now = herald.clock.now
        let work = FocusMode(
            id: "work", name: "Work", kind: .work, allowedPeople: [PersonHandle("+15550100200", kind: .phoneNumber)],
            manual: .on(since: now.addingTimeInterval(-60), until: nil)
        )
        try await herald.store.upsertFocusMode(work, userID: userID)
        try await herald.userStateChanged(userID)
        // Given an app of the demo team without the communication entitlement, on the demo device
        let plainApp = "com.example.chat"
        _ = try await herald.application.registry.createApp(
            bundleID: plainApp, teamID: herald.demo.teamID, name: "Chat")
        let token = try await herald.application.registry.createDeviceToken(
            deviceID: herald.demo.deviceID, bundleID: plainApp)
        try await herald.unlockDevice()
        let client = try herald.apnsClient()
        let api = try herald.apiClient()

        let row = try await herald.push(payload: Self.message, client: client, token: token.token, topic: plainApp)

        #expect(row.disposition == .heldForFocus)
        let lines = reasons(herald.application.policy.explain(row))
        #expect(
            lines.contains {
                $0.code == "communication-not-entitled"
                    && $0.sentence
                        == "Not treated as a message or call: Chat is not entitled to send communication notifications."
            })
        #expect(lines.contains { $0.code == "focus-held" })
        #expect(
            try await herald.display(of: row.id, api: api).list
                == Display(title: "New message", subtitle: nil, body: "On my way"))
        try await api.shutdown()
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("a malformed communication key is accepted, not treated as communication, and explained")
    func malformed() async throws {
        let herald = try await PolicyHerald.start()
        try await herald.unlockDevice()
        let client = try herald.apnsClient()
        let bad =
            #"{"aps":{"alert":{"title":"Hi","body":"Hello"}},"communication":{"kind":"letter","sender":{"handle":"ana@example.com","handle_type":"email"}}}"#
        let noHandle = #"{"aps":{"alert":"Hello"},"communication":{"kind":"call","sender":{"handle_type":"phone"}}}"#

        let row = try await herald.push(payload: bad, client: client)
        let other = try await herald.push(payload: noHandle, client: client)

        #expect(row.disposition == .alerted && other.disposition == .alerted)
        let lines = reasons(herald.application.policy.explain(row))
        #expect(
            lines.contains {
                $0.code == "communication-invalid"
                    && $0.sentence
                        == #"Not treated as a message or call: the push's communication key is not valid: communication.kind must be "message" or "call"."#
            })
        #expect(
            reasons(herald.application.policy.explain(other)).contains {
                $0.sentence.contains("communication.sender.handle must be a non-empty string")
            })
        let decision = try JSONDecoder().decode(Decision.self, from: Data(try #require(row.decisionJSON).utf8))
        #expect(!decision.announce)
        let explained = herald.application.policy.explain(row)
        #expect(
            json(explained, "display")
                == .object(["title": .string("Hi"), "subtitle": .null, "body": .string("Hello")]))
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("loc keys are resolved in the device's locale (else the user's) with plurals, falling back to the key")
    func localized() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        try await herald.store.putLocalizationFile(
            bundleID: herald.demo.topic, locale: "ru", kind: .stringsdict, name: "Localizable.stringsdict",
            data: Self.russian
        )
        try await herald.store.putLocalizationFile(
            bundleID: herald.demo.topic, locale: "ru", kind: .strings, name: "Localizable.strings",
            data: Data(#""INBOX_TITLE" = "Входящие от %@";"#.utf8)
        )
        await herald.application.policy.appResourcesChanged(bundleID: herald.demo.topic)
        try await herald.store.setPreferences(UserPreferences(showPreviews: .always, locale: "ru"), userID: userID)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let api = try herald.apiClient()
        func payload(_ count: Int) -> String {
            #"{"aps":{"alert":{"title-loc-key":"INBOX_TITLE","title-loc-args":["Ана"],"subtitle-loc-key":"NO_SUCH_KEY","loc-key":"NEW_MESSAGES","loc-args":["\#(count)"]}}}"#
        }

        // The user's locale (the device has none): Russian one / few / many
        let one = try await herald.push(payload: payload(21), client: client)
        let few = try await herald.push(payload: payload(3), client: client)
        let many = try await herald.push(payload: payload(11), client: client)
        #expect(
            try await herald.display(of: one.id, api: api).list
                == Display(title: "Входящие от Ана", subtitle: "NO_SUCH_KEY", body: "21 новое сообщение"))
        #expect(try await herald.display(of: few.id, api: api).list?.body == "3 новых сообщения")
        let shownMany = try await herald.display(of: many.id, api: api)
        #expect(shownMany.list?.body == "11 новых сообщений")
        #expect(shownMany.stream == shownMany.list && shownMany.decision == shownMany.list)
        // The alert as sent stays in `alert`
        let alert = try #require(try await herald.listed(many.id, api: api)).objectValue?["alert"]
        #expect(json(alert, "body") == .null)

        // The device's own locale wins: English has no table, so the keys show
        try await herald.store.setDeviceState(DeviceState(locale: "en"), deviceID: herald.demo.deviceID)
        await herald.application.policy.deviceStateChanged(deviceID: herald.demo.deviceID)
        let english = try await herald.push(payload: payload(2), client: client)
        #expect(
            try await herald.display(of: english.id, api: api).list
                == Display(title: "INBOX_TITLE", subtitle: "NO_SUCH_KEY", body: "NEW_MESSAGES"))
        try await api.shutdown()
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("a hidden preview counts the thread: %u = 3 after three pushes in it, pluralized for the user's locale")
    func hiddenPreviewThreadCount() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        try await herald.store.setPreferences(UserPreferences(showPreviews: .never, locale: "ar"), userID: userID)
        try await herald.store.upsertCategory(
            bundleID: herald.demo.topic, identifier: "MESSAGE",
            json:
                #"{"identifier":"MESSAGE","actions":[],"intent_identifiers":[],"hidden_previews_body_placeholder":"COMMENT_KEY","category_summary_format":null,"options":["hidden_previews_show_title"]}"#
        )
        try await herald.store.putLocalizationFile(
            bundleID: herald.demo.topic, locale: "ar", kind: .stringsdict, name: "Localizable.stringsdict",
            data: Self.arabic
        )
        await herald.application.policy.appResourcesChanged(bundleID: herald.demo.topic)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let api = try herald.apiClient()
        func payload(_ thread: String) -> String {
            #"{"aps":{"alert":{"title":"Ann","subtitle":"Lunch","body":"Secret"},"category":"MESSAGE","thread-id":"\#(thread)"}}"#
        }

        // Three pushes in thread t1, one in t2 between them
        let first = try await herald.push(payload: payload("t1"), client: client)
        let second = try await herald.push(payload: payload("t1"), client: client)
        let elsewhere = try await herald.push(payload: payload("t2"), client: client)
        let third = try await herald.push(payload: payload("t1"), client: client)

        #expect(
            try await herald.display(of: first.id, api: api).list
                == Display(title: "Ann", subtitle: nil, body: "تعليق واحد"))
        #expect(try await herald.display(of: second.id, api: api).list?.body == "تعليقان")
        #expect(try await herald.display(of: elsewhere.id, api: api).list?.body == "تعليق واحد")
        let shown = try await herald.display(of: third.id, api: api)
        #expect(shown.list == Display(title: "Ann", subtitle: nil, body: "3 تعليقات"))
        #expect(shown.stream == shown.list && shown.decision == shown.list)
        let decision = try JSONDecoder().decode(Decision.self, from: Data(try #require(third.decisionJSON).utf8))
        guard case .hidden(let hidden) = decision.preview else {
            Issue.record("the preview is not hidden")
            return
        }
        #expect(hidden.threadCount == 3 && hidden.locale == "ar")
        try await api.shutdown()
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("a hidden preview released by the Focus's end counts its thread again, itself once")
    func releasedHiddenPreview() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let start = herald.clock.now
        try await herald.store.setPreferences(UserPreferences(showPreviews: .never), userID: userID)
        let work = FocusMode(
            id: "work", name: "Work", kind: .work,
            manual: .on(since: start.addingTimeInterval(-60), until: start.addingTimeInterval(600)))
        try await herald.store.upsertFocusMode(work, userID: userID)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let payload = #"{"aps":{"alert":{"title":"Ann","body":"Secret"},"thread-id":"chat"}}"#
        let first = try await herald.push(payload: payload, client: client)
        let second = try await herald.push(payload: payload, client: client)
        try await client.shutdown()
        #expect(first.disposition == .heldForFocus && second.disposition == .heldForFocus)
        #expect(Self.body(first) == "Notification" && Self.body(second) == "2 Notifications")

        // When the Focus ends, both are decided again (released quietly): the thread holds two, each counted once
        herald.clock.advance(to: start.addingTimeInterval(601))
        let released = try await herald.heldReevaluated(userID)
        #expect(released.map(\.disposition) == [.listedSilently, .listedSilently])
        #expect(released.map(Self.body) == ["2 Notifications", "2 Notifications"])
        try await herald.stop()
    }

    /// The body the stored decision's `display` shows.
    static func body(_ row: StoredNotification) -> String? {
        row.decision?.display?.body
    }

    static let russian = stringsdict(
        key: "NEW_MESSAGES", variable: "messages", format: "d",
        forms: [
            "one": "%d новое сообщение", "few": "%d новых сообщения", "many": "%d новых сообщений",
            "other": "%d новых сообщения",
        ])

    static let arabic = stringsdict(
        key: "COMMENT_KEY", variable: "comment", format: "u",
        forms: [
            "zero": "لا يوجد تعليقات", "one": "تعليق واحد", "two": "تعليقان", "few": "%u تعليقات", "many": "%u تعليقاً",
            "other": "%u تعليقاً",
        ])

    /// A `.stringsdict` with one plural entry, as Xcode exports it.
    static func stringsdict(key: String, variable: String, format: String, forms: [String: String]) -> Data {
        let variants = forms.sorted { $0.key < $1.key }.map { "<key>\($0.key)</key><string>\($0.value)</string>" }
            .joined()
        return Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>\(key)</key><dict>
            <key>NSStringLocalizedFormatKey</key><string>%#@\(variable)@</string>
            <key>\(variable)</key><dict>
            <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key><string>\(format)</string>
            \(variants)
            </dict></dict></dict></plist>
            """.utf8)
    }
}

/// A notification's `display` as the API shows it.
struct Display: Hashable, CustomStringConvertible {
    var title: String?
    var subtitle: String?
    var body: String?

    init(title: String?, subtitle: String?, body: String?) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    init?(_ value: JSONValue?) {
        guard let object = value?.objectValue else { return nil }
        self.init(
            title: object["title"]?.stringValue, subtitle: object["subtitle"]?.stringValue,
            body: object["body"]?.stringValue)
    }

    var description: String { "(\(title ?? "nil") | \(subtitle ?? "nil") | \(body ?? "nil"))" }
}

extension PolicyHerald {
    /// A JSON API client with the demo user's token.
    func apiClient() throws -> HeraldAPIClient {
        try HeraldAPIClient(baseURL: URL(string: runtime.apiURL)!, bearerToken: demo.userToken)
    }

    /// Pushes a whole payload (custom keys included) over the APNs endpoint; returns the stored row.
    func push(payload: String, client: APNsClient, token: String? = nil, topic: String? = nil) async throws
        -> StoredNotification
    {
        let result = try await client.send(
            APNsPush(deviceToken: token ?? demo.deviceToken, topic: topic ?? demo.topic, payload: Data(payload.utf8)))
        guard result.status == 200, let id = result.apnsID else {
            throw PolicyTestError("push answered \(result.status) \(result.reason ?? "")")
        }
        guard let row = try await store.notification(deviceID: demo.deviceID, id: id.lowercased()) else {
            throw PolicyTestError("the push was not stored")
        }
        return row
    }

    /// The notification as `GET /v1/devices/{id}/notifications` lists it.
    func listed(_ id: String, api: HeraldAPIClient) async throws -> JSONValue? {
        let page = try JSONParser.parse(Array(try await api.listNotifications(deviceID: demo.deviceID, limit: 500)))
        return jsonItems(json(page, "notifications")).first { json($0, "id")?.stringValue == id }
    }

    /// The `display` of a notification in the list, on the SSE stream (replayed from the start) and
    /// from the decision endpoint.
    func display(of id: String, api: HeraldAPIClient) async throws -> (
        list: Display?, stream: Display?, decision: Display?
    ) {
        let list = Display(json(try await listed(id, api: api), "display"))
        let decision = Display(json(try JSONParser.parse(Array(try await api.decision(notificationID: id))), "display"))
        var stream: Display?
        for try await event in api.events(deviceID: demo.deviceID, cursor: "0") where event.event == "notification" {
            let data = try JSONParser.parse(Array(event.data.utf8))
            if json(data, "id")?.stringValue == id {
                stream = Display(json(data, "display"))
                break
            }
        }
        return (list, stream, decision)
    }
}
