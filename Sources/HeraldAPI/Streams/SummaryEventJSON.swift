import HeraldCore
import HeraldStore

/// A Scheduled Summary as the streams send it (`event: summary` / `{"type":"summary",…}`):
///
///     {"cursor": "…", "device_id": "…", "slot": "…", "released_at": "…",
///      "apps": [{"bundle_id": "…", "featured": true,
///                "notifications": [{"id": "…", "featured": true, "notification": {…}}]}]}
///
/// Apps and notifications in digest order (relevance, media, recency); the top notification of each
/// of the first apps is featured. `notification` is the notification as the list shows it now
/// (released: listed silently, its decision naming the summary; title and body under `alert`), or
/// null when it was removed since.
enum SummaryEventJSON {
    static func write(_ live: LiveSummary, into writer: inout JSONWriter) {
        let summary = live.summary
        let featured = Set(summary.featured)
        writer.beginObject()
        writer.key("cursor")
        writer.string(String(live.cursor))
        writer.key("device_id")
        writer.string(summary.deviceID)
        writer.key("slot")
        writer.string(Timestamp.string(summary.slot))
        writer.key("released_at")
        writer.string(Timestamp.string(summary.releasedAt))
        writer.key("apps")
        writer.beginArray()
        for app in summary.apps {
            writer.beginObject()
            writer.key("bundle_id")
            writer.string(app.bundleID)
            writer.key("featured")
            writer.bool(app.ids.contains(where: featured.contains))
            writer.key("notifications")
            writer.beginArray()
            for id in app.ids {
                writer.beginObject()
                writer.key("id")
                writer.string(id)
                writer.key("featured")
                writer.bool(featured.contains(id))
                writer.key("notification")
                if let row = summary.notifications[id] {
                    NotificationJSON(row).write(into: &writer)
                } else {
                    writer.null()
                }
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    static func bytes(_ live: LiveSummary) -> [UInt8] {
        var writer = JSONWriter(capacity: 4_096)
        write(live, into: &writer)
        return writer.bytes
    }
}
