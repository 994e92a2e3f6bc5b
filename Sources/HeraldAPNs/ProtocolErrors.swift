import NIOHTTP2

/// Which errors of the HTTP/2 layer end the whole connection.
///
/// NIOHTTP2 reports both kinds through `errorCaught` with the underlying error only, so the kind
/// is read off the error's type. Only errors about one request's header block or its declared
/// length are confined to a stream: NIOHTTP2 answers them with RST_STREAM(PROTOCOL_ERROR) and the
/// provider's other streams go on (as a sloppy but honest client would want), and NIOHTTP2's glitch
/// limit turns a flood of them into a connection error. Everything else — frames it cannot parse,
/// bad HPACK, CONTINUATION or RST_STREAM floods, flow-control and stream-state violations, TLS
/// errors — closes the connection.
enum ProtocolErrors {
    static func isConfinedToOneStream(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.InvalidHTTP2HeaderFieldName,
            is NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue,
            is NIOHTTP2Errors.ForbiddenHeaderField,
            is NIOHTTP2Errors.MissingPseudoHeader,
            is NIOHTTP2Errors.DuplicatePseudoHeader,
            is NIOHTTP2Errors.PseudoHeaderAfterRegularHeader,
            is NIOHTTP2Errors.UnknownPseudoHeader,
            is NIOHTTP2Errors.UnsupportedPseudoHeader,
            is NIOHTTP2Errors.InvalidPseudoHeaders,
            is NIOHTTP2Errors.InvalidPseudoHeaderValue,
            is NIOHTTP2Errors.MissingHostHeader,
            is NIOHTTP2Errors.DuplicateHostHeader,
            is NIOHTTP2Errors.EmptyPathHeader,
            is NIOHTTP2Errors.ContentLengthViolated,
            is NIOHTTP2Errors.ContentLengthHeadersMismatch,
            is NIOHTTP2Errors.ContentLengthHeaderNegative,
            is NIOHTTP2Errors.ContentLengthHeaderMalformedValue:
            true
        default:
            false
        }
    }
}
