import Foundation
import HeraldClient
import Testing

extension ClientTests {
    /// What `herald watch --desktop` sends to the desktop for each event and what the desktop's
    /// answers mean (the D-Bus side against dunst is tests/interop/test_desktop.py).
    @Suite("Desktop forwarding: what shows, its urgency and buttons, and what an answer means")
    struct DesktopForwardingTests {
        static func event(
            _ id: String, level: String = "active", disposition: String = "alerted", banner: String = "banner",
            dismissed: Bool = false, kind: String = "notification", display: String? = nil
        ) -> ServerSentEvent {
            let displayJSON = display.map { #""display": {"title": "\#($0)", "body": ""},"# } ?? ""
            let data = """
                {"id": "\(id)", "bundle_id": "com.example.chat", "interruption_level": "\(level)",
                 "disposition": "\(disposition)", \(displayJSON)
                 "alert": {"title": "Ana", "subtitle": "Lunch", "body": "At noon?"},
                 "dismissed_at": \(dismissed ? #""2026-11-27T12:00:00.000Z""# : "null"),
                 "decision": {"banner": "\(banner)", "actions": [
                   {"identifier": "like", "title": "Like"},
                   {"identifier": "reply", "title": "Reply", "text_input": {"button_title": "Send"}}]}}
                """
            return ServerSentEvent(id: "1", event: kind, data: data)
        }

        @Test("an alerting notification shows once, urgency from its level, its actions without text input")
        func showsOnce() throws {
            var forwarding = DesktopForwarding()
            let first = forwarding.step(for: Self.event("n1"))
            let step = try #require(first)
            guard case .show(let id, let notification) = step else {
                Issue.record("\(step)")
                return
            }
            #expect(id == "n1")
            #expect(
                notification
                    == DesktopNotification(
                        appName: "com.example.chat", summary: "Ana · Lunch", body: "At noon?",
                        actions: [("default", "Open"), ("like", "Like")], urgency: .normal))
            // A later change of the same notification (read, say) does not show it again.
            let r1 = forwarding.step(for: Self.event("n1"))
            #expect(r1 == nil)

            for (level, urgency) in [
                ("passive", DesktopNotification.Urgency.low), ("time-sensitive", .normal), ("critical", .critical),
            ] {
                guard case .show(_, let shown)? = forwarding.step(for: Self.event("n-\(level)", level: level)) else {
                    Issue.record("\(level) did not show")
                    continue
                }
                #expect(shown.urgency == urgency)
            }
            // What the device shows: a hidden preview's placeholder, not the alert.
            guard case .show(_, let hidden)? = forwarding.step(for: Self.event("n2", display: "Chat")) else {
                Issue.record("the hidden preview did not show")
                return
            }
            #expect(hidden.summary == "Chat" && hidden.body == "")
        }

        @Test("held, listed silently, no banner, or already dismissed: nothing shows")
        func quietOnesStayOff() {
            var forwarding = DesktopForwarding()
            let r2 = forwarding.step(for: Self.event("a", disposition: "heldForFocus"))
            #expect(r2 == nil)
            let r3 = forwarding.step(for: Self.event("b", disposition: "listedSilently"))
            #expect(r3 == nil)
            let r4 = forwarding.step(for: Self.event("c", banner: "none"))
            #expect(r4 == nil)
            let r5 = forwarding.step(for: Self.event("d", dismissed: true))
            #expect(r5 == nil)
            let r6 = forwarding.step(for: ServerSentEvent(id: nil, event: "badge", data: #"{"id": "x"}"#))
            #expect(r6 == nil)
            // A held one released with an alert shows then.
            let r7 = forwarding.step(for: Self.event("a"))
            #expect(r7 != nil)
        }

        @Test("dismissed or removed on the device: it leaves the desktop, and Herald's close is no dismissal")
        func closesWhatLeaves() {
            var forwarding = DesktopForwarding()
            _ = forwarding.step(for: Self.event("n1"))
            forwarding.shown(notificationID: "n1", desktopID: 7)
            _ = forwarding.step(for: Self.event("n2"))
            forwarding.shown(notificationID: "n2", desktopID: 8)
            let r8 = forwarding.step(for: Self.event("n1", dismissed: true))
            #expect(r8 == .close(notificationID: "n1"))
            let r9 = forwarding.closing(notificationID: "n1")
            #expect(r9 == 7)
            let r10 = forwarding.response(to: .closed(id: 7, reason: 3))
            #expect(r10 == nil)
            let r11 = forwarding.step(for: ServerSentEvent(id: "2", event: "removed", data: #"{"id": "n2"}"#))
            #expect(r11 == .close(notificationID: "n2"))
            // Never shown: nothing to close.
            let r12 = forwarding.step(for: Self.event("n3", disposition: "listedSilently", dismissed: true))
            #expect(r12 == nil)
        }

        @Test("a button is that action; closed by the person is a dismissal unless answered; expired is nothing")
        func answers() {
            var forwarding = DesktopForwarding()
            for (index, id) in ["n1", "n2", "n3"].enumerated() {
                _ = forwarding.step(for: Self.event(id))
                forwarding.shown(notificationID: id, desktopID: UInt32(index + 1))
            }
            let r13 = forwarding.response(to: .actionInvoked(id: 1, key: "like"))
            #expect(r13 == .init(notificationID: "n1", action: "like"))
            let r14 = forwarding.response(to: .actionInvoked(id: 1, key: "like"))
            #expect(r14 == nil)
            let r15 = forwarding.response(to: .closed(id: 1, reason: 2))
            #expect(r15 == nil)
            let r16 = forwarding.response(to: .closed(id: 2, reason: 2))
            #expect(r16 == .init(notificationID: "n2", action: "dismiss"))
            let r17 = forwarding.response(to: .closed(id: 3, reason: 1))
            #expect(r17 == nil)
            let r18 = forwarding.response(to: .actionInvoked(id: 99, key: "like"))
            #expect(r18 == nil)
        }
    }
}
