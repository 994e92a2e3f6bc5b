import HeraldPolicy
import Testing

@Suite("Threads view grouping")
struct ThreadGroupingTests {
    /// Newest first: chat-1 (m1), photos without thread (p1), chat-2 (m2), chat-1 (m3), no thread (p2).
    static let entries = [
        ThreadEntry(id: "m1", bundleID: "chat", threadID: "chat-1", summaryArgument: "Ana"),
        ThreadEntry(id: "p1", bundleID: "photos"),
        ThreadEntry(id: "m2", bundleID: "chat", threadID: "chat-2", summaryArgument: "Bo"),
        ThreadEntry(id: "m3", bundleID: "chat", threadID: "chat-1", summaryArgument: "Bo", summaryArgumentCount: 3),
        ThreadEntry(id: "m4", bundleID: "chat", threadID: "chat-1", summaryArgument: "Bo"),
        ThreadEntry(id: "p2", bundleID: "photos", threadID: ""),
    ]

    static func shape(_ groups: [NotificationThreadGroup]) -> [String] {
        groups.map { "\($0.bundleID)/\($0.threadID ?? "-"):" + $0.entries.map(\.id).joined(separator: ",") }
    }

    @Test func automaticGroupsByAppAndThreadNewestGroupFirst() {
        let groups = NotificationThreads.group(Self.entries) { _ in .automatic }
        #expect(Self.shape(groups) == ["chat/chat-1:m1,m3,m4", "photos/-:p1,p2", "chat/chat-2:m2"])
        // %u sums the others' summary-arg-count (1 when not sent); %@ lists their distinct arguments.
        #expect(groups[0].summaryCount == 4)
        #expect(groups[0].summaryArguments == ["Bo"])
        #expect(groups[1].summaryCount == 1 && groups[1].summaryArguments.isEmpty)
        #expect(groups[2].summaryCount == 0)
    }

    @Test func byAppMakesOneGroupPerAppAndOffOneGroupPerNotification() {
        let byApp = NotificationThreads.group(Self.entries) { $0 == "chat" ? .byApp : .automatic }
        #expect(Self.shape(byApp) == ["chat/-:m1,m2,m3,m4", "photos/-:p1,p2"])
        #expect(byApp[0].grouping == .byApp && byApp[0].summaryArguments == ["Bo"])
        let off = NotificationThreads.group(Self.entries) { $0 == "chat" ? .off : .automatic }
        #expect(
            Self.shape(off) == [
                "chat/chat-1:m1", "photos/-:p1,p2", "chat/chat-2:m2", "chat/chat-1:m3", "chat/chat-1:m4",
            ])
        #expect(off.allSatisfy { $0.bundleID != "chat" || $0.summaryCount == 0 })
    }
}
