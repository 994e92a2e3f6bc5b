import Foundation
import HeraldCore
import Testing

@testable import HeraldServer

/// A service extension's process as Herald runs it (`ExtensionProcess`), with a shell script standing
/// in for the extension: what it leaves in its temporary directory goes when it ends.
@Suite("A service extension's process")
struct ExtensionProcessTests {
    @Test("each process has a TMPDIR of its own, and what it downloaded there is removed once it has exited")
    func temporaryDirectory() async throws {
        // It "downloads" a file into $TMPDIR, answers with where that is, and runs until its input closes.
        let script = #"""
            printf 'video' > "$TMPDIR/download.mp4"
            printf '{"id":"probe","tmpdir":"%s"}\n' "$TMPDIR"
            cat >/dev/null
            """#
        func start() throws -> ExtensionProcess {
            try ExtensionProcess(
                executable: "/bin/sh", arguments: ["-c", script],
                environment: ["PATH": "/usr/bin:/bin", "TMPDIR": "/the-server-s-own-tmp"], memoryLimit: 1 << 30)
        }
        let first = try start()
        let second = try start()
        for process in [first, second] {
            guard case .answer(let answer) = await process.answer(to: "probe", until: .now + .seconds(30)) else {
                Issue.record("no answer from the process")
                return
            }
            // Its own directory, in Herald's temporary directory (not the TMPDIR it would have inherited).
            #expect(answer["tmpdir"]?.stringValue == process.temporaryDirectory.path)
            #expect(
                process.temporaryDirectory.deletingLastPathComponent().path
                    == FileManager.default.temporaryDirectory.path)
            #expect(process.temporaryDirectory.lastPathComponent.hasPrefix("herald-extension-"))
            #expect(
                FileManager.default.fileExists(
                    atPath: process.temporaryDirectory.appendingPathComponent("download.mp4").path))
        }
        #expect(first.temporaryDirectory != second.temporaryDirectory)

        // Stopped (its input closes, it exits): its directory goes, the other's stays.
        first.stop()
        let deadline = ContinuousClock.now + .seconds(30)
        while FileManager.default.fileExists(atPath: first.temporaryDirectory.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: first.temporaryDirectory.path))
        #expect(FileManager.default.fileExists(atPath: second.temporaryDirectory.path))

        // Killed: the same.
        second.kill(because: "the test ends it")
        while FileManager.default.fileExists(atPath: second.temporaryDirectory.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: second.temporaryDirectory.path))
    }
}
