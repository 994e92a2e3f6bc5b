import Foundation
import Testing

/// The new `herald` commands refuse bad arguments before they call anything (exit 64, a sentence
/// naming the option). Runs the built executable; skipped when it has not been built.
/// The built `herald` executable, when there is one.
enum HeraldExecutable {
    static let url: URL? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for configuration in ["debug", "release"] {
            let url = root.appendingPathComponent(".build/\(configuration)/herald")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }()
}

@Suite("herald command-line validation", .enabled(if: HeraldExecutable.url != nil))
struct CLIArgumentTests {
    static var executable: URL? { HeraldExecutable.url }

    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = try #require(executable)
        process.arguments = arguments
        // No ./herald-data in the temporary directory: nothing is read from a data directory.
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(
        "bad arguments exit 64 with a sentence naming what is wrong",
        arguments: [
            (["focus", "on", "Bad Id", "--token", "t"], "Focus id"),
            (["focus", "on", "work", "--until", "tomorrow", "--token", "t"], "--until"),
            (["settings", "set", "com.example.app", "--sound", "loud", "--token", "t"], "--sound"),
            (["settings", "set", "com.example.app", "--token", "t"], "at least one setting"),
            (["device-state", "set", "d1", "--audio-route", "bluetooth", "--token", "t"], "--audio-route"),
            (["device-state", "set", "d1", "--will-present", "banner", "--token", "t"], "--foreground-app"),
            (["device-state", "set", "d1", "--locked", "maybe", "--token", "t"], "--locked"),
            (["explain", "n1"], "--token"),
            (["threads", "--device", "d1", "--limit", "0", "--token", "t"], "--limit"),
            (["threads", "--device", "d1"], "--token"),
            (["badges", "--device", "", "--token", "t"], "--device"),
            (["settings", "set", "com.example.app", "--grouping", "stacked", "--token", "t"], "--grouping"),
            (
                ["admin", "category", "add", "com.example.app", "MSG", "--action", "ONLYID", "--admin-token", "x"],
                "--action"
            ),
            (
                ["admin", "category", "add", "com.example.app", "MSG", "--option", "sticky", "--admin-token", "x"],
                "--option"
            ),
            (
                ["admin", "localization", "upload", "com.example.app", "en", "notes.txt", "--admin-token", "x"],
                ".strings"
            ),
            (["clock", "advance", "soon", "--admin-token", "x"], "like 1h30m"),
            (["clock", "advance", "1m1h", "--admin-token", "x"], "like 1h30m"),
            (["clock", "set", "tomorrow", "--admin-token", "x"], "ISO 8601"),
            (["clock", "set", "2026-03-01T07:30:00", "--admin-token", "x"], "ISO 8601"),
            (["clock"], "--admin-token"),
        ])
    func refusesBadArguments(_ arguments: [String], _ mention: String) throws {
        let (status, stderr) = try Self.run(arguments)
        #expect(status == 64, "\(arguments)")
        #expect(stderr.contains(mention), "\(arguments): \(stderr)")
    }

    @Test("the new commands are listed in herald --help")
    func helpListsCommands() throws {
        let process = Process()
        process.executableURL = try #require(Self.executable)
        process.arguments = ["--help"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for command in ["explain", "focus", "settings", "device-state", "threads", "badges", "clock"] {
            #expect(text.contains("  \(command) "), "\(command)")
        }
    }
}
