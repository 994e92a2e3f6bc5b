import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldAPI

/// Records the closes that reach the socket end; a close of the output is kept (EmbeddedChannel
/// would close everything), so the test sees the lingering that follows.
final class CloseRecorder: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    var modes: [CloseMode] = []

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        modes.append(mode)
        if mode == .output {
            promise?.succeed(())
        } else {
            context.close(mode: mode, promise: promise)
        }
    }
}

@Suite("Closing a connection after a refusal")
struct CloseAfterResponseTests {
    func makeChannel(lingerBytes: Int = 100) throws -> (EmbeddedChannel, CloseRecorder) {
        let recorder = CloseRecorder()
        let channel = EmbeddedChannel(
            handlers: [recorder, CloseAfterResponse(lingerBytes: lingerBytes, lingerTime: .seconds(2))])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, recorder)
    }

    @Test("a response head is read for connection: close and its content-length")
    func parsesHeads() {
        let closing = ByteBuffer(
            string:
                "HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\nConnection: keep-alive, Close\r\ncontent-length: 12\r\n\r\n{\"error\""
        )
        #expect(CloseAfterResponse.closingResponseBodyLength(closing)! == (12, 8))
        let open = ByteBuffer(string: "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
        #expect(CloseAfterResponse.closingResponseBodyLength(open) == nil)
        #expect(CloseAfterResponse.closingResponseBodyLength(ByteBuffer(string: "{\"a\":1}")) == nil)
        let noLength = ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n")
        #expect(CloseAfterResponse.closingResponseBodyLength(noLength)! == (0, 0))
    }

    @Test("ordinary responses and requests pass through untouched")
    func passesOrdinaryTraffic() throws {
        let (channel, recorder) = try makeChannel()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "{}"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) != nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "{}"))
        try channel.writeInbound(ByteBuffer(string: "GET /next HTTP/1.1\r\n\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
        #expect(channel.isActive)
        #expect(recorder.modes.isEmpty)
        _ = try channel.finish()
    }

    @Test("after a closing answer is written the rest of the body is discarded, then the connection closes")
    func closesAfterTheAnswer() throws {
        let (channel, recorder) = try makeChannel(lingerBytes: 100)
        try channel.writeInbound(ByteBuffer(string: "POST / HTTP/1.1\r\ncontent-length: 1000000\r\n\r\naaaa"))
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
        // The head with part of the body, then the rest of the body.
        try channel.writeOutbound(
            ByteBuffer(
                string: "HTTP/1.1 413 Content Too Large\r\nconnection: close\r\ncontent-length: 10\r\n\r\n{\"e\":"))
        // Body bytes arriving meanwhile are not handed on.
        try channel.writeInbound(ByteBuffer(string: "bbbb"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(channel.isActive)
        #expect(recorder.modes.isEmpty)
        try channel.writeOutbound(ByteBuffer(string: "\"x\"}}"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) != nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "\"x\"}}"))
        // The answer is out: the output is closed (the client reads the answer, then the end).
        #expect(recorder.modes == [.output])
        #expect(channel.isActive)
        // Lingering: a little more is discarded, past the limit the connection closes.
        try channel.writeInbound(ByteBuffer(string: String(repeating: "c", count: 60)))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(channel.isActive)
        try? channel.writeInbound(ByteBuffer(string: String(repeating: "c", count: 60)))
        #expect(recorder.modes == [.output, .all])
        #expect(!channel.isActive)
    }

    @Test("a client that stops sending is closed at the linger deadline")
    func closesAtTheDeadline() throws {
        let (channel, recorder) = try makeChannel(lingerBytes: 1 << 20)
        try channel.writeOutbound(
            ByteBuffer(string: "HTTP/1.1 413 Content Too Large\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(recorder.modes == [.output])
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }
}
