import GRDB

/// The released state of notifications released by a Scheduled Summary, derived when they are read.
///
/// A release does not rewrite the notifications it releases (see `Schema.createSummaryReleases`):
/// a query selects `notifications AS n` with `join`, and `columns` (the `NotificationRow.columns`
/// order) shows a covered notification as the release left it: disposition `listedSilently`, its
/// decision with no banner, no sound, no announcement, in Notification Center, the reason
/// `summary-delivered` and `context.summary` (the slot and whether it was featured), and
/// `released_at` the time of the release. A notification stays covered when it is read, dismissed
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

    private static let releasedDecision = """
        json_set(n.decision,
            '$.disposition', 'listedSilently',
            '$.banner', 'none',
            '$.sound', json('{"bypasses_ringer":false,"plays":false,"volume":null}'),
            '$.announce', json('false'),
            '$.notification_center', json('true'),
            '$.reason_codes', json_insert(COALESCE(n.decision -> '$.reason_codes', '[]'), '$[#]', 'summary-delivered'),
            '$.context', json_set(COALESCE(n.decision -> '$.context', '{}'), '$.summary', json_object(
                'slot_ms', r.slot_ms,
                'featured', json(CASE WHEN n.id IN (SELECT value FROM json_each(r.featured)) THEN 'true' ELSE 'false' END)
            ))
        )
        """

    /// `NotificationRow.columns` of `n`, with the release of `r` applied.
    static let columns = """
        n.seq, n.id, n.device_id, n.bundle_id, n.topic, n.push_type, n.priority, n.collapse_id, n.expiration, \
        n.payload, n.received_at, n.delivered_at, n.read_at, n.dismissed_at, n.removed_at, \
        CASE WHEN r.rowid IS NULL THEN n.disposition ELSE 'listedSilently' END, \
        CASE WHEN r.rowid IS NULL THEN n.decision ELSE \(releasedDecision) END, \
        CASE WHEN r.rowid IS NULL THEN n.released_at ELSE r.released_at END
        """

    /// Selects `columns` from `notifications AS n` with the release joined; append a WHERE clause.
    static let select = "SELECT \(columns) FROM notifications n \(join)"
}
