import Crypto
import Foundation

/// The document a content extension runs in: the app's HTML with Herald's bridge script first, served
/// at `GET /v1/content-extension-frames/{bundle_id}?expires=&signature=` to a sandboxed `<iframe>`.
///
/// The frame's URL carries a ticket, not the user's token: the extension is the app's code and can
/// read its own address. The ticket (an HMAC of the bundle id and an expiry, keyed from the admin
/// token) lets that URL read this one document for 10 minutes and nothing else.
enum ContentExtensionFrame {
    static let lifetime: TimeInterval = 600

    /// The extension's own policy: it runs sandboxed (scripts, no same origin: no cookies, no storage
    /// of Herald's origin, no reach into the page), loads nothing from anywhere, talks only to the page.
    static let securityPolicy =
        "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        + "img-src data: blob:; media-src data: blob:; font-src data:"

    static func key(adminToken: String) -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Data("herald content-extension frames\n\(adminToken)".utf8)))
    }

    static func signature(bundleID: String, expires: Int64, key: SymmetricKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(bundleID)\n\(expires)".utf8), using: key)
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The frame's path for `bundleID`, valid until `now` + 10 minutes.
    static func path(bundleID: String, now: Date, key: SymmetricKey) -> String {
        let expires = Int64(now.timeIntervalSince1970 + lifetime)
        let escaped = bundleID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? ""
        return "/v1/content-extension-frames/\(escaped)?expires=\(expires)&signature="
            + signature(bundleID: bundleID, expires: expires, key: key)
    }

    /// Whether a ticket is this server's for `bundleID` and has not expired.
    static func isValid(bundleID: String, expires: String?, signature given: String?, now: Date, key: SymmetricKey)
        -> Bool
    {
        guard let expires = expires.flatMap(Int64.init), let given,
            Double(expires) > now.timeIntervalSince1970, Double(expires) <= now.timeIntervalSince1970 + lifetime
        else { return false }
        let expected = Array(signature(bundleID: bundleID, expires: expires, key: key).utf8)
        let received = Array(given.utf8)
        guard expected.count == received.count else { return false }
        return zip(expected, received).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The app's HTML with the bridge first (after its doctype, so the page keeps standards mode).
    static func document(html: String) -> String {
        let bridge = "<script>\(bridgeScript)</script>"
        if html.prefix(9).lowercased() == "<!doctype", let end = html.firstIndex(of: ">") {
            return String(html[...end]) + bridge + String(html[html.index(after: end)...])
        }
        return "<!doctype html><meta charset=\"utf-8\">" + bridge + html
    }

    /// `window.herald`, the extension's side of the page's messages (Apple's
    /// `UNNotificationContentExtension` and its `extensionContext`):
    /// - `herald.onNotification(fn)`: `didReceive(_ notification:)` — fn gets the notification as shown.
    /// - `herald.onAction(fn)`: `didReceive(_ response:completionHandler:)` — fn gets
    ///   `{actionIdentifier, userText}` and returns (or resolves to) `"doNotDismiss"`, `"dismiss"` or
    ///   `"dismissAndForwardAction"`. Without it, every action is forwarded to the app.
    /// - `herald.onMediaPlay(fn)`, `herald.onMediaPause(fn)`: `mediaPlay()` / `mediaPause()`;
    ///   `herald.mediaPlayingStarted()`, `herald.mediaPlayingPaused()` tell the page.
    /// - `herald.setTitle(text)` (with overrides-default-title), `herald.setContentSizeRatio(r)`,
    ///   `herald.dismiss()`, `herald.performDefaultAction()`.
    static let bridgeScript = #"""
        (() => {
          const handlers = { notification: [], action: null, play: null, pause: null, last: null };
          const post = (message) => parent.postMessage(Object.assign({ heraldExtension: true }, message), "*");
          window.herald = {
            onNotification(fn) { handlers.notification.push(fn); if (handlers.last) fn(handlers.last); },
            onAction(fn) { handlers.action = fn; post({ type: "handles-actions" }); },
            onMediaPlay(fn) { handlers.play = fn; },
            onMediaPause(fn) { handlers.pause = fn; },
            mediaPlayingStarted() { post({ type: "media-state", playing: true }); },
            mediaPlayingPaused() { post({ type: "media-state", playing: false }); },
            setTitle(title) { post({ type: "title", title: String(title) }); },
            setContentSizeRatio(ratio) { post({ type: "size", ratio: Number(ratio) }); },
            dismiss() { post({ type: "dismiss" }); },
            performDefaultAction() { post({ type: "default-action" }); },
          };
          window.addEventListener("message", async (event) => {
            if (event.source !== parent) return;
            const m = event.data || {};
            if (m.type === "notification") {
              handlers.last = m.notification;
              for (const fn of handlers.notification) fn(m.notification);
            } else if (m.type === "action") {
              let option = "dismissAndForwardAction";
              if (handlers.action) {
                try { option = String(await handlers.action(m.response)); } catch (error) { option = "dismiss"; }
              }
              post({ type: "action-result", id: m.id, option });
            } else if (m.type === "media") {
              const fn = m.command === "play" ? handlers.play : handlers.pause;
              if (fn) fn();
            }
          });
          post({ type: "ready" });
        })();
        """#
}
