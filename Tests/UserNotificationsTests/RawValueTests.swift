// Every raw value against the reference's table (docs: ../shared/reference/usernotifications-api.md,
// sections 1, 10 and 12): an Apple client's stored or transmitted values mean the same here.
#if os(Linux)
    import Foundation
    import Intents
    import Testing
    import UserNotifications

    @Suite("Raw values are Apple's")
    struct RawValueTests {
        @Test("UNAuthorizationOptions")
        @available(*, deprecated, message: "reads the deprecated options on purpose")
        func authorizationOptions() {
            let table: [(UNAuthorizationOptions, UInt)] = [
                (.badge, 1), (.sound, 2), (.alert, 4), (.carPlay, 8), (.criticalAlert, 16),
                (.providesAppNotificationSettings, 32), (.provisional, 64), (.announcement, 128), (.timeSensitive, 256),
            ]
            for (option, value) in table { #expect(option.rawValue == value) }
        }

        @Test("UNNotificationPresentationOptions")
        @available(*, deprecated, message: "reads the deprecated .alert on purpose")
        func presentationOptions() {
            let table: [(UNNotificationPresentationOptions, UInt)] = [
                (.badge, 1), (.sound, 2), (.alert, 4), (.list, 8), (.banner, 16),
            ]
            for (option, value) in table { #expect(option.rawValue == value) }
        }

        @Test("the Int enumerations: status, setting, alert style, previews")
        func intEnumerations() {
            #expect(
                [UNAuthorizationStatus.notDetermined, .denied, .authorized, .provisional, .ephemeral].map(\.rawValue)
                    == [0, 1, 2, 3, 4])
            #expect([UNNotificationSetting.notSupported, .disabled, .enabled].map(\.rawValue) == [0, 1, 2])
            #expect([UNAlertStyle.none, .banner, .alert].map(\.rawValue) == [0, 1, 2])
            #expect([UNShowPreviewsSetting.always, .whenAuthenticated, .never].map(\.rawValue) == [0, 1, 2])
        }

        @Test("interruption levels, and .active is the default (of the enum and of new content)")
        func interruptionLevels() {
            #expect(
                [UNNotificationInterruptionLevel.passive, .active, .timeSensitive, .critical].map(\.rawValue)
                    == [0, 1, 2, 3])
            #expect(UNNotificationInterruptionLevel.default == .active)
            #expect(UNMutableNotificationContent().interruptionLevel == .active)
            #expect(UNNotificationInterruptionLevel(rawValue: 4) == nil)
        }

        @Test("action and category options")
        @available(*, deprecated, message: "reads the deprecated .allowAnnouncement on purpose")
        func actionAndCategoryOptions() {
            #expect(
                [UNNotificationActionOptions.authenticationRequired, .destructive, .foreground].map(\.rawValue)
                    == [1, 2, 4])
            let categories: [UNNotificationCategoryOptions] = [
                .customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle,
                .allowAnnouncement,
            ]
            #expect(categories.map(\.rawValue) == [1, 2, 4, 8, 16])
        }

        @Test("content extension enumerations")
        func contentExtensionEnumerations() {
            #expect(
                [UNNotificationContentExtensionMediaPlayPauseButtonType.none, .default, .overlay].map(\.rawValue)
                    == [0, 1, 2])
            #expect(
                [UNNotificationContentExtensionResponseOption.doNotDismiss, .dismiss, .dismissAndForwardAction].map(
                    \.rawValue) == [0, 1, 2])
        }

        @Test("UNError: domain and codes, and a thrown one is caught by code as Apple's is")
        func errors() throws {
            let table: [(UNError.Code, Int)] = [
                (.notificationsNotAllowed, 1), (.attachmentInvalidURL, 100), (.attachmentUnrecognizedType, 101),
                (.attachmentInvalidFileSize, 102), (.attachmentNotInDataStore, 103),
                (.attachmentMoveIntoDataStoreFailed, 104), (.attachmentCorrupt, 105),
                (.notificationInvalidNoDate, 1400),
                (.notificationInvalidNoContent, 1401), (.contentProvidingObjectNotAllowed, 1500),
                (.contentProvidingInvalid, 1501), (.badgeInputInvalid, 1600),
            ]
            for (code, value) in table {
                #expect(code.rawValue == value)
                #expect(UNError(code).errorCode == value)
            }
            #expect(UNError.errorDomain == "UNErrorDomain")
            #expect(UNErrorDomain == "UNErrorDomain")
            #expect(UNError.notificationsNotAllowed == .notificationsNotAllowed)

            func refuse() throws { throw UNError(.notificationsNotAllowed) }
            var caught = false
            do {
                try refuse()
            } catch let error as UNError where error.code == .notificationsNotAllowed {
                caught = true
            }
            #expect(caught)
            let bridged = UNError(.badgeInputInvalid) as NSError
            #expect(bridged.domain == "UNErrorDomain")
            #expect(bridged.code == 1600)
        }

        @Test("the response action identifiers")
        func actionIdentifiers() {
            #expect(UNNotificationDefaultActionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
            #expect(UNNotificationDismissActionIdentifier == "com.apple.UNNotificationDismissActionIdentifier")
        }

        @Test("Intents enumerations")
        func intentsEnumerations() {
            #expect([INPersonHandleType.unknown, .emailAddress, .phoneNumber].map(\.rawValue) == [0, 1, 2])
            #expect(
                [INPersonSuggestionType.none, .socialProfile, .instantMessageAddress].map(\.rawValue) == [0, 1, 2])
            #expect(
                [INOutgoingMessageType.unknown, .outgoingMessageText, .outgoingMessageAudio].map(\.rawValue) == [
                    0, 1, 2,
                ])
            #expect(
                [INCallDestinationType.unknown, .normal, .emergency, .voicemail, .redial, .callBack].map(\.rawValue)
                    == [0, 1, 2, 3, 4, 5])
            #expect([INCallCapability.unknown, .audioCall, .videoCall].map(\.rawValue) == [0, 1, 2])
            #expect(
                [INCallAudioRoute.unknown, .speakerphoneAudioRoute, .bluetoothAudioRoute].map(\.rawValue) == [0, 1, 2])
            #expect([INInteractionDirection.unspecified, .outgoing, .incoming].map(\.rawValue) == [0, 1, 2])
        }
    }
#endif
