// UNNotificationServiceExtension: an app's chance to change a push's content before it is shown
// (a subclass overrides both methods). Apple's base class hands back the content unchanged and
// does nothing at expiry; a subclass that does not call the handler gets the original content shown.
// Herald runs it for the app's alert pushes with `mutable-content: 1`: an extension is an executable
// whose `main` is one line, `NotificationService.main()` (ServiceExtensionHost.swift).
#if os(Linux)
    import Foundation

    open class UNNotificationServiceExtension: NSObject {
        /// Required: Herald's host makes one instance per push (`main()`).
        public required override init() {
            super.init()
        }

        /// Override to change the content; call the handler once with what to show.
        open func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            contentHandler(request.content)
        }

        /// Called when the time budget runs out: call the handler at once with a best attempt.
        open func serviceExtensionTimeWillExpire() {}
    }
#endif
