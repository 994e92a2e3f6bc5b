import Foundation
import HeraldCore
import HeraldLocalization
import HeraldPolicy
import HeraldStore

/// The JSON of the threads view, with what it reads from the store per app (the category's summary
/// format, the app's localizations) read once per request.
struct ThreadView {
    let store: any HeraldStore
    /// The locale summary lines are written in: the device's, else the user's, else `en`.
    let locale: String
    private var formats: [String: String?] = [:]
    private var localizations: [String: AppLocalizations] = [:]

    init(store: any HeraldStore, locale: String) {
        self.store = store
        self.locale = locale
    }

    /// A row with what grouping needs from its payload.
    struct Item {
        var row: StoredNotification
        var entry: ThreadEntry
        var category: String?

        init(_ row: StoredNotification) {
            self.row = row
            let aps = (try? JSONParser.parse(Array(row.payload.utf8)))?.objectValue?["aps"]?.objectValue ?? [:]
            category = aps["category"]?.stringValue
            var count: Int?
            if let number = aps["summary-arg-count"]?.lenientNumber, number.isFinite, number >= 0,
                number <= Double(Int32.max)
            {
                count = Int(number)
            }
            entry = ThreadEntry(
                id: row.id, bundleID: row.bundleID, threadID: aps["thread-id"]?.stringValue,
                summaryArgument: aps["summary-arg"]?.stringValue, summaryArgumentCount: count
            )
        }
    }

    struct PageJSON: Encodable {
        var threads: [GroupJSON]
        /// The number of groups, whatever the limit.
        var total: Int
    }

    struct GroupJSON: Encodable {
        var bundleID: String
        var threadID: String?
        var grouping: String
        var count: Int
        var notification: NotificationJSON
        var otherIDs: [String]
        var summary: String?
        var summaryCount: Int
        var summaryArguments: [String]

        enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id"
            case threadID = "thread_id"
            case grouping, count, notification
            case otherIDs = "other_ids"
            case summary
            case summaryCount = "summary_count"
            case summaryArguments = "summary_arguments"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(bundleID, forKey: .bundleID)
            try container.encode(threadID, forKey: .threadID)
            try container.encode(grouping, forKey: .grouping)
            try container.encode(count, forKey: .count)
            try container.encode(notification, forKey: .notification)
            try container.encode(otherIDs, forKey: .otherIDs)
            try container.encode(summary, forKey: .summary)
            try container.encode(summaryCount, forKey: .summaryCount)
            try container.encode(summaryArguments, forKey: .summaryArguments)
        }
    }

    /// A group as JSON; the summary line only when the group has more than one notification.
    mutating func json(_ group: NotificationThreadGroup, newest: Item) async throws -> GroupJSON {
        var summary: String?
        if group.entries.count > 1 {
            let format = try await summaryFormat(bundleID: group.bundleID, category: newest.category)
            let localizations = format == nil ? AppLocalizations() : try await localizations(bundleID: group.bundleID)
            summary = CategorySummary.text(
                format: format, count: group.summaryCount, arguments: group.summaryArguments,
                localizations: localizations, locale: locale
            )
        }
        return GroupJSON(
            bundleID: group.bundleID, threadID: group.threadID,
            grouping: PolicyNames.name(group.grouping, in: PolicyNames.grouping),
            count: group.entries.count, notification: NotificationJSON(newest.row),
            otherIDs: group.others.map(\.id), summary: summary,
            summaryCount: group.entries.count > 1 ? group.summaryCount : 0, summaryArguments: group.summaryArguments
        )
    }

    /// The category's `category_summary_format`; nil without a category, for an unknown one, or
    /// when it has none.
    private mutating func summaryFormat(bundleID: String, category: String?) async throws -> String? {
        guard let category, !category.isEmpty else { return nil }
        let key = bundleID + "\u{0}" + category
        if let known = formats[key] { return known }
        var format: String?
        if let record = try await store.category(bundleID: bundleID, identifier: category),
            case .string(let text)? = (try? JSONParser.parse(Array(record.json.utf8)))?.objectValue?[
                "category_summary_format"],
            !text.isEmpty
        {
            format = text
        }
        formats[key] = .some(format)
        return format
    }

    /// The app's localizations (files that don't parse are skipped, as the server does).
    private mutating func localizations(bundleID: String) async throws -> AppLocalizations {
        if let known = localizations[bundleID] { return known }
        var result = AppLocalizations()
        for file in try await store.localizationFiles(bundleID: bundleID) {
            switch file.kind {
            case .strings: try? result.addStringsFile(file.data, locale: file.locale)
            case .stringsdict: try? result.addStringsDictionary(file.data, locale: file.locale)
            case .xcstrings: try? result.addStringCatalog(file.data)
            }
        }
        localizations[bundleID] = result
        return result
    }
}
