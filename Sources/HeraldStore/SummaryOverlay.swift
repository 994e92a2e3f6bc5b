import Foundation
import GRDB

/// The released state of notifications released by a Scheduled Summary, derived when they are read.
///
/// A release does not rewrite the notifications it releases (see `Schema.createSummaryReleases`): it
/// is a row of `summary_releases`. A query selects `notifications AS n` with `join`, and `columns`
/// adds the covering release to `NotificationRow.columns`; reading the row shows a covered
/// notification as the release left it (`DecisionRecord.releasedBySummary`): listed silently, no
/// banner, no sound, no announcement, in Notification Center, the reason `summary-delivered` and
/// `context.summary` (the slot and whether it was featured), and `releasedAt` the time of the release. A notification stays covered when it is read, dismissed
/// or removed afterwards; a new decision (`updateDecision`) or a provider's replacement ends it.
enum SummaryOverlay {
    /// The row id of the first summary release that covers the notification `n`, or NULL.
    static let coveringRelease = """
        CASE WHEN n.disposition = 'heldForSummary' THEN (
            SELECT c.rowid FROM summary_releases c
            WHERE c.device_id = n.device_id AND c.slot_ms >= n.received_at
                AND c.horizon_rowid >= n.rowid AND c.horizon_seq >= COALESCE(n.decided_seq, 0)
                AND (n.removed_at IS NULL OR n.removed_at >= c.released_at)
            ORDER BY c.slot_ms LIMIT 1
        ) END
        """

    /// Joins the covering release as `r` (NULL columns when there is none).
    static let join = "LEFT JOIN summary_releases r ON r.rowid = \(coveringRelease)"

    /// Whether the notification `n` is covered by a release (no join needed).
    static let isReleased = "(\(coveringRelease)) IS NOT NULL"

    /// `NotificationRow.columns` of `n`, then the covering release of `r`: its slot, its time, and
    /// whether it featured `n` (NULLs when there is none). `NotificationRow.decode` applies it to the
    /// typed decision (`DecisionRecord.releasedBySummary`): no JSON is rewritten in SQL.
    static let columns =
        NotificationRow.columns.split(separator: ",").map { "n.\($0.trimmingCharacters(in: .whitespaces))" }
        .joined(separator: ", ") + """
            , r.slot_ms, r.released_at, \
            CASE WHEN r.rowid IS NULL THEN NULL WHEN n.id IN (SELECT value FROM json_each(r.featured)) THEN 1 ELSE 0 END
            """

    /// How many columns `columns` selects (a query's own columns follow them).
    static let columnCount = NotificationRow.columnCount + 3

    /// Selects `columns` from `notifications AS n` with the release joined; append a WHERE clause.
    static let select = "SELECT \(columns) FROM notifications n \(join)"
}
