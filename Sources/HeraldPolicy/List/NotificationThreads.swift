import Foundation

/// One notification of a device's list as the threads view groups it.
public struct ThreadEntry: Sendable, Hashable {
    /// The notification's id.
    public var id: String
    public var bundleID: String
    /// `aps.thread-id`; nil (or empty) = none.
    public var threadID: String?
    /// `aps.summary-arg`: what the category's summary format names with `%@` (a sender, a place).
    public var summaryArgument: String?
    /// `aps.summary-arg-count`: how many items the notification adds to the summary's `%u`
    /// (nil = 1, as on Apple platforms).
    public var summaryArgumentCount: Int?

    public init(
        id: String, bundleID: String, threadID: String? = nil,
        summaryArgument: String? = nil, summaryArgumentCount: Int? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.threadID = threadID
        self.summaryArgument = summaryArgument
        self.summaryArgumentCount = summaryArgumentCount
    }

    /// The thread it belongs to: an empty `thread-id` is none.
    public var thread: String? {
        guard let threadID, !threadID.isEmpty else { return nil }
        return threadID
    }
}

/// A group of the threads view: one thread of an app (automatic grouping), all of an app's
/// notifications (by app), or one notification (grouping off).
public struct NotificationThreadGroup: Sendable, Hashable {
    public var bundleID: String
    /// The thread; nil for the app's notifications without one, and for a group of a whole app.
    public var threadID: String?
    /// How the app's notifications were grouped.
    public var grouping: NotificationGrouping
    /// The notifications, newest first.
    public var entries: [ThreadEntry]

    /// The newest notification: the one the group shows.
    public var newest: ThreadEntry { entries[0] }
    /// The others, newest first.
    public var others: ArraySlice<ThreadEntry> { entries.dropFirst() }

    /// The summary line's `%u`: what the other notifications add (`summary-arg-count`, 1 each when
    /// not sent, as Apple counts them).
    public var summaryCount: Int {
        others.reduce(0) { $0 + max($1.summaryArgumentCount ?? 1, 0) }
    }

    /// The summary line's `%@` items: the distinct non-empty `summary-arg`s of the other
    /// notifications, newest first.
    public var summaryArguments: [String] {
        var seen = Set<String>()
        return others.compactMap { entry in
            guard let argument = entry.summaryArgument, !argument.isEmpty, seen.insert(argument).inserted else {
                return nil
            }
            return argument
        }
    }
}

/// The list rule of the threads view: a device's visible notifications grouped per app by
/// `thread-id` (or per app without one), the newest group first.
public enum NotificationThreads {
    /// Groups `entries` (given newest first) with each app's grouping preference. A group's place
    /// is that of its newest notification; its notifications keep their order.
    public static func group(
        _ entries: [ThreadEntry], grouping: (_ bundleID: String) -> NotificationGrouping
    ) -> [NotificationThreadGroup] {
        struct Key: Hashable {
            var bundleID: String
            var threadID: String?
            var notificationID: String?
        }
        var groups: [NotificationThreadGroup] = []
        var index: [Key: Int] = [:]
        var preferences: [String: NotificationGrouping] = [:]
        for entry in entries {
            let preference = preferences[entry.bundleID] ?? grouping(entry.bundleID)
            preferences[entry.bundleID] = preference
            let key =
                switch preference {
                case .automatic: Key(bundleID: entry.bundleID, threadID: entry.thread)
                case .byApp: Key(bundleID: entry.bundleID)
                case .off: Key(bundleID: entry.bundleID, threadID: entry.thread, notificationID: entry.id)
                }
            if let position = index[key] {
                groups[position].entries.append(entry)
            } else {
                index[key] = groups.count
                groups.append(
                    NotificationThreadGroup(
                        bundleID: entry.bundleID, threadID: preference == .byApp ? nil : entry.thread,
                        grouping: preference, entries: [entry]
                    ))
            }
        }
        return groups
    }
}
