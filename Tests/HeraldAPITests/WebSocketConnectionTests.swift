import NIOCore
import NIOWebSocket
import Testing

@testable import HeraldAPI

@Suite("WebSocket sessions on the connection")
struct WebSocketConnectionTests {
    @Test("a message longer than a frame goes out as a text frame and continuations, the last one final")
    func longMessagesAreFragmented() {
        let text = ByteBuffer(string: String(repeating: "a", count: 40_000))
        let frames = WebSocketStreamHandler.frames(text)
        #expect(frames.map(\.opcode) == [.text, .continuation, .continuation])
        #expect(frames.map(\.fin) == [false, false, true])
        #expect(frames.map(\.length) == [16_384, 16_384, 7_232])
        var joined = ByteBuffer()
        for frame in frames { joined.writeImmutableBuffer(frame.data) }
        #expect(joined == text)

        let short = WebSocketStreamHandler.frames(ByteBuffer(string: "{}"))
        #expect(short.count == 1 && short[0].fin && short[0].opcode == .text)
        let exact = WebSocketStreamHandler.frames(ByteBuffer(repeating: 1, count: 16_384))
        #expect(exact.count == 1 && exact[0].fin)
    }

    @Test("a client's close is answered with 1000, or 1002 for a bad code, a one-byte body or a reason not UTF-8")
    func closeReplies() {
        func reply(_ bytes: [UInt8]) -> WebSocketErrorCode {
            WebSocketStreamHandler.closeReply(
                to: WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: bytes)))
        }
        #expect(reply([]) == .normalClosure)
        #expect(reply([0x03, 0xE8]) == .normalClosure)  // 1000
        #expect(reply([0x03, 0xE9] + Array("bye".utf8)) == .normalClosure)  // 1001 with a reason
        #expect(reply([0x0F, 0xA0]) == .normalClosure)  // 4000, private use
        #expect(reply([0x03]) == .protocolError)
        #expect(reply([0x03, 0xE7]) == .protocolError)  // 999
        #expect(reply([0x03, 0xED]) == .protocolError)  // 1005 is never sent
        #expect(reply([0x13, 0x88]) == .protocolError)  // 5000
        #expect(reply([0x03, 0xE8, 0xFF, 0xFE]) == .protocolError)  // not UTF-8
    }
}
