import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1

/// Gives a refused WebSocket upgrade Herald's JSON error (401, 404, …) instead of the bare
/// `400` hummingbird-websocket writes, so a client learns why its handshake failed.
///
/// When the upgrade is refused, the library builds an HTTP/1 pipeline behind the upgrade handler
/// and writes its 400 through it; a handler installed while deciding sits in front of that
/// pipeline and replaces the response on its way out.
enum UpgradeRefusal {
    /// Installs the replacement of the refusal response for `error` on `channel`.
    static func install(_ error: APIError, on channel: any Channel, logger: Logger) async {
        let body =
            (try? JSONBody.encode(ErrorEnvelope(error: .init(code: error.code, message: error.message)))) ?? Data()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        for field in error.headers {
            headers.add(name: field.name.rawName, value: field.value)
        }
        let status = HTTPResponseStatus(statusCode: Int(error.status.code))
        let buffer = ByteBuffer(bytes: body)
        do {
            try await channel.eventLoop.submit { [headers] in
                try channel.pipeline.syncOperations.addHandler(
                    RefusalResponseHandler(status: status, headers: headers, body: buffer)
                )
            }.get()
        } catch {
            logger.debug(
                "Could not install the WebSocket refusal response",
                metadata: [
                    "error.type": .string(String(describing: type(of: error)))
                ])
        }
    }
}

/// Replaces the refusal `400` (head, empty body, end) by another status, headers and body.
final class RefusalResponseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let status: HTTPResponseStatus
    private let headers: HTTPHeaders
    private let body: ByteBuffer
    private var isReplacing = false

    init(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .badRequest && !isReplacing:
            isReplacing = true
            let replacement = HTTPResponseHead(version: head.version, status: status, headers: headers)
            context.write(wrapOutboundOut(.head(replacement)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .body where isReplacing:
            promise?.succeed(())
        default:
            context.write(data, promise: promise)
        }
    }
}
