import HeraldCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldAPNs

/// `HTTP2ConnectionHandler` behind a real `NIOHTTP2Handler`, as the listener builds the pipeline, fed the
/// bytes a client sends: a stream error (RST_STREAM, RFC 9113 §5.4.2) must leave the connection serving,
/// a connection error (GOAWAY, §5.4.1) must close it.
@Suite("HTTP2ConnectionHandler behind NIOHTTP2Handler")
struct HTTP2WireErrorTests {
    struct Frame: Equatable, CustomStringConvertible {
        var type: UInt8
        var stream: UInt32
        var payload: [UInt8]
        var errorCode: UInt32? {
            switch type {
            case 3: payload.count == 4 ? UInt32(bigEndian: payload.withUnsafeBytes { $0.load(as: UInt32.self) }) : nil
            case 7:
                payload.count >= 8
                    ? UInt32(bigEndian: Array(payload[4..<8]).withUnsafeBytes { $0.load(as: UInt32.self) }) : nil
            default: nil
            }
        }
        var description: String { "frame(type \(type), stream \(stream), code \(errorCode.map { "\($0)" } ?? "-"))" }
    }

    /// One server connection: NIOHTTP2Handler (with the connection handler as its frame delegate), then
    /// the connection handler; the push handler answers 200 at once.
    final class Wire {
        let channel = EmbeddedChannel()
        let pushes = FakePushHandler(answersAtOnce: true)
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())

        init() throws {
            let handler = HTTP2ConnectionHandler(
                connection: APNsConnection(), handler: pushes, tracker: ConnectionTracker(),
                logger: Logger(label: "test"))
            let http2 = NIOHTTP2Handler(mode: .server, frameDelegate: handler)
            try channel.pipeline.syncOperations.addHandler(http2)
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
            send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Self.frame(4, 0, 0, []))
            _ = try written()
        }

        static func frame(_ type: UInt8, _ flags: UInt8, _ stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
            let length = payload.count
            return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
                + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
        }

        /// A request's HEADERS frame (END_HEADERS, and END_STREAM when asked).
        func headers(_ stream: UInt32, endStream: Bool) throws -> [UInt8] {
            var block = ByteBuffer()
            try encoder.encode(
                headers: HPACKHeaders([
                    (":method", "POST"), (":scheme", "http"), (":path", "/3/device/ok"), (":authority", "localhost"),
                    ("apns-id", "id-\(stream)"),
                ]), to: &block)
            return Self.frame(1, endStream ? 0x5 : 0x4, stream, Array(block.readableBytesView))
        }

        static func windowUpdate(_ stream: UInt32, _ increment: UInt32) -> [UInt8] {
            frame(8, 0, stream, withUnsafeBytes(of: increment.bigEndian, Array.init))
        }

        /// Delivers `bytes` as one read burst.
        func send(_ bytes: [UInt8]) {
            channel.pipeline.syncOperations.fireChannelRead(NIOAny(ByteBuffer(bytes: bytes)))
            channel.pipeline.syncOperations.fireChannelReadComplete()
        }

        /// The frames written since the last call.
        func written() throws -> [Frame] {
            var bytes: [UInt8] = []
            while let data = try channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let buffer) = data else { continue }
                bytes += buffer.readableBytesView
            }
            var frames: [Frame] = []
            var offset = 0
            while offset + 9 <= bytes.count {
                let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
                let stream = bytes[offset + 5..<offset + 9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
                frames.append(
                    Frame(
                        type: bytes[offset + 3], stream: stream, payload: Array(bytes[offset + 9..<offset + 9 + length])
                    ))
                offset += 9 + length
            }
            return frames
        }
    }

    @Test("a WINDOW_UPDATE of 0 on a stream resets that stream only; the next request is answered")
    func zeroWindowUpdateOnAStream() throws {
        let wire = try Wire()
        wire.send(try wire.headers(1, endStream: false) + Wire.windowUpdate(1, 0) + wire.headers(3, endStream: true))
        let frames = try wire.written()
        #expect(frames.contains(Frame(type: 3, stream: 1, payload: [0, 0, 0, 1])), "\(frames)")  // PROTOCOL_ERROR
        #expect(!frames.contains { $0.type == 7 }, "\(frames)")
        #expect(frames.contains { $0.type == 1 && $0.stream == 3 }, "\(frames)")
        #expect(wire.channel.isActive)
    }

    @Test("DATA after the client's END_STREAM resets that stream (STREAM_CLOSED); the connection goes on")
    func dataOnAHalfClosedStream() throws {
        let wire = try Wire()
        wire.send(try wire.headers(1, endStream: true) + Wire.frame(0, 1, 1, Array("late".utf8)))
        var frames = try wire.written()
        #expect(frames.contains(Frame(type: 3, stream: 1, payload: [0, 0, 0, 5])), "\(frames)")
        wire.send(try wire.headers(3, endStream: true))
        frames = try wire.written()
        #expect(frames.contains { $0.type == 1 && $0.stream == 3 }, "\(frames)")
        #expect(wire.channel.isActive)
        #expect(wire.pushes.requests.count == 2)
    }

    @Test("a stream's window past 2^31-1 resets that stream (FLOW_CONTROL_ERROR); the connection goes on")
    func streamWindowOverflow() throws {
        let wire = try Wire()
        wire.send(
            try wire.headers(1, endStream: false) + Wire.windowUpdate(1, 0x7FFF_FFFF) + wire.headers(3, endStream: true)
        )
        let frames = try wire.written()
        #expect(frames.contains(Frame(type: 3, stream: 1, payload: [0, 0, 0, 3])), "\(frames)")
        #expect(frames.contains { $0.type == 1 && $0.stream == 3 }, "\(frames)")
        #expect(wire.channel.isActive)
    }

    @Test("a WINDOW_UPDATE of 0 on the connection is a connection error: GOAWAY(PROTOCOL_ERROR), then closed")
    func zeroWindowUpdateOnTheConnection() throws {
        let wire = try Wire()
        wire.send(Wire.windowUpdate(0, 0))
        let frames = try wire.written()
        #expect(frames.contains { $0.type == 7 && $0.errorCode == 1 }, "\(frames)")
        #expect(!wire.channel.isActive)
    }
}
