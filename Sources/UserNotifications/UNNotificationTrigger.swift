// The triggers: push (made by the system), time interval, calendar and location.
//
// Apple raises an Objective-C exception (NSInternalInconsistencyException) for a time interval that
// is not positive, or under 60 s when repeating. Swift on Linux cannot raise one; the initializer
// stops the program with `preconditionFailure` and Apple's message instead, so code that would
// crash on Apple's platforms crashes here too (in every build configuration: preconditionFailure is
// kept in release builds; only -Ounchecked removes it).
#if os(Linux)
    import CoreLocation
    import Foundation
    import HeraldTriggers

    open class UNNotificationTrigger: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        open var repeats: Bool { storedRepeats }
        private let storedRepeats: Bool

        package init(repeats: Bool) {
            storedRepeats = repeats
            super.init()
        }

        @available(*, unavailable)
        public override init() { fatalError("UNNotificationTrigger() is unavailable") }

        /// The trigger classes a keyed archive of a request may hold.
        package static var archivableClasses: [AnyClass] {
            [
                UNNotificationTrigger.self, UNPushNotificationTrigger.self, UNTimeIntervalNotificationTrigger.self,
                UNCalendarNotificationTrigger.self, UNLocationNotificationTrigger.self,
            ]
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationTrigger, type(of: other) == type(of: self) else { return false }
            return repeats == other.repeats
        }

        open override var hash: Int { repeats.hashValue }

        /// Triggers are immutable: a copy is the trigger itself.
        open func copy(with zone: NSZone? = nil) -> Any { self }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encode(repeats, forKey: "repeats")
        }

        public required init?(coder: NSCoder) {
            storedRepeats = coder.decodeBool(forKey: "repeats")
            super.init()
        }
    }

    /// The trigger of a notification that came as a push (never made by an app).
    open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
        package init() {
            super.init(repeats: false)
        }

        public required init?(coder: NSCoder) {
            super.init(coder: coder)
        }
    }

    open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
        open var timeInterval: TimeInterval { storedTimeInterval }
        private let storedTimeInterval: TimeInterval

        /// Stops the program, as Apple's exception does, for an interval that is not positive or a
        /// repeating one under 60 s.
        public init(timeInterval: TimeInterval, repeats: Bool) {
            if let message = Self.refusal(timeInterval: timeInterval, repeats: repeats) {
                preconditionFailure(message)
            }
            storedTimeInterval = timeInterval
            super.init(repeats: repeats)
        }

        /// Apple's exception message for an interval it refuses, or nil when the interval is valid.
        package static func refusal(timeInterval: TimeInterval, repeats: Bool) -> String? {
            LocalTrigger.refusal(timeInterval: timeInterval, repeats: repeats)
        }

        /// As Apple's: the interval counted from now (a pending request's fire date is kept by the
        /// scheduler, not by the trigger).
        open func nextTriggerDate() -> Date? {
            nextTriggerDate(after: Date())
        }

        package func nextTriggerDate(after now: Date) -> Date? {
            now.addingTimeInterval(timeInterval)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNTimeIntervalNotificationTrigger else { return false }
            return super.isEqual(other) && timeInterval == other.timeInterval
        }

        open override var hash: Int { timeInterval.hashValue }

        open override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            coder.encode(timeInterval, forKey: "timeInterval")
        }

        public required init?(coder: NSCoder) {
            let interval = coder.decodeDouble(forKey: "timeInterval")
            // A decoded archive is input: refuse invalid values instead of stopping.
            guard Self.refusal(timeInterval: interval, repeats: coder.decodeBool(forKey: "repeats")) == nil else {
                return nil
            }
            storedTimeInterval = interval
            super.init(coder: coder)
        }
    }

    open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
        open var dateComponents: DateComponents { storedDateComponents }
        private let storedDateComponents: DateComponents

        public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
            storedDateComponents = dateComponents
            super.init(repeats: repeats)
        }

        /// The next date after now that matches the components, in the current calendar and time zone
        /// (or the components' own calendar and time zone when they have them).
        open func nextTriggerDate() -> Date? {
            nextTriggerDate(after: Date(), in: Calendar.current)
        }

        /// The first date strictly after `date` that matches the components, in `calendar` (its time
        /// zone is the device's) unless the components carry their own calendar or time zone — the
        /// rule the server's scheduler fires by (`CalendarMatching.nextDate`, HeraldTriggers: a
        /// skipped spring-forward time fires at the first valid time after it, a repeated fall-back
        /// time at its first occurrence, a day a month does not have is skipped). nil when no date
        /// matches.
        package func nextTriggerDate(after date: Date, in calendar: Calendar) -> Date? {
            CalendarMatching.nextDate(after: date, matching: dateComponents, in: calendar)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNCalendarNotificationTrigger else { return false }
            return super.isEqual(other) && dateComponents == other.dateComponents
        }

        open override var hash: Int { dateComponents.hashValue }

        open override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            // Each set component under its own key; the calendar and time zone by identifier.
            var plist: [String: Any] = [:]
            for (name, component) in Self.codedComponents {
                if let value = dateComponents.value(for: component) { plist[name] = value }
            }
            if let calendar = dateComponents.calendar { plist["calendar"] = "\(calendar.identifier)" }
            if let timeZone = dateComponents.timeZone { plist["timeZone"] = timeZone.identifier }
            coder.encodePropertyList(plist, forKey: "dateComponents")
        }

        private static let codedComponents: [(String, Calendar.Component)] = [
            ("era", .era), ("year", .year), ("month", .month), ("day", .day), ("hour", .hour), ("minute", .minute),
            ("second", .second), ("nanosecond", .nanosecond), ("weekday", .weekday),
            ("weekdayOrdinal", .weekdayOrdinal),
            ("quarter", .quarter), ("weekOfMonth", .weekOfMonth), ("weekOfYear", .weekOfYear),
            ("yearForWeekOfYear", .yearForWeekOfYear),
        ]

        private static let calendarIdentifiers: [Calendar.Identifier] = [
            .gregorian, .buddhist, .chinese, .coptic, .ethiopicAmeteMihret, .ethiopicAmeteAlem, .hebrew, .iso8601,
            .indian, .islamic, .islamicCivil, .japanese, .persian, .republicOfChina, .islamicTabular, .islamicUmmAlQura,
        ]

        public required init?(coder: NSCoder) {
            guard let plist = coder.decodePlist(forKey: "dateComponents") else { return nil }
            var components = DateComponents()
            for (name, component) in Self.codedComponents {
                if let value = plist[name] as? Int { components.setValue(value, for: component) }
            }
            if let name = plist["calendar"] as? String {
                guard let identifier = Self.calendarIdentifiers.first(where: { "\($0)" == name }) else { return nil }
                components.calendar = Calendar(identifier: identifier)
            }
            if let name = plist["timeZone"] as? String {
                guard let timeZone = TimeZone(identifier: name) else { return nil }
                components.timeZone = timeZone
            }
            storedDateComponents = components
            super.init(coder: coder)
        }
    }

    open class UNLocationNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
        /// The region (a copy: the trigger keeps its own, so changing the returned region's entry and
        /// exit flags does not change the trigger).
        open var region: CLRegion { storedRegion.copy() as! CLRegion }
        private let storedRegion: CLRegion

        public init(region: CLRegion, repeats: Bool) {
            storedRegion = region.copy() as! CLRegion
            super.init(repeats: repeats)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNLocationNotificationTrigger else { return false }
            return super.isEqual(other) && region == other.region
        }

        open override var hash: Int { region.hash }

        open override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            coder.encode(region, forKey: "region")
        }

        public required init?(coder: NSCoder) {
            guard
                let region = coder.decodeObject(of: [CLRegion.self, CLCircularRegion.self], forKey: "region")
                    as? CLRegion
            else { return nil }
            storedRegion = region
            super.init(coder: coder)
        }
    }
#endif
