import NIOHTTP2

/// Which errors of the HTTP/2 layer end the whole connection.
///
/// Without a stream multiplexer NIOHTTP2 reports a stream error (it answered with RST_STREAM, RFC 9113
/// §5.4.2) and a connection error (it answered with GOAWAY, §5.4.1) the same way: `errorCaught` with the
/// underlying error only, and the same error type can be either (a WINDOW_UPDATE of 0 is a connection
/// error on stream 0 and a stream error on a stream). What tells them apart is the GOAWAY: NIOHTTP2 writes
/// it, synchronously, before it reports a connection error, and `HTTP2ConnectionHandler` sees it written
/// (it is NIOHTTP2's frame delegate). So an error of NIOHTTP2 reported with no GOAWAY written is a stream
/// error: that stream was reset and the provider's other streams go on (NIOHTTP2's glitch limit turns a
/// flood of them into a connection error, with its GOAWAY). Everything else — a GOAWAY written (frames it
/// cannot parse, bad HPACK, CONTINUATION or RST_STREAM floods, flow-control and stream-state violations of
/// the connection), TLS and I/O errors — closes the connection.
enum ProtocolErrors {
    static func isConfinedToOneStream(_ error: any Error, goAwayWritten: Bool) -> Bool {
        !goAwayWritten && error is any NIOHTTP2Error
    }
}
