import Foundation
import HeraldCore
import HeraldLocalization

/// What the device shows for a notification: title, subtitle and body, after everything the device
/// does to the `alert` as sent. Kept in the stored decision (`display`), so the list, the stream and
/// the decision endpoint show the same text.
///
/// In order:
/// 1. loc keys (`title-loc-key`, `subtitle-loc-key`, `loc-key` with their `…-loc-args`) are resolved
///    in the locale of the decision (the device's, else the user's, else `en`) with the app's
///    localizations and Apple's fallback, to the key itself when no table has it (`resolveAlert`);
/// 2. a communication notification (entitled, with a valid `communication` key) shows the sender's
///    name as the title and, for a group, the group name (else the other recipients' names, when
///    there are several) as the subtitle, as `updating(from:)` does;
/// 3. a hidden preview shows the category's placeholder (`%u` = the thread count, pluralized for the
///    locale) as the body, and the title and subtitle only with the category's show-title and
///    show-subtitle options.
///
/// A notification none of these apply to (no loc key, not communication, preview shown) has no
/// `display` in its decision: it shows its `alert` as sent, and computing it costs nothing.
public struct NotificationDisplay: Codable, Sendable, Hashable {
    public var title: String?
    public var subtitle: String?
    public var body: String?

    public init(title: String?, subtitle: String?, body: String?) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    /// Every key written, absent ones as `null`, like the API's `alert`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(subtitle, forKey: .subtitle)
        try container.encode(body, forKey: .body)
    }

    /// What the device shows, or nil when that is the `alert` as sent (or there is no alert).
    /// `communication` is the content the decision treats as communication (nil when it does not).
    public static func make(
        alert: Alert?, communication: CommunicationContent?, preview: PreviewDecision,
        localizations: @autoclosure () -> AppLocalizations, locale: String
    ) -> NotificationDisplay? {
        guard let alert else { return nil }
        let localized = alert.titleLocKey != nil || alert.subtitleLocKey != nil || alert.locKey != nil
        guard localized || communication != nil || preview.isHidden else { return nil }
        var display = NotificationDisplay(title: alert.title, subtitle: alert.subtitle, body: alert.body)
        let tables = localized || preview.isHidden ? localizations() : AppLocalizations()
        if localized {
            let resolved = resolveAlert(
                title: alert.title, titleLocKey: alert.titleLocKey, titleLocArgs: alert.titleLocArgs,
                subtitle: alert.subtitle, subtitleLocKey: alert.subtitleLocKey, subtitleLocArgs: alert.subtitleLocArgs,
                body: alert.body, locKey: alert.locKey, locArgs: alert.locArgs, localizations: tables, locale: locale
            )
            display = NotificationDisplay(title: resolved.title, subtitle: resolved.subtitle, body: resolved.body)
        }
        if let communication {
            display.title = communication.sender.name
            if let group = communication.group {
                display.subtitle = group
            } else if communication.recipients.count > 1 {
                display.subtitle = communication.recipients.map(\.name).joined(separator: ", ")
            }
        }
        if case .hidden(let hidden) = preview {
            display.body = hidden.body(localizations: tables)
            if !hidden.showsTitle { display.title = nil }
            if !hidden.showsSubtitle { display.subtitle = nil }
        }
        return display
    }
}
