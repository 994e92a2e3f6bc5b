/// The files a notification may show (`UNNotificationAttachment`), as Apple's platforms accept
/// them: the types, their UTIs and file extensions, Apple's size limits (audio 5 MB, images 10 MB,
/// movies 50 MB) and the bytes each format starts with. Both sides use it: the app's
/// `UNNotificationAttachment` checks a file when it is made, and the server sniffs what it is given
/// (never trusting a name) before it keeps it. Pure.
public enum AttachmentMediaType: String, CaseIterable, Sendable {
    case aiff, wav, mp3, m4a
    case jpeg, gif, png
    case mpeg, mpeg2, mpeg4, avi

    public var uti: String {
        switch self {
        case .aiff: "public.aiff-audio"
        case .wav: "com.microsoft.waveform-audio"
        case .mp3: "public.mp3"
        case .m4a: "public.mpeg-4-audio"
        case .jpeg: "public.jpeg"
        case .gif: "com.compuserve.gif"
        case .png: "public.png"
        case .mpeg: "public.mpeg"
        case .mpeg2: "public.mpeg-2-video"
        case .mpeg4: "public.mpeg-4"
        case .avi: "public.avi"
        }
    }

    /// The MIME type a client is served.
    public var mimeType: String {
        switch self {
        case .aiff: "audio/aiff"
        case .wav: "audio/wav"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .png: "image/png"
        case .mpeg: "video/mpeg"
        case .mpeg2: "video/mp2t"
        case .mpeg4: "video/mp4"
        case .avi: "video/x-msvideo"
        }
    }

    public var extensions: [String] {
        switch self {
        case .aiff: ["aiff", "aif", "aifc"]
        case .wav: ["wav", "wave"]
        case .mp3: ["mp3"]
        case .m4a: ["m4a"]
        case .jpeg: ["jpg", "jpeg", "jpe"]
        case .gif: ["gif"]
        case .png: ["png"]
        case .mpeg: ["mpg", "mpeg"]
        case .mpeg2: ["m2v", "mp2", "ts", "m2ts"]
        case .mpeg4: ["mp4", "m4v"]
        case .avi: ["avi"]
        }
    }

    /// Apple's limits: audio 5 MB, images 10 MB, movies 50 MB.
    public var maximumSize: Int {
        switch self {
        case .aiff, .wav, .mp3, .m4a: 5_000_000
        case .jpeg, .gif, .png: 10_000_000
        case .mpeg, .mpeg2, .mpeg4, .avi: 50_000_000
        }
    }

    /// The image types (an avatar must be one).
    public static let images: [AttachmentMediaType] = [.jpeg, .gif, .png]

    /// The largest file of any type.
    public static let largestSize = 50_000_000
    /// How many leading bytes `sniff` and `matchesSignature` read.
    public static let signatureLength = 256

    public static func from(uti: String) -> AttachmentMediaType? {
        allCases.first { $0.uti == uti }
    }

    public static func from(pathExtension: String) -> AttachmentMediaType? {
        let lowered = pathExtension.lowercased()
        return allCases.first { $0.extensions.contains(lowered) }
    }

    /// The type a file's first bytes say it is; nil when they are none of these formats. An ISO media
    /// file is audio (`m4a`) when its brand says so (`M4A `, `M4B `, `M4P `), else a movie.
    public static func sniff(_ head: [UInt8]) -> AttachmentMediaType? {
        if AttachmentMediaType.mpeg4.matchesSignature(head) {
            let brand = head.count >= 12 ? String(decoding: head[8..<12], as: UTF8.self) : ""
            return ["M4A ", "M4B ", "M4P "].contains(brand) ? .m4a : .mpeg4
        }
        // AVI and WAV share RIFF; MPEG program streams and MPEG-2 transport streams differ.
        return [.png, .jpeg, .gif, .wav, .avi, .aiff, .mp3, .mpeg, .mpeg2].first { $0.matchesSignature(head) }
    }

    /// Whether the file's first bytes are this format's signature.
    public func matchesSignature(_ head: [UInt8]) -> Bool {
        func at(_ offset: Int, _ ascii: String) -> Bool {
            let bytes = Array(ascii.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        switch self {
        case .aiff: return at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC"))
        case .wav: return at(0, "RIFF") && at(8, "WAVE")
        case .avi: return at(0, "RIFF") && at(8, "AVI ")
        case .mp3:
            // An ID3 tag, or an MPEG audio frame sync (11 set bits).
            return at(0, "ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0)
        case .m4a, .mpeg4: return at(4, "ftyp") || at(4, "moov") || at(4, "mdat") || at(4, "wide")
        case .jpeg: return head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
        case .gif: return at(0, "GIF87a") || at(0, "GIF89a")
        case .png: return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .mpeg:
            // A program stream pack header or a video sequence header.
            return head.starts(with: [0x00, 0x00, 0x01, 0xBA]) || head.starts(with: [0x00, 0x00, 0x01, 0xB3])
        case .mpeg2:
            // The same headers, or a transport stream (sync byte 0x47 every 188 bytes).
            return head.starts(with: [0x00, 0x00, 0x01, 0xBA]) || head.starts(with: [0x00, 0x00, 0x01, 0xB3])
                || (head.first == 0x47 && (head.count < 189 || head[188] == 0x47))
        }
    }
}
