// UNNotificationSettings: what the person allows the app (read-only). Herald's wiring makes it from
// the device's user settings; apps only read it.
#if os(Linux)
    import Foundation

    open class UNNotificationSettings: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        /// Every field, in one struct so that the wiring fills them at once and coding sees all of them.
        package struct Values: Hashable, Sendable {
            package var authorizationStatus: UNAuthorizationStatus = .notDetermined
            package var soundSetting: UNNotificationSetting = .notSupported
            package var badgeSetting: UNNotificationSetting = .notSupported
            package var alertSetting: UNNotificationSetting = .notSupported
            package var notificationCenterSetting: UNNotificationSetting = .notSupported
            package var lockScreenSetting: UNNotificationSetting = .notSupported
            package var carPlaySetting: UNNotificationSetting = .notSupported
            package var alertStyle: UNAlertStyle = .none
            package var showPreviewsSetting: UNShowPreviewsSetting = .always
            package var criticalAlertSetting: UNNotificationSetting = .notSupported
            package var providesAppNotificationSettings = false
            package var announcementSetting: UNNotificationSetting = .notSupported
            package var timeSensitiveSetting: UNNotificationSetting = .notSupported
            package var scheduledDeliverySetting: UNNotificationSetting = .notSupported
            package var directMessagesSetting: UNNotificationSetting = .notSupported

            package init() {}
        }

        package let values: Values

        /// Made by Herald's wiring from the device's settings, never by an app.
        package init(values: Values) {
            self.values = values
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotificationSettings() is unavailable") }

        open var authorizationStatus: UNAuthorizationStatus { values.authorizationStatus }
        open var soundSetting: UNNotificationSetting { values.soundSetting }
        open var badgeSetting: UNNotificationSetting { values.badgeSetting }
        open var alertSetting: UNNotificationSetting { values.alertSetting }
        open var notificationCenterSetting: UNNotificationSetting { values.notificationCenterSetting }
        open var lockScreenSetting: UNNotificationSetting { values.lockScreenSetting }
        open var carPlaySetting: UNNotificationSetting { values.carPlaySetting }
        open var alertStyle: UNAlertStyle { values.alertStyle }
        open var showPreviewsSetting: UNShowPreviewsSetting { values.showPreviewsSetting }
        open var criticalAlertSetting: UNNotificationSetting { values.criticalAlertSetting }
        open var providesAppNotificationSettings: Bool { values.providesAppNotificationSettings }
        open var announcementSetting: UNNotificationSetting { values.announcementSetting }
        open var timeSensitiveSetting: UNNotificationSetting { values.timeSensitiveSetting }
        open var scheduledDeliverySetting: UNNotificationSetting { values.scheduledDeliverySetting }
        open var directMessagesSetting: UNNotificationSetting { values.directMessagesSetting }

        open override func isEqual(_ object: Any?) -> Bool {
            (object as? UNNotificationSettings)?.values == values
        }

        open override var hash: Int { values.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        private static var settingKeys: [(String, WritableKeyPath<Values, UNNotificationSetting>)] {
            [
                ("soundSetting", \.soundSetting), ("badgeSetting", \.badgeSetting), ("alertSetting", \.alertSetting),
                ("notificationCenterSetting", \.notificationCenterSetting), ("lockScreenSetting", \.lockScreenSetting),
                ("carPlaySetting", \.carPlaySetting), ("criticalAlertSetting", \.criticalAlertSetting),
                ("announcementSetting", \.announcementSetting), ("timeSensitiveSetting", \.timeSensitiveSetting),
                ("scheduledDeliverySetting", \.scheduledDeliverySetting),
                ("directMessagesSetting", \.directMessagesSetting),
            ]
        }

        open func encode(with coder: NSCoder) {
            coder.encode(values.authorizationStatus.rawValue, forKey: "authorizationStatus")
            for (key, path) in Self.settingKeys { coder.encode(values[keyPath: path].rawValue, forKey: key) }
            coder.encode(values.alertStyle.rawValue, forKey: "alertStyle")
            coder.encode(values.showPreviewsSetting.rawValue, forKey: "showPreviewsSetting")
            coder.encode(values.providesAppNotificationSettings, forKey: "providesAppNotificationSettings")
        }

        public required init?(coder: NSCoder) {
            var values = Values()
            guard let status = UNAuthorizationStatus(rawValue: coder.decodeInteger(forKey: "authorizationStatus")),
                let style = UNAlertStyle(rawValue: coder.decodeInteger(forKey: "alertStyle")),
                let previews = UNShowPreviewsSetting(rawValue: coder.decodeInteger(forKey: "showPreviewsSetting"))
            else { return nil }
            values.authorizationStatus = status
            values.alertStyle = style
            values.showPreviewsSetting = previews
            for (key, path) in Self.settingKeys {
                guard let setting = UNNotificationSetting(rawValue: coder.decodeInteger(forKey: key)) else {
                    return nil
                }
                values[keyPath: path] = setting
            }
            values.providesAppNotificationSettings = coder.decodeBool(forKey: "providesAppNotificationSettings")
            self.values = values
            super.init()
        }
    }
#endif
