// UNUserNotificationCenterDelegate: Apple's delegate protocol, each method with a default so an
// NSObject subclass that implements none of them conforms (Apple's are Objective-C optionals).
#if os(Linux)
    import Foundation

    /// Apple's delegate protocol. Apple's methods are Objective-C optionals; here each has a default
    /// implementation, so an `NSObject` subclass that implements none of them conforms.
    /// Apple's delegate: every method optional (each has a default here), and each of `willPresent`
    /// and `didReceive` in both spellings — implement either; Herald calls the async one, whose
    /// default calls the completion-handler one.
    public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void)
        func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
            -> UNNotificationPresentationOptions
        func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping @Sendable () -> Void)
        func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse)
            async
        func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?)
    }

    extension UNUserNotificationCenterDelegate {
        /// Not implemented: the notification is not presented while the app is in the foreground.
        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
        ) {
            completionHandler([])
        }

        /// Calls the completion-handler spelling.
        public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification)
            async -> UNNotificationPresentationOptions
        {
            await withCheckedContinuation { continuation in
                userNotificationCenter(center, willPresent: notification) { continuation.resume(returning: $0) }
            }
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping @Sendable () -> Void
        ) {
            completionHandler()
        }

        /// Calls the completion-handler spelling.
        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse
        )
            async
        {
            await withCheckedContinuation { continuation in
                userNotificationCenter(center, didReceive: response) { continuation.resume() }
            }
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?
        ) {}
    }
#endif
