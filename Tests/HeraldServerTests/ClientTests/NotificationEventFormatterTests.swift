import Foundation
import HeraldClient
import Testing

extension ClientTests {
    @Suite("herald watch's line per notification")
    struct NotificationEventFormatterTests {
        private let formatter = NotificationEventFormatter(timeZone: TimeZone(identifier: "UTC")!)

        @Test func aNotificationShowsTimeAppTitleBodyLevelAndThread() {
            let event = ServerSentEvent(
                id: "7", event: "notification",
                data: """
                    {"id":"a","bundle_id":"com.example.app","received_at":"2026-11-21T14:03:07.123Z",
                     "alert":{"title":"Hello","subtitle":null,"body":"World"},
                     "interruption_level":"time-sensitive","thread_id":"chat-1","read_at":null,"dismissed_at":null}
                    """)
            #expect(
                formatter.line(for: event)
                    == "14:03:07  com.example.app  Hello — World  [time-sensitive, thread chat-1]")
        }

        @Test func aBackgroundPushAndARemovalAreNamed() {
            let background = ServerSentEvent(
                id: "8", event: "notification",
                data: """
                    {"id":"b","bundle_id":"com.example.app","received_at":"2026-11-21T14:03:08.000Z","alert":null,"push_type":"background"}
                    """)
            #expect(formatter.line(for: background) == "14:03:08  com.example.app  (background)")

            let removed = ServerSentEvent(
                id: "9", event: "removed",
                data: """
                    {"id":"b","bundle_id":"com.example.app","received_at":"2026-11-21T14:03:08.000Z"}
                    """)
            #expect(formatter.line(for: removed) == "14:03:08  com.example.app  removed b")
        }

        @Test func anAuthorizationRequestSaysWhoAsksAndHowToAnswer() {
            let event = ServerSentEvent(
                id: nil, event: "authorization_requests",
                data: """
                    {"requests":[{"id":"3f2a","bundle_id":"com.example.app","options":["sound","alert"]}]}
                    """)
            #expect(
                formatter.line(for: event)
                    == "authorization  com.example.app asks for sound, alert (herald authorize 3f2a --allow|--deny)")
            let none = ServerSentEvent(id: nil, event: "authorization_requests", data: #"{"requests":[]}"#)
            #expect(formatter.line(for: none) == "authorization  no app is asking")
        }

        @Test func aSummaryEventShowsItsSizeAndTheFeaturedOnes() {
            let event = ServerSentEvent(
                id: "12", event: "summary",
                data: """
                    {"cursor":"12","device_id":"d","slot":"2026-11-21T08:00:00.000Z","released_at":"2026-11-21T08:00:01.000Z",
                     "apps":[{"bundle_id":"com.example.news","featured":true,"notifications":[
                        {"id":"n1","featured":true,"notification":{"alert":{"title":"Rain","subtitle":null,"body":"Take an umbrella"}}},
                        {"id":"n2","featured":false,"notification":null}]},
                      {"bundle_id":"com.example.shop","featured":true,"notifications":[{"id":"s1","featured":true,"notification":null}]}]}
                    """)
            #expect(
                formatter.line(for: event)
                    == "08:00:00  summary  3 notifications from 2 apps; featured: com.example.news Rain — Take an umbrella; com.example.shop s1"
            )
        }

        @Test func aBadgeEventShowsTheTotalAndTheApps() {
            let event = ServerSentEvent(
                id: nil, event: "badge",
                data: """
                    {"badge_total":5,"apps":[{"bundle_id":"com.example.app","badge":3},{"bundle_id":"com.example.mail","badge":2}],"changed":[]}
                    """)
            #expect(formatter.line(for: event) == "badges  total 5  (com.example.app 3, com.example.mail 2)")
            let cleared = ServerSentEvent(id: nil, event: "badge", data: #"{"badge_total":0,"apps":[],"changed":[]}"#)
            #expect(formatter.line(for: cleared) == "badges  total 0")
        }

        @Test func aReadNotificationSaysSo() {
            let event = ServerSentEvent(
                id: "10", event: "notification",
                data: """
                    {"bundle_id":"com.example.app","received_at":"2026-11-21T14:03:07.123Z","alert":{"body":"Hi"},
                     "read_at":"2026-11-21T14:04:00.000Z","dismissed_at":null}
                    """)
            #expect(formatter.line(for: event) == "14:03:07  com.example.app  Hi  [read]")
        }

        @Test func theDeviceShowsAHiddenPreviewAndTheDispositionAndItsActionsAreListed() {
            let event = ServerSentEvent(
                id: "11", event: "notification",
                data: """
                    {"id":"h","bundle_id":"com.example.app","received_at":"2026-11-21T14:03:07.123Z",
                     "alert":{"title":"Ben","body":"The surprise is at eight"},
                     "display":{"title":"Example","subtitle":null,"body":"Notification"},
                     "disposition":"heldForFocus","read_at":null,"dismissed_at":null,
                     "decision":{"actions":[{"identifier":"like","title":"Like","options":[]},
                       {"identifier":"reply","title":"Reply","options":[],"text_input":{"button_title":"Send","placeholder":""}}]}}
                    """)
            #expect(formatter.line(for: event) == "14:03:07  com.example.app  Example — Notification  [heldForFocus]")
            let actions = NotificationEventFormatter.actions(of: event)
            #expect(actions.map(\.identifier) == ["like", "reply"])
            #expect(actions.map(\.textInput) == [nil, "Send"])
        }

        @Test func focusAndStateEventsAreSentences() {
            let focus = ServerSentEvent(
                id: nil, event: "focus", data: #"{"active":null,"reason":"No Focus is on.","time_zone":"UTC"}"#)
            #expect(formatter.line(for: focus) == "focus  No Focus is on.")
            let state = ServerSentEvent(
                id: nil, event: "state",
                data: #"{"locked":false,"ringer_silent":true,"audio_route":"headphones","foreground_app":null}"#)
            #expect(formatter.line(for: state) == "state  unlocked, ringer silent, audio headphones")
        }
    }
}
