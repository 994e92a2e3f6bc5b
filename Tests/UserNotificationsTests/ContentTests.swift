// Content's copy semantics (Foundation's), value equality, and keyed-archive round trips.
#if os(Linux)
    import Foundation
    import Testing
    import UserNotifications

    /// A content with every field set to something other than its default.
    func fullContent() -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = "Title"
        content.subtitle = "Subtitle"
        content.body = "Body"
        content.badge = 3
        content.sound = .criticalSoundNamed(UNNotificationSoundName("alarm.aiff"), withAudioVolume: 0.5)
        content.launchImageName = "Launch"
        content.userInfo = ["video-url": "https://example.com/v.m4a", "count": 2, "nested": ["a": [1, 2]]]
        content.categoryIdentifier = "comment-category"
        content.threadIdentifier = "thread-1"
        content.targetContentIdentifier = "window-2"
        content.interruptionLevel = .timeSensitive
        content.relevanceScore = 0.75
        content.filterCriteria = "work"
        return content
    }

    @Suite("UNNotificationContent")
    struct ContentTests {
        @Test("new content has Apple's defaults")
        @available(*, deprecated, message: "reads the deprecated summary fields on purpose")
        func defaults() {
            let content = UNNotificationContent()
            #expect(content.title == "" && content.subtitle == "" && content.body == "")
            #expect(content.badge == nil && content.sound == nil)
            #expect(content.userInfo.isEmpty && content.attachments.isEmpty)
            #expect(content.categoryIdentifier == "" && content.threadIdentifier == "")
            #expect(content.targetContentIdentifier == nil && content.filterCriteria == nil)
            #expect(content.interruptionLevel == .active && content.relevanceScore == 0)
            #expect(content.summaryArgument == "" && content.summaryArgumentCount == 1)  // Apple: "Default is 1"
        }

        @Test("mutableCopy of immutable content is a UNMutableNotificationContent with the same values")
        func mutableCopyOfImmutable() throws {
            let immutable = try #require(fullContent().copy() as? UNNotificationContent)
            #expect(!(immutable is UNMutableNotificationContent))
            let mutable = try #require(immutable.mutableCopy() as? UNMutableNotificationContent)
            #expect(mutable == immutable)
            #expect(mutable.title == "Title" && mutable.userInfo["video-url"] as? String == "https://example.com/v.m4a")
            mutable.title = "Changed"
            #expect(immutable.title == "Title")
            #expect(mutable != immutable)
        }

        @Test("copy of mutable content is an immutable snapshot; copy of immutable content is itself")
        func copies() throws {
            let mutable = fullContent()
            let snapshot = try #require(mutable.copy() as? UNNotificationContent)
            #expect(!(snapshot is UNMutableNotificationContent))
            #expect(snapshot == mutable)
            mutable.body = "Later"
            #expect(snapshot.body == "Body")
            let again = try #require(snapshot.copy() as? UNNotificationContent)
            #expect(again === snapshot)
            let second = try #require(mutable.mutableCopy() as? UNMutableNotificationContent)
            #expect(second !== mutable)
            #expect(second == mutable)
        }

        @Test("equality is by value, and the hash agrees")
        func equality() {
            let a = fullContent()
            let b = fullContent()
            #expect(a == b)
            #expect(a.hash == b.hash)
            b.userInfo = ["video-url": "https://example.com/other.m4a", "count": 2, "nested": ["a": [1, 2]]]
            #expect(a != b)
            b.userInfo = a.userInfo
            b.sound = .default
            #expect(a != b)
            b.sound = a.sound
            b.relevanceScore = 0.5
            #expect(a != b)
        }

        @Test("a request keeps a snapshot of its content")
        func requestSnapshot() {
            let content = fullContent()
            let request = UNNotificationRequest(identifier: "r", content: content, trigger: nil)
            content.title = "After"
            #expect(request.content.title == "Title")
            #expect(!(request.content is UNMutableNotificationContent))
            #expect(request.trigger == nil)
        }

        @Test("content, with its sound, attachment and user info, survives a secure keyed archive")
        func secureCodingRoundTrip() throws {
            let content = fullContent()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let png = directory.appendingPathComponent("a.png")
            try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]).write(to: png)
            content.attachments = [try UNNotificationAttachment(identifier: "image", url: png)]
            let data = try NSKeyedArchiver.archivedData(withRootObject: content, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClasses: [UNMutableNotificationContent.self], from: data)
                    as? UNMutableNotificationContent)
            #expect(decoded == content)
            #expect(decoded.attachments.first?.type == "public.png")
            #expect(decoded.sound == .criticalSoundNamed(UNNotificationSoundName("alarm.aiff"), withAudioVolume: 0.5))
        }

        @Test("a request with a calendar trigger survives a secure keyed archive")
        func requestRoundTrip() throws {
            var components = DateComponents()
            components.hour = 8
            components.minute = 30
            components.timeZone = TimeZone(identifier: "Europe/Berlin")
            let request = UNNotificationRequest(
                identifier: "morning", content: fullContent(),
                trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: true))
            let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
            let decoded = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: UNNotificationRequest.self, from: data))
            #expect(decoded == request)
            let trigger = try #require(decoded.trigger as? UNCalendarNotificationTrigger)
            #expect(trigger.dateComponents.hour == 8 && trigger.dateComponents.timeZone?.identifier == "Europe/Berlin")
            #expect(trigger.repeats)
        }

        @Test("sounds: the kinds Apple has, and a critical volume is clamped to 0…1")
        func sounds() {
            #expect(UNNotificationSound.default == UNNotificationSound.default)
            #expect(UNNotificationSound.default != UNNotificationSound.defaultCritical)
            #expect(UNNotificationSound(named: UNNotificationSoundName("a.caf")).soundName?.rawValue == "a.caf")
            #expect(UNNotificationSound.defaultCriticalSound(withAudioVolume: 3).audioVolume == 1)
            #expect(UNNotificationSound.criticalSoundNamed(UNNotificationSoundName("a.caf")).kind == .critical)
            #expect(UNNotificationSound.ringtoneSoundNamed(UNNotificationSoundName("ring.caf")).kind == .ringtone)
            #expect(UNNotificationSound.defaultRingtone.soundName == nil)
        }
    }
#endif
