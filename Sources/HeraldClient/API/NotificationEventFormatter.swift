import Foundation
import HeraldCore

/// One line per stream event for people (`herald watch`): time, app, title — body, and the level
/// and thread when the notification has them; a Scheduled Summary as its size and featured ones.
///
/// `14:03:07  com.example.app  Hello — World  [time-sensitive, thread chat-1]`
public struct NotificationEventFormatter: Sendable {
    /// The time zone the time is shown in.
    public var timeZone: TimeZone

    /// A formatter showing times in `timeZone`.
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// The line for `event`; events whose data is not a notification object are shown as they are.
    public func line(for event: ServerSentEvent) -> String {
        guard let notification = (try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)))?.objectValue
        else {
            return "\(event.event): \(event.data)"
        }
        if event.event == "badge" { return Self.badgeLine(notification) }
        if event.event == "summary" { return summaryLine(notification) }
        if event.event == "authorization_requests" { return Self.authorizationLine(notification) }
        if event.event == "focus" { return "focus  \(notification["reason"]?.stringValue ?? event.data)" }
        if event.event == "state" { return Self.stateLine(notification) }
        let time = Self.date(notification["received_at"]?.stringValue).map(clockTime) ?? "--:--:--"
        let app = notification["bundle_id"]?.stringValue ?? notification["topic"]?.stringValue ?? "?"
        if event.event == "removed" {
            return "\(time)  \(app)  removed \(notification["id"]?.stringValue ?? "")"
        }

        // What the device shows: the decision's `display` (a hidden preview's placeholder, a
        // localized alert) when there is one, else the alert as sent.
        let alert = notification["display"]?.objectValue ?? notification["alert"]?.objectValue
        let title = [alert?["title"]?.stringValue, alert?["subtitle"]?.stringValue]
            .compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }
            .joined(separator: " · ")
        let body = alert?["body"]?.stringValue ?? ""
        var text = [title, body].filter { !$0.isEmpty }.joined(separator: " — ")
        if text.isEmpty {
            text = "(\(notification["push_type"]?.stringValue ?? "no alert"))"
        }

        var details: [String] = []
        if let level = notification["interruption_level"]?.stringValue { details.append(level) }
        if let disposition = notification["disposition"]?.stringValue, disposition != "alerted" {
            details.append(disposition)
        }
        if let thread = notification["thread_id"]?.stringValue { details.append("thread \(thread)") }
        if notification["dismissed_at"]?.stringValue != nil {
            details.append("dismissed")
        } else if notification["read_at"]?.stringValue != nil {
            details.append("read")
        }
        let suffix = details.isEmpty ? "" : "  [\(details.joined(separator: ", "))]"
        return "\(time)  \(app)  \(text)\(suffix)"
    }

    /// The category's actions the decision offers (`decision.actions`), in order: identifier,
    /// title, and the text-input button title when the action asks for text.
    public static func actions(of event: ServerSentEvent) -> [(identifier: String, title: String, textInput: String?)] {
        guard event.event == "notification",
            let notification = (try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)))?.objectValue,
            notification["dismissed_at"]?.stringValue == nil,
            case .array(let list)? = notification["decision"]?.objectValue?["actions"]
        else { return [] }
        return list.compactMap { item in
            guard let action = item.objectValue, let identifier = action["identifier"]?.stringValue,
                let title = action["title"]?.stringValue
            else { return nil }
            let textInput = action["text_input"]?.objectValue.map { $0["button_title"]?.stringValue ?? "Send" }
            return (identifier, title, textInput)
        }
    }

    /// A `state` event: `state  unlocked, ringer on, audio headphones, in front: com.example.app`.
    static func stateLine(_ state: [String: JSONValue]) -> String {
        var parts: [String] = []
        if case .bool(let locked)? = state["locked"] { parts.append(locked ? "locked" : "unlocked") }
        if case .bool(let silent)? = state["ringer_silent"] { parts.append(silent ? "ringer silent" : "ringer on") }
        if let route = state["audio_route"]?.stringValue { parts.append("audio \(route)") }
        if let app = state["foreground_app"]?.stringValue { parts.append("in front: \(app)") }
        return "state  " + parts.joined(separator: ", ")
    }

    /// An `authorization_requests` event: the apps asking for permission, and how to answer.
    /// `authorization  com.example.app asks for alert, sound (herald authorize 3f2… --allow|--deny)`
    static func authorizationLine(_ object: [String: JSONValue]) -> String {
        var requests: [JSONValue] = []
        if case .array(let list)? = object["requests"] { requests = list }
        guard !requests.isEmpty else { return "authorization  no app is asking" }
        return requests.map { request in
            let app = request.objectValue?["bundle_id"]?.stringValue ?? "?"
            var options: [String] = []
            if case .array(let list)? = request.objectValue?["options"] { options = list.compactMap(\.stringValue) }
            let id = request.objectValue?["id"]?.stringValue ?? "?"
            let asked = options.isEmpty ? "permission" : options.joined(separator: ", ")
            return "authorization  \(app) asks for \(asked) (herald authorize \(id) --allow|--deny)"
        }.joined(separator: "\n")
    }

    /// A `summary` event: `08:00:00  summary  12 notifications from 3 apps; featured: com.example.app Hello — World; …`.
    private func summaryLine(_ summary: [String: JSONValue]) -> String {
        let time = Self.date(summary["slot"]?.stringValue).map(clockTime) ?? "--:--:--"
        var apps: [JSONValue] = []
        if case .array(let list)? = summary["apps"] { apps = list }
        var count = 0
        var featured: [String] = []
        for app in apps {
            guard let app = app.objectValue else { continue }
            var items: [JSONValue] = []
            if case .array(let list)? = app["notifications"] { items = list }
            count += items.count
            for item in items {
                guard let item = item.objectValue, item["featured"] == .bool(true) else { continue }
                let alert = item["notification"]?.objectValue?["alert"]?.objectValue
                let text = [alert?["title"]?.stringValue, alert?["body"]?.stringValue]
                    .compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }
                    .joined(separator: " — ")
                featured.append(
                    "\(app["bundle_id"]?.stringValue ?? "?") \(text.isEmpty ? item["id"]?.stringValue ?? "" : text)")
            }
        }
        let head =
            "\(time)  summary  \(count) notification\(count == 1 ? "" : "s") from \(apps.count) app\(apps.count == 1 ? "" : "s")"
        return featured.isEmpty ? head : "\(head); featured: \(featured.joined(separator: "; "))"
    }

    /// A `badge` event: `badges  total 5  (com.example.app 3, com.example.mail 2)`.
    private static func badgeLine(_ badges: [String: JSONValue]) -> String {
        func count(_ value: JSONValue?) -> String {
            if case .number(let number)? = value { return String(Int(number)) }
            return "?"
        }
        var items: [JSONValue] = []
        if case .array(let list)? = badges["apps"] { items = list }
        let apps = items.compactMap { app -> String? in
            guard let object = app.objectValue else { return nil }
            return "\(object["bundle_id"]?.stringValue ?? "?") \(count(object["badge"]))"
        }
        return "badges  total \(count(badges["badge_total"]))"
            + (apps.isEmpty ? "" : "  (\(apps.joined(separator: ", ")))")
    }

    private func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    private static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
