// UNNotificationAttachment's validation: each refusal is Apple's UNError code.
#if os(Linux)
    import Foundation
    import Testing
    import UserNotifications

    @Suite("UNNotificationAttachment")
    struct AttachmentTests {
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("un-attach-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func file(_ name: String, _ bytes: [UInt8], padTo size: Int = 0) throws -> URL {
            let url = directory.appendingPathComponent(name)
            var data = Data(bytes)
            if size > data.count { data.append(Data(count: size - data.count)) }
            try data.write(to: url)
            return url
        }

        func code(_ body: () throws -> UNNotificationAttachment) -> UNError.Code? {
            do {
                _ = try body()
                return nil
            } catch let error as UNError {
                return error.code
            } catch {
                return nil
            }
        }

        @Test("valid files of each family are accepted with their UTI")
        func valid() throws {
            let png = try file("a.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            let jpeg = try file("b.JPG", [0xFF, 0xD8, 0xFF, 0xE0])
            let wav = try file("c.wav", Array("RIFF\0\0\0\0WAVE".utf8))
            let mp4 = try file("d.mp4", [0, 0, 0, 0x18] + Array("ftypmp42".utf8))
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try UNNotificationAttachment(identifier: "p", url: png).type == "public.png")
            #expect(try UNNotificationAttachment(identifier: "j", url: jpeg).type == "public.jpeg")
            #expect(try UNNotificationAttachment(identifier: "w", url: wav).type == "com.microsoft.waveform-audio")
            let movie = try UNNotificationAttachment(identifier: "", url: mp4, options: nil)
            #expect(movie.type == "public.mpeg-4")
            #expect(!movie.identifier.isEmpty)  // an empty identifier gets a unique one, as Apple's does
            #expect(movie.url == mp4)
        }

        @Test("once Herald holds them, attachment files are moved: removed, unless inside the app's bundle")
        func movedIntoTheStore() throws {
            defer { try? FileManager.default.removeItem(at: directory) }
            let bundle = directory.appendingPathComponent("App", isDirectory: true)
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            let outside = try file("photo.png", png)
            let inside = try file("App/logo.png", png)
            let beside = try file("AppData.png", png)  // a sibling whose name starts like the bundle's
            let content = UNMutableNotificationContent()
            content.attachments = try [outside, inside, beside].enumerated().map {
                try UNNotificationAttachment(identifier: "\($0.offset)", url: $0.element)
            }
            HeraldConnection.removeMovedFiles(of: content, bundle: bundle)
            #expect(!FileManager.default.fileExists(atPath: outside.path))
            #expect(!FileManager.default.fileExists(atPath: beside.path))
            #expect(FileManager.default.fileExists(atPath: inside.path))
            HeraldConnection.removeMovedFiles(of: content, bundle: bundle)  // already gone: no error
        }

        @Test("a missing file or a non-file URL is attachmentInvalidURL (100)")
        func invalidURL() throws {
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(
                code { try UNNotificationAttachment(identifier: "x", url: directory.appendingPathComponent("no.png")) }
                    == .attachmentInvalidURL)
            #expect(
                code { try UNNotificationAttachment(identifier: "x", url: URL(string: "https://example.com/a.png")!) }
                    == .attachmentInvalidURL)
            #expect(code { try UNNotificationAttachment(identifier: "x", url: directory) } == .attachmentInvalidURL)
        }

        @Test(
            "an unsupported extension or type hint is attachmentUnrecognizedType (101); a hint overrides the extension")
        func unrecognizedType() throws {
            let text = try file("notes.txt", Array("hello".utf8))
            let pngNamedBin = try file("image.bin", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(code { try UNNotificationAttachment(identifier: "x", url: text) } == .attachmentUnrecognizedType)
            #expect(
                code {
                    try UNNotificationAttachment(
                        identifier: "x", url: pngNamedBin,
                        options: [UNNotificationAttachmentOptionsTypeHintKey: "public.plain-text"])
                } == .attachmentUnrecognizedType)
            let hinted = try UNNotificationAttachment(
                identifier: "x", url: pngNamedBin, options: [UNNotificationAttachmentOptionsTypeHintKey: "public.png"])
            #expect(hinted.type == "public.png")
        }

        @Test("over the type's limit is attachmentInvalidFileSize (102): audio 5 MB, image 10 MB")
        func invalidSize() throws {
            let bigAudio = try file("big.mp3", Array("ID3".utf8), padTo: 5_000_001)
            let fineAudio = try file("fine.mp3", Array("ID3".utf8), padTo: 5_000_000)
            let bigImage = try file("big.gif", Array("GIF89a".utf8), padTo: 10_000_001)
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(code { try UNNotificationAttachment(identifier: "x", url: bigAudio) } == .attachmentInvalidFileSize)
            #expect(code { try UNNotificationAttachment(identifier: "x", url: bigImage) } == .attachmentInvalidFileSize)
            #expect(try UNNotificationAttachment(identifier: "x", url: fineAudio).type == "public.mp3")
        }

        @Test("bytes that are not the format named are attachmentCorrupt (105), an empty file too")
        func corrupt() throws {
            let fakePNG = try file("fake.png", Array("not a png".utf8))
            let empty = try file("empty.gif", [])
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(code { try UNNotificationAttachment(identifier: "x", url: fakePNG) } == .attachmentCorrupt)
            #expect(code { try UNNotificationAttachment(identifier: "x", url: empty) } == .attachmentCorrupt)
        }
    }
#endif
