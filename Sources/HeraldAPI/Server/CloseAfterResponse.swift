import Foundation
import NIOCore

/// Closes a JSON API connection after a response that says `connection: close` when the request did
/// not ask for it — the API says so when it refuses a body (`413 payload_too_large`).
///
/// Hummingbird keeps a connection open after any response unless the *request* said `close`, and
/// before reading the next request it reads and discards the rest of the refused body: a client that
/// declared 1 GB had the server read all of it. This handler sees the raw bytes (it sits next to
/// `RequestHeadGuard` at the socket end of the pipeline): once such a response is written it
/// half-closes the connection (the client reads the whole answer, then the end of the stream),
/// discards what still arrives — at most `lingerBytes` or for `lingerTime`, as nginx's lingering
/// close does, so the client is not reset before it reads the answer — then closes it.
final class CloseAfterResponse: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case serving
        /// A closing response is being written: this many body bytes are still to come.
        case answering(remainingBody: Int)
        /// The answer is out and the output closed: what arrives is discarded.
        case lingering(discarded: Int)
        case closed
    }

    private let lingerBytes: Int
    private let lingerTime: TimeAmount
    private var state = State.serving
    private var lingerDeadline: Scheduled<Void>?

    init(lingerBytes: Int = 1 << 20, lingerTime: TimeAmount = .seconds(2)) {
        self.lingerBytes = lingerBytes
        self.lingerTime = lingerTime
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        switch state {
        case .serving:
            if let body = Self.closingResponseBodyLength(buffer) {
                // The head and whatever of the body came with it.
                let remaining = body.length - body.bytesInThisWrite
                state = .answering(remainingBody: remaining)
                write(context: context, data: data, promise: promise, completesAnswer: remaining <= 0)
                return
            }
            context.write(data, promise: promise)
        case .answering(let remaining):
            let left = remaining - buffer.readableBytes
            state = .answering(remainingBody: left)
            write(context: context, data: data, promise: promise, completesAnswer: left <= 0)
        case .lingering, .closed:
            // Nothing more goes out after the answer (a drained request's next response).
            promise?.fail(ChannelError.outputClosed)
        }
    }

    private func write(
        context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?, completesAnswer: Bool
    ) {
        guard completesAnswer else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            handler.value.linger(context: loopContext.value)
        }
        context.writeAndFlush(data, promise: written)
    }

    /// The answer is written: close the output, then discard what arrives until the client closes,
    /// the limit, or the deadline.
    private func linger(context: ChannelHandlerContext) {
        guard case .answering = state else { return }
        state = .lingering(discarded: 0)
        let channel = context.channel
        context.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        lingerDeadline = context.eventLoop.scheduleTask(in: lingerTime) {
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .serving:
            context.fireChannelRead(data)
        case .answering:
            // The rest of the refused body: not for the router.
            break
        case .lingering(let discarded):
            let total = discarded + unwrapInboundIn(data).readableBytes
            state = .lingering(discarded: total)
            if total > lingerBytes {
                state = .closed
                lingerDeadline?.cancel()
                context.close(promise: nil)
            }
        case .closed:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
        state = .closed
        context.fireChannelInactive()
    }

    /// For a response head that says `connection: close`, the length of its body (`content-length`,
    /// 0 without one) and how much of it is in this write; nil for anything else. Only the start of
    /// a write is looked at: NIO's HTTP/1 encoder writes each head as one buffer.
    static func closingResponseBodyLength(_ buffer: ByteBuffer) -> (length: Int, bytesInThisWrite: Int)? {
        let bytes = buffer.readableBytesView
        guard bytes.starts(with: "HTTP/1.".utf8) else { return nil }
        guard let end = bytes.firstRange(of: "\r\n\r\n".utf8) else { return nil }
        let head = String(decoding: bytes[bytes.startIndex..<end.lowerBound], as: UTF8.self).lowercased()
        var closes = false
        var length = 0
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "connection",
                value.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "close" })
            {
                closes = true
            } else if name == "content-length" {
                length = Int(value) ?? 0
            }
        }
        guard closes else { return nil }
        return (length, bytes.endIndex - end.upperBound)
    }
}
