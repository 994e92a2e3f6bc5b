import NIOCore

/// Decides between HTTP/2 with prior knowledge and HTTP/1.1 from a connection's first bytes.
///
/// Used on the cleartext listener and on TLS connections that negotiated no ALPN protocol:
/// aioapns offers no ALPN and starts with the HTTP/2 preface, while NIOHTTP2's
/// `configureHTTP2SecureUpgrade` would send such a connection to HTTP/1.1. So the choice is made
/// by the bytes: the HTTP/2 connection preface means HTTP/2, anything else HTTP/1.1.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Choice { case http2, http1 }

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var buffered: ByteBuffer?
    private let configure: (ChannelHandlerContext, Choice) throws -> Void

    init(configure: @escaping (ChannelHandlerContext, Choice) throws -> Void) {
        self.configure = configure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if var buffered {
            buffered.writeBuffer(&incoming)
            self.buffered = buffered
        } else {
            buffered = incoming
        }
        guard let bytes = buffered?.readableBytesView else { return }
        let compared = min(bytes.count, Self.preface.count)
        let matches = bytes.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        if matches && compared < Self.preface.count { return }  // wait for more bytes
        decide(matches ? .http2 : .http1, context: context)
    }

    private func decide(_ chosen: Choice, context: ChannelHandlerContext) {
        do {
            try configure(context, chosen)
        } catch {
            context.close(promise: nil)
            return
        }
        if let buffered {
            self.buffered = nil
            context.fireChannelRead(wrapInboundOut(buffered))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
