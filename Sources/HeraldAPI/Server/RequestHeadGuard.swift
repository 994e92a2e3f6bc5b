import HeraldCore
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Bounds the first request head of a JSON API connection in time and size.
///
/// Until a connection's first request head is complete, Hummingbird's WebSocket-upgradable pipeline
/// has neither its idle timeout nor its error handling in place: a client that sends a request line
/// and then headers that never end (slowloris), or keeps sending header bytes past NIO's limit, held
/// the connection forever. This handler sits first in the pipeline and watches the raw bytes until
/// the head's blank line: past `timeout` it answers `408 request_timeout`, past `maximumBytes` it
/// answers `431 request_head_too_large` (JSON errors, `connection: close`) and closes. Once the head is
/// complete it leaves the pipeline; what follows (bodies, keep-alive requests, WebSocket frames) is
/// Hummingbird's, with its idle timeout.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A little over NIO's limit on a request head (80 KiB), so that its decoder speaks first.
    static let maximumBytes = 96 * 1024

    private let timeout: TimeAmount
    private let maximumBytes: Int
    private var seen = 0
    /// The last bytes of the previous read (a blank line can straddle two reads).
    private var tail: [UInt8] = []
    private var deadline: Scheduled<Void>?
    private var isRefused = false

    init(timeout: TimeAmount, maximumBytes: Int = RequestHeadGuard.maximumBytes) {
        self.timeout = timeout
        self.maximumBytes = maximumBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            guard channel.isActive else { return }
            handler.value.refuse(
                context: loopContext.value, status: "408 Request Timeout", code: "request_timeout",
                message: "The request line and headers did not arrive in time.")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRefused else { return }
        let buffer = unwrapInboundIn(data)
        let bytes = tail + Array(buffer.readableBytesView)
        if Self.endOfHead(in: bytes) {
            deadline?.cancel()
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        seen += buffer.readableBytes
        tail = Array(bytes.suffix(3))
        guard seen <= maximumBytes else {
            return refuse(
                context: context, status: "431 Request Header Fields Too Large", code: "request_head_too_large",
                message: "The request line and headers are larger than \(maximumBytes / 1024) KiB.")
        }
        context.fireChannelRead(data)
    }

    /// Whether `bytes` hold the blank line that ends a request head.
    static func endOfHead(in bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return true
        }
        return false
    }

    /// Answers with a JSON error straight onto the socket (nothing of the request reached the router)
    /// and closes.
    private func refuse(context: ChannelHandlerContext, status: String, code: String, message: String) {
        guard !isRefused else { return }
        isRefused = true
        deadline?.cancel()
        let body = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
        let head =
            "HTTP/1.1 \(status)\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head + body))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
