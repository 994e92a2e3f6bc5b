// The app API's JSON for UserNotifications' types, both ways: content, triggers, requests, delivered
// notifications, categories and settings. The server's side of each shape is in HeraldAPI
// (`LocalContentJSON`, `AppRoutes`, `CategoryJSON`, `AppSettingsJSON`); triggers share one codec
// (`LocalTrigger`, HeraldTriggers).
#if os(Linux)
    import CoreLocation
    import Foundation
    import HeraldTriggers

    package enum HeraldWireFormat {
        // MARK: Content

        static let levelNames: [(String, UNNotificationInterruptionLevel)] = [
            ("passive", .passive), ("active", .active), ("time-sensitive", .timeSensitive), ("critical", .critical),
        ]

        /// The content as the app API takes it (`LocalContentJSON`).
        package static func json(_ content: UNNotificationContent) throws -> [String: Any] {
            let values = content.values
            var object: [String: Any] = [
                "title": values.title, "subtitle": values.subtitle, "body": values.body,
                "launch_image_name": values.launchImageName, "thread_identifier": values.threadIdentifier,
                "category_identifier": values.categoryIdentifier, "summary_argument": values.summaryArgument,
                "summary_argument_count": max(1, values.summaryArgumentCount),
                "interruption_level": levelNames.first { $0.1 == values.interruptionLevel }?.0 ?? "active",
                // Apple documents the score as 0…1; values outside are clamped, as the summary does.
                "relevance_score": min(max(values.relevanceScore.isFinite ? values.relevanceScore : 0, 0), 1),
            ]
            if let badge = values.badge { object["badge"] = badge.intValue }
            if let target = values.targetContentIdentifier { object["target_content_identifier"] = target }
            if let filter = values.filterCriteria { object["filter_criteria"] = filter }
            if let sound = values.sound {
                var json: [String: Any] = ["critical": sound.kind == .critical]
                json["name"] = sound.soundName?.rawValue ?? NSNull()
                if sound.kind == .critical, let volume = sound.audioVolume { json["volume"] = Double(volume) }
                object["sound"] = json
            }
            if let communication = values.communication { object["communication"] = json(communication) }
            if !values.userInfo.isEmpty {
                var userInfo: [String: Any] = [:]
                for (key, value) in values.userInfo {
                    guard let name = key.base as? String else {
                        throw UNUserNotificationCenter.HeraldError(
                            status: 0, code: "invalid_user_info", message: "userInfo keys must be strings for Herald.")
                    }
                    userInfo[name] = value
                }
                guard JSONSerialization.isValidJSONObject(userInfo) else {
                    throw UNUserNotificationCenter.HeraldError(
                        status: 0, code: "invalid_user_info",
                        message:
                            "userInfo must hold only strings, numbers, booleans, arrays and dictionaries for Herald.")
                }
                object["user_info"] = userInfo
            }
            return object
        }

        /// A pending request's content as the app API returns it.
        static func content(json object: [String: Any]) -> UNNotificationContent {
            var values = UNNotificationContentValues()
            values.title = object["title"] as? String ?? ""
            values.subtitle = object["subtitle"] as? String ?? ""
            values.body = object["body"] as? String ?? ""
            values.launchImageName = object["launch_image_name"] as? String ?? ""
            values.badge = (object["badge"] as? NSNumber).map { NSNumber(value: $0.intValue) }
            values.threadIdentifier = object["thread_identifier"] as? String ?? ""
            values.categoryIdentifier = object["category_identifier"] as? String ?? ""
            values.targetContentIdentifier = object["target_content_identifier"] as? String
            values.summaryArgument = object["summary_argument"] as? String ?? ""
            values.summaryArgumentCount = max(1, (object["summary_argument_count"] as? NSNumber)?.intValue ?? 1)
            values.filterCriteria = object["filter_criteria"] as? String
            if let level = object["interruption_level"] as? String {
                values.interruptionLevel = levelNames.first { $0.0 == level }?.1 ?? .active
            }
            values.relevanceScore = (object["relevance_score"] as? NSNumber)?.doubleValue ?? 0
            if let sound = object["sound"] as? [String: Any] {
                let name = (sound["name"] as? String).map(UNNotificationSoundName.init(rawValue:))
                let critical = (sound["critical"] as? Bool) ?? false
                values.sound = UNNotificationSound(
                    soundName: name, kind: critical ? .critical : .normal,
                    audioVolume: (sound["volume"] as? NSNumber).map { $0.floatValue })
            }
            if let userInfo = object["user_info"] as? [String: Any] {
                values.userInfo = Dictionary(uniqueKeysWithValues: userInfo.map { (AnyHashable($0.key), $0.value) })
            }
            values.communication = communication(json: object["communication"])
            return UNNotificationContent(values: values)
        }

        /// A delivered notification's content, from its payload (`aps` and the keys beside it). A
        /// push's `userInfo` is its whole payload, as on iOS; a local notification's is what the app
        /// gave (the payload without `aps`).
        static func content(payload: [String: Any], isLocal: Bool) -> UNNotificationContent {
            var values = UNNotificationContentValues()
            let aps = payload["aps"] as? [String: Any] ?? [:]
            if let alert = aps["alert"] as? String {
                values.body = alert
            } else if let alert = aps["alert"] as? [String: Any] {
                values.title = alert["title"] as? String ?? ""
                values.subtitle = alert["subtitle"] as? String ?? ""
                values.body = alert["body"] as? String ?? ""
                values.launchImageName = alert["launch-image"] as? String ?? ""
            }
            if let badge = aps["badge"] as? NSNumber { values.badge = NSNumber(value: badge.intValue) }
            if let name = aps["sound"] as? String {
                values.sound = UNNotificationSound(
                    soundName: name == "default" ? nil : UNNotificationSoundName(rawValue: name), kind: .normal,
                    audioVolume: nil)
            } else if let sound = aps["sound"] as? [String: Any] {
                let name = sound["name"] as? String
                let critical = (sound["critical"] as? NSNumber)?.intValue == 1
                values.sound = UNNotificationSound(
                    soundName: name == nil || name == "default" ? nil : UNNotificationSoundName(rawValue: name!),
                    kind: critical ? .critical : .normal, audioVolume: (sound["volume"] as? NSNumber)?.floatValue)
            }
            values.threadIdentifier = aps["thread-id"] as? String ?? ""
            values.categoryIdentifier = aps["category"] as? String ?? ""
            values.targetContentIdentifier = aps["target-content-id"] as? String
            values.summaryArgument = aps["summary-arg"] as? String ?? ""
            values.summaryArgumentCount = max(1, (aps["summary-arg-count"] as? NSNumber)?.intValue ?? 1)
            values.filterCriteria = aps["filter-criteria"] as? String
            if let level = aps["interruption-level"] as? String {
                values.interruptionLevel = levelNames.first { $0.0 == level }?.1 ?? .active
            }
            values.relevanceScore = (aps["relevance-score"] as? NSNumber)?.doubleValue ?? 0
            values.communication = communication(json: payload["communication"])
            var userInfo = payload
            if isLocal {
                // The keys Herald wrote from the content's own fields, not the app's userInfo.
                userInfo["aps"] = nil
                userInfo["communication"] = nil
            }
            values.userInfo = Dictionary(uniqueKeysWithValues: userInfo.map { (AnyHashable($0.key), $0.value) })
            return UNNotificationContent(values: values)
        }

        // MARK: Triggers

        /// The trigger as the app API takes it; nil for none. A location trigger cannot be scheduled
        /// by Herald yet.
        static func json(_ trigger: UNNotificationTrigger?) throws -> [String: Any]? {
            switch trigger {
            case nil: return nil
            case let trigger as UNTimeIntervalNotificationTrigger:
                return LocalTrigger.timeInterval(trigger.timeInterval, repeats: trigger.repeats).jsonObject
            case let trigger as UNCalendarNotificationTrigger:
                return LocalTrigger.calendar(trigger.dateComponents, repeats: trigger.repeats).jsonObject
            case let trigger as UNLocationNotificationTrigger:
                guard let region = trigger.region as? CLCircularRegion else {
                    throw UNUserNotificationCenter.HeraldError(
                        status: 0, code: "unsupported_trigger",
                        message: "A location trigger's region must be a CLCircularRegion.")
                }
                return LocalTrigger.location(
                    LocationRegion(
                        identifier: region.identifier,
                        center: Coordinate(latitude: region.center.latitude, longitude: region.center.longitude),
                        radius: region.radius, notifiesOnEntry: region.notifyOnEntry,
                        notifiesOnExit: region.notifyOnExit),
                    repeats: trigger.repeats
                ).jsonObject
            default:
                throw UNUserNotificationCenter.HeraldError(
                    status: 0, code: "unsupported_trigger", message: "An app cannot schedule this kind of trigger.")
            }
        }

        static func trigger(json: Any?) -> UNNotificationTrigger? {
            guard let json, !(json is NSNull), let trigger = try? LocalTrigger(jsonObject: json) else { return nil }
            switch trigger {
            case .timeInterval(let interval, let repeats):
                return UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats)
            case .calendar(let components, let repeats):
                return UNCalendarNotificationTrigger(dateMatching: components, repeats: repeats)
            case .location(let region, let repeats):
                let circle = CLCircularRegion(
                    center: CLLocationCoordinate2D(
                        latitude: region.center.latitude, longitude: region.center.longitude),
                    radius: region.radius, identifier: region.identifier)
                circle.notifyOnEntry = region.notifiesOnEntry
                circle.notifyOnExit = region.notifiesOnExit
                return UNLocationNotificationTrigger(region: circle, repeats: repeats)
            }
        }

        // MARK: Requests and notifications

        static func request(json object: [String: Any]) -> UNNotificationRequest? {
            guard let identifier = object["identifier"] as? String else { return nil }
            return UNNotificationRequest(
                identifier: identifier, content: content(json: object["content"] as? [String: Any] ?? [:]),
                trigger: trigger(json: object["trigger"]))
        }

        /// A delivered notification; `files` are the local copies of its attachments and avatar by
        /// attachment id (`HeraldConnection.notification(json:)`): those without one are left out.
        static func notification(json object: [String: Any], files: [String: URL] = [:]) -> UNNotification? {
            guard let identifier = object["identifier"] as? String,
                let date = (object["date"] as? String).flatMap(parseDate),
                let row = object["notification"] as? [String: Any]
            else { return nil }
            let isLocal = object["source"] as? String == "local"
            let trigger: UNNotificationTrigger? =
                isLocal ? trigger(json: object["trigger"]) : UNPushNotificationTrigger()
            var content = content(payload: row["payload"] as? [String: Any] ?? [:], isLocal: isLocal)
            if !files.isEmpty {
                var values = content.values
                values.attachments = (row["attachments"] as? [[String: Any]] ?? []).compactMap { item in
                    guard let id = item["id"] as? String, let url = files[id] else { return nil }
                    return UNNotificationAttachment(
                        identifier: item["identifier"] as? String ?? "", url: url, type: item["type"] as? String ?? "",
                        options: [
                            UNNotificationAttachmentOptionsThumbnailHiddenKey: item["thumbnail_hidden"] as? Bool
                                ?? false
                        ])
                }
                if let avatar = (row["avatar"] as? [String: Any])?["id"] as? String, let url = files[avatar] {
                    values.communication?.avatar = .url(url)
                }
                content = UNNotificationContent(values: values)
            }
            return UNNotification(
                date: date, request: UNNotificationRequest(identifier: identifier, content: content, trigger: trigger))
        }

        static func parseDate(_ text: String) -> Date? {
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            return (try? style.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
        }

        // MARK: Categories

        static let actionOptionNames: [(String, UNNotificationActionOptions)] = [
            ("authentication_required", .authenticationRequired), ("destructive", .destructive),
            ("foreground", .foreground),
        ]
        static let categoryOptionNames: [(String, UNNotificationCategoryOptions)] = [
            ("custom_dismiss_action", .customDismissAction), ("allow_in_car_play", .allowInCarPlay),
            ("hidden_previews_show_title", .hiddenPreviewsShowTitle),
            ("hidden_previews_show_subtitle", .hiddenPreviewsShowSubtitle),
        ]

        package static func json(_ category: UNNotificationCategory) -> [String: Any] {
            var object: [String: Any] = [
                "identifier": category.identifier,
                "actions": category.actions.map(json(action:)),
                "intent_identifiers": category.intentIdentifiers,
                "options": categoryOptionNames.filter { category.options.contains($0.1) }.map(\.0),
            ]
            object["hidden_previews_body_placeholder"] =
                category.hiddenPreviewsBodyPlaceholder.isEmpty ? NSNull() : category.hiddenPreviewsBodyPlaceholder
            object["category_summary_format"] =
                category.categorySummaryFormat.isEmpty ? NSNull() : category.categorySummaryFormat
            return object
        }

        static func json(action: UNNotificationAction) -> [String: Any] {
            var object: [String: Any] = [
                "identifier": action.identifier, "title": action.title,
                "options": actionOptionNames.filter { action.options.contains($0.1) }.map(\.0),
            ]
            switch action.icon?.source {
            case .systemImage(let name)?: object["icon"] = ["system_image_name": name]
            case .templateImage(let name)?: object["icon"] = ["template_image_name": name]
            case nil: object["icon"] = NSNull()
            }
            if let input = action as? UNTextInputNotificationAction {
                object["text_input"] = [
                    "button_title": input.textInputButtonTitle, "placeholder": input.textInputPlaceholder,
                ]
            } else {
                object["text_input"] = NSNull()
            }
            return object
        }

        static func category(json object: [String: Any]) -> UNNotificationCategory? {
            guard let identifier = object["identifier"] as? String else { return nil }
            let actions = (object["actions"] as? [[String: Any]] ?? []).compactMap(action(json:))
            let names = Set(object["options"] as? [String] ?? [])
            var options: UNNotificationCategoryOptions = []
            for (name, option) in categoryOptionNames where names.contains(name) { options.insert(option) }
            return UNNotificationCategory(
                identifier: identifier, actions: actions,
                intentIdentifiers: object["intent_identifiers"] as? [String] ?? [],
                hiddenPreviewsBodyPlaceholder: object["hidden_previews_body_placeholder"] as? String,
                categorySummaryFormat: object["category_summary_format"] as? String, options: options)
        }

        static func action(json object: [String: Any]) -> UNNotificationAction? {
            guard let identifier = object["identifier"] as? String, let title = object["title"] as? String else {
                return nil
            }
            let names = Set(object["options"] as? [String] ?? [])
            var options: UNNotificationActionOptions = []
            for (name, option) in actionOptionNames where names.contains(name) { options.insert(option) }
            var icon: UNNotificationActionIcon?
            if let json = object["icon"] as? [String: Any] {
                if let name = json["system_image_name"] as? String {
                    icon = UNNotificationActionIcon(source: .systemImage(name))
                } else if let name = json["template_image_name"] as? String {
                    icon = UNNotificationActionIcon(source: .templateImage(name))
                }
            }
            if let input = object["text_input"] as? [String: Any] {
                return UNTextInputNotificationAction(
                    identifier: identifier, title: title, options: options, icon: icon,
                    textInputButtonTitle: input["button_title"] as? String ?? "",
                    textInputPlaceholder: input["placeholder"] as? String ?? "")
            }
            return UNNotificationAction(identifier: identifier, title: title, options: options, icon: icon)
        }

        // MARK: Authorization

        static let authorizationOptionNames: [(String, UNAuthorizationOptions)] = [
            ("badge", .badge), ("sound", .sound), ("alert", .alert), ("car_play", .carPlay),
            ("critical_alert", .criticalAlert),
            ("provides_app_notification_settings", .providesAppNotificationSettings),
            ("provisional", .provisional), ("announcement", .announcement), ("time_sensitive", .timeSensitive),
        ]

        static func names(_ options: UNAuthorizationOptions) -> [String] {
            authorizationOptionNames.filter { options.contains($0.1) }.map(\.0)
        }

        /// A `willPresent` answer as Herald takes it; Apple's deprecated `.alert` is a banner and a
        /// list entry.
        static func names(_ options: UNNotificationPresentationOptions) -> [String] {
            var names: [String] = []
            if options.contains(.banner) || options.contains(.alert) { names.append("banner") }
            if options.contains(.list) || options.contains(.alert) { names.append("list") }
            if options.contains(.sound) { names.append("sound") }
            if options.contains(.badge) { names.append("badge") }
            return names
        }

        // MARK: Settings

        static func settings(json object: [String: Any]) -> UNNotificationSettings {
            let settings = object["settings"] as? [String: Any] ?? [:]
            func setting(_ key: String) -> UNNotificationSetting {
                switch settings[key] as? String {
                case "enabled": .enabled
                case "disabled": .disabled
                default: .notSupported
                }
            }
            var values = UNNotificationSettings.Values()
            values.authorizationStatus =
                switch settings["authorization_status"] as? String {
                case "denied": .denied
                case "authorized": .authorized
                case "provisional": .provisional
                case "ephemeral": .ephemeral
                default: .notDetermined
                }
            let allowed = [.authorized, .provisional, .ephemeral].contains(values.authorizationStatus)
            values.soundSetting = setting("sound")
            values.badgeSetting = setting("badge")
            values.lockScreenSetting = setting("lock_screen")
            values.notificationCenterSetting = setting("notification_center")
            values.carPlaySetting = setting("car_play")
            values.alertStyle =
                switch settings["alert_style"] as? String {
                case "banner": .banner
                case "alert": .alert
                default: .none
                }
            // Alerts are on when the app may alert at all and its style shows something.
            values.alertSetting = !allowed ? .disabled : values.alertStyle == .none ? .disabled : .enabled
            values.showPreviewsSetting =
                switch object["effective_show_previews"] as? String {
                case "when_unlocked": .whenAuthenticated
                case "never": .never
                default: .always
                }
            values.criticalAlertSetting = setting("critical_alerts")
            values.announcementSetting = setting("announcement")
            values.timeSensitiveSetting = setting("time_sensitive")
            values.scheduledDeliverySetting = setting("scheduled_delivery")
            values.directMessagesSetting = setting("direct_messages_in_summary")
            return UNNotificationSettings(values: values)
        }
    }
#endif
