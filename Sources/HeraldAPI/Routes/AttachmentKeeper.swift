import Foundation
import HTTPTypes
import HeraldAttachments
import HeraldStore

/// Keeps attachment files in the data directory's attachment store, within each app's quota: an
/// upload (`POST /v1/app/attachments`) streams its file first and commits it here; a webhook
/// extension's answer gives its files' bytes (`keep`). The checks are Apple's, as
/// `AttachmentRoutes.mediaType` makes them.
public struct AttachmentKeeper: Sendable {
    public let directory: URL
    public let quota: Int
    let store: any HeraldStore
    let now: @Sendable () -> Date

    public init(directory: URL, quota: Int, store: any HeraldStore, now: @escaping @Sendable () -> Date) {
        self.directory = directory
        self.quota = quota
        self.store = store
        self.now = now
    }

    /// Checks `data` as an upload is checked and keeps it for the app on the device; throws the
    /// upload's refusals (`APIError` with Apple's attachment codes).
    public func keep(
        _ data: Data, identifier: String, typeHint: String?, bundleID: String, deviceID: String
    ) async throws -> AttachmentRecord {
        var hinted: AttachmentMediaType?
        if let typeHint {
            guard let type = AttachmentMediaType.from(uti: typeHint) else {
                throw AttachmentRoutes.refusal(
                    "attachment_unrecognized_type", "Unsupported attachment type hint: \(typeHint).")
            }
            hinted = type
        }
        let type = try AttachmentRoutes.mediaType(
            head: Array(data.prefix(AttachmentMediaType.signatureLength)), size: data.count, hinted: hinted)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let id = UUID().uuidString.lowercased()
        let upload = directory.appendingPathComponent(".upload-\(id)")
        do {
            try data.write(to: upload, options: .atomic)
        } catch {
            try? FileManager.default.removeItem(at: upload)
            throw APIError(.internalServerError, code: "storage_failure", message: "Could not write the attachment.")
        }
        return try await commit(
            upload: upload, id: id, type: type, size: data.count, identifier: identifier, bundleID: bundleID,
            deviceID: deviceID)
    }

    /// Moves a checked file written at `upload` into the store as `id` and records it; over the
    /// app's quota it is removed and refused (`attachment_move_into_data_store_failed`).
    @discardableResult
    func commit(
        upload: URL, id: String, type: AttachmentMediaType, size: Int, identifier: String, bundleID: String,
        deviceID: String
    ) async throws -> AttachmentRecord {
        let target = directory.appendingPathComponent(id)
        do {
            try FileManager.default.moveItem(at: upload, to: target)
        } catch {
            try? FileManager.default.removeItem(at: upload)
            throw APIError(.internalServerError, code: "storage_failure", message: "Could not keep the attachment.")
        }
        let record = AttachmentRecord(
            id: id, bundleID: bundleID, deviceID: deviceID, identifier: identifier, type: type.uti, size: size,
            createdAt: now())
        do {
            try await store.addAttachment(record, quota: quota)
        } catch let error as StoreError where error.kind == .conflict {
            try? FileManager.default.removeItem(at: target)
            throw AttachmentRoutes.refusal("attachment_move_into_data_store_failed", error.message)
        } catch {
            try? FileManager.default.removeItem(at: target)
            throw error
        }
        return record
    }
}
