import ArgumentParser
import Foundation
import HeraldClient

/// `herald clock [show|set|advance]`: the server's time; on a server started with
/// `herald serve --clock manual`, set it or advance it.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Print the server's time; set or advance it on a server started with --clock manual.",
        discussion: """
            Prints the API's JSON: {"mode": "manual"|"system", "now": "…"}. `set` and `advance` return \
            once the Focus schedules and the Scheduled Summary have acted up to the new time; time only \
            moves forward. A server on the wall clock answers 409 clock_not_manual (printed to stderr, \
            exit 1). With --data (default ./herald-data when it exists), the URL and admin token come \
            from that data directory.
            """,
        subcommands: [Show.self, SetTime.self, Advance.self],
        defaultSubcommand: Show.self
    )

    struct Show: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Print the server's time and clock mode.")

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.clock()
        }
    }

    struct SetTime: AdminAPICommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Move the manual clock forward to a time.",
            discussion: "The time is ISO 8601 with a time zone: 2026-03-01T07:30:00Z, 2026-03-01T13:00:00+05:30."
        )

        @Argument(help: ArgumentHelp("The new time (ISO 8601, with Z or an offset).", valueName: "time"))
        var time: String

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            guard
                (try? Date(time, strategy: fractional)) != nil
                    || (try? Date(time, strategy: Date.ISO8601FormatStyle())) != nil
            else {
                throw ValidationError(
                    "The time must be ISO 8601 with a time zone, like 2026-03-01T07:30:00Z, not \(time).")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.setClock(to: time)
        }
    }

    struct Advance: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Move the manual clock forward by a duration.",
            discussion:
                "Seconds (90, 0.5) or amounts with units, largest first: 1h30m, 2d, 45s, 1d12h, 500ms; or ISO 8601: PT1H30M."
        )

        @Argument(help: ArgumentHelp("How far: seconds, 1h30m-style, or PT1H30M.", valueName: "duration"))
        var duration: String

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            guard ClockDuration.seconds(duration) != nil else {
                throw ValidationError(
                    "The duration must be seconds or like 1h30m, 2d, 45s or PT1H30M, not \(duration).")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.advanceClock(seconds: ClockDuration.seconds(duration) ?? 0)
        }
    }
}
