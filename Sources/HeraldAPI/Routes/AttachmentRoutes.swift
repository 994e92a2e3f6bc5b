import Foundation
import HTTPTypes
import HeraldAttachments
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// Notification attachments (`UNNotificationAttachment`):
/// - `POST /v1/app/attachments` (the app's credential): the file's bytes as the body, with
///   `x-herald-attachment-identifier` (the app's identifier) and optionally
///   `x-herald-attachment-type` (a UTI: `UNNotificationAttachmentOptionsTypeHintKey`). Herald sniffs
///   the type from the bytes (a name or a hint is never trusted: a hint the bytes do not match is
///   `attachment_corrupt`), checks Apple's size limit of that type, keeps the file within the app's
///   quota, and answers 201 `{"attachment": {"id", "identifier", "type", "size"}}`. A content
///   (`POST /v1/app/requests`, a service extension's answer) then names it by `attachment_id`.
/// - `GET /v1/devices/{device_id}/notifications/{id}/attachments/{attachment_id}` (the device's
///   owner), and `GET /v1/app/notifications/{id}/attachments/{attachment_id}` (the app's credential,
///   its own notifications on its device): the file, if that notification shows it (its
///   attachments and its communication avatar).
/// Refusals carry Apple's reasons as codes: `attachment_unrecognized_type`,
/// `attachment_invalid_file_size`, `attachment_corrupt`, `attachment_move_into_data_store_failed`
/// (the quota); `UNUserNotificationCenter` turns them into `UNError`s.
struct AttachmentRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/app/attachments", upload),
            APIRoute(.get, "/v1/devices/{device_id}/notifications/{id}/attachments/{attachment_id}", serve),
            APIRoute(.get, "/v1/app/notifications/{id}/attachments/{attachment_id}", serveToApp),
        ]
    }

    static let identifierHeader = HTTPField.Name("x-herald-attachment-identifier")!
    static let typeHeader = HTTPField.Name("x-herald-attachment-type")!

    @Sendable func upload(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        guard let directory = dependencies.attachmentsDirectory else {
            throw APIError(
                .serviceUnavailable, code: "attachments_unavailable", message: "This server keeps no attachments.")
        }
        let identifier = request.headers[Self.identifierHeader] ?? ""
        guard identifier.utf8.count <= 256 else {
            throw APIError.invalidField(Self.identifierHeader.rawName, "must be at most 256 bytes long.")
        }
        let hinted: AttachmentMediaType?
        if let hint = request.headers[Self.typeHeader] {
            guard let type = AttachmentMediaType.from(uti: hint) else {
                throw Self.refusal("attachment_unrecognized_type", "Unsupported attachment type hint: \(hint).")
            }
            hinted = type
        } else {
            hinted = nil
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let id = UUID().uuidString.lowercased()
        let upload = directory.appendingPathComponent(".upload-\(id)")
        guard FileManager.default.createFile(atPath: upload.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: upload.path)
        else {
            throw APIError(.internalServerError, code: "storage_failure", message: "Could not write the attachment.")
        }
        var kept = false
        defer {
            try? handle.close()
            if !kept { try? FileManager.default.removeItem(at: upload) }
        }
        // Streamed to the file (up to 50 MB, the largest any type may be), the first bytes kept to sniff.
        var size = 0
        var head: [UInt8] = []
        for try await buffer in request.body {
            size += buffer.readableBytes
            guard size <= AttachmentMediaType.largestSize else {
                throw Self.refusal(
                    "attachment_invalid_file_size",
                    "The attachment is over \(AttachmentMediaType.largestSize) bytes, the limit of every type.")
            }
            if head.count < AttachmentMediaType.signatureLength {
                head +=
                    buffer.getBytes(
                        at: buffer.readerIndex,
                        length: min(buffer.readableBytes, AttachmentMediaType.signatureLength - head.count)) ?? []
            }
            try handle.write(contentsOf: Data(buffer.readableBytesView))
        }
        let type = try Self.mediaType(head: head, size: size, hinted: hinted)
        try handle.synchronize()
        kept = true
        let keeper = AttachmentKeeper(
            directory: directory, quota: dependencies.attachmentQuota, store: store, now: dependencies.now)
        try await keeper.commit(
            upload: upload, id: id, type: type, size: size, identifier: identifier, bundleID: app.bundleID,
            deviceID: app.deviceID)
        return JSONBody.response(
            status: .created,
            JSONValue.object([
                "attachment": .object([
                    "id": .string(id), "identifier": .string(identifier), "type": .string(type.uti),
                    "size": .number(Double(size)),
                ])
            ]))
    }

    @Sendable func serve(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
        return try await file(
            deviceID: device.deviceID, bundleID: nil, id: context.parameters.require("id"),
            attachmentID: context.parameters.require("attachment_id"))
    }

    /// The app's own: a notification of this app on this device (how `deliveredNotifications()`
    /// gives the app its attachments' files).
    @Sendable func serveToApp(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        return try await file(
            deviceID: app.deviceID, bundleID: app.bundleID, id: context.parameters.require("id"),
            attachmentID: context.parameters.require("attachment_id"))
    }

    /// The file when the device's notification `id` (of the app `bundleID`, when given) shows it.
    private func file(deviceID: String, bundleID: String?, id: String, attachmentID: String) async throws -> Response {
        let notFound = APIError.notFound("attachment_not_found", "This notification shows no attachment with this id.")
        var row = try await store.notification(deviceID: deviceID, id: id)
        if row == nil { row = try await store.notification(deviceID: deviceID, id: id.lowercased()) }
        guard let row, !row.isRemoved, bundleID == nil || row.bundleID == bundleID,
            row.attachments.contains(where: { $0.id == attachmentID }),
            let directory = dependencies.attachmentsDirectory,
            let record = try await store.attachments(ids: [attachmentID]).first,
            let data = FileManager.default.contents(atPath: directory.appendingPathComponent(record.id).path)
        else { throw notFound }
        var headers = HTTPFields()
        headers[.contentType] = AttachmentMediaType.from(uti: record.type)?.mimeType ?? "application/octet-stream"
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The type of a file that starts with `head` and is `size` bytes long: the hinted one if the
    /// bytes match it, else the one sniffed; refused as Apple refuses (corrupt, unrecognized, too big).
    static func mediaType(head: [UInt8], size: Int, hinted: AttachmentMediaType?) throws -> AttachmentMediaType {
        let type: AttachmentMediaType
        if let hinted {
            guard hinted.matchesSignature(head) else {
                throw Self.refusal("attachment_corrupt", "The attachment is not a valid \(hinted.uti) file.")
            }
            type = hinted
        } else {
            guard let sniffed = AttachmentMediaType.sniff(head) else {
                throw Self.refusal(
                    "attachment_unrecognized_type",
                    "The attachment is none of the types a notification shows (images: JPEG, GIF, PNG; audio: AIFF, WAV, MP3, M4A; video: MPEG, MPEG-2, MP4, AVI)."
                )
            }
            type = sniffed
        }
        guard size <= type.maximumSize else {
            throw Self.refusal(
                "attachment_invalid_file_size",
                "The attachment is \(size) bytes; the limit for \(type.uti) is \(type.maximumSize).")
        }
        return type
    }

    static func refusal(_ code: String, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    /// The attachments `references` name, as the store has them: each must be one the app gave on
    /// this device (`attachment_not_in_data_store` otherwise, Apple's `attachmentNotInDataStore`).
    static func resolve(
        _ references: [LocalContentJSON.AttachmentReference], bundleID: String, deviceID: String,
        store: any HeraldStore
    ) async throws -> [NotificationAttachment] {
        guard !references.isEmpty else { return [] }
        let records = try await store.attachments(ids: references.map(\.attachmentID))
        return try references.map { reference in
            guard
                let record = records.first(where: {
                    $0.id == reference.attachmentID && $0.bundleID == bundleID && $0.deviceID == deviceID
                })
            else {
                throw refusal(
                    "attachment_not_in_data_store",
                    "There is no attachment \(reference.attachmentID) of this app on this device: upload it first (POST /v1/app/attachments)."
                )
            }
            if reference.isAvatar, !AttachmentMediaType.images.contains(where: { $0.uti == record.type }) {
                throw refusal(
                    "attachment_unrecognized_type",
                    "An avatar must be an image (JPEG, GIF or PNG); attachment \(record.id) is \(record.type).")
            }
            return NotificationAttachment(
                id: record.id, identifier: reference.identifier.isEmpty ? record.identifier : reference.identifier,
                type: record.type, size: record.size, thumbnailHidden: reference.thumbnailHidden,
                isAvatar: reference.isAvatar)
        }
    }
}
