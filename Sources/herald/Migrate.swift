import ArgumentParser
import Foundation
import HeraldPostgres
import HeraldServer
import HeraldStore
import Logging

/// `herald migrate --from DIR --to postgres://…`: moves a data directory's SQLite database into an
/// empty PostgreSQL database, so that one or more nodes serve it (`herald serve --data DIR --database
/// URL`). The data directory keeps the rest (admin token, keys, certificates, attachments): the nodes
/// use it as before.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a data directory's SQLite database into an empty PostgreSQL database.",
        discussion: """
            Stop Herald first. Every table is copied in one transaction (nothing is written if any \
            part fails), with the same ids and cursors: devices and providers carry on unchanged. \
            Then start each node with `herald serve --data DIR --database URL`. The SQLite file is \
            left as it was.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The data directory whose herald.sqlite to copy.", valueName: "dir"))
    var from: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The PostgreSQL database to copy into (empty: made by `createdb`): postgres://user[:password]@host[:port]/database[?sslmode=…] or ?host=/socket/directory.",
            valueName: "url"))
    var to: String

    func validate() throws {
        do { _ = try PostgresURL(to) } catch { throw ValidationError("--to: \(error)") }
    }

    func run() async throws {
        var logger = Logger(label: "herald")
        logger.logLevel = .warning
        let directory = DataDirectory(path: from)
        let databasePath = directory.databaseURL.path
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw CommandFailure("\(directory.root.path) has no herald.sqlite: nothing to migrate.")
        }
        if let runtime = try? directory.readRuntime(), kill(runtime.pid, 0) == 0 {
            throw CommandFailure(
                "Herald is running on \(directory.root.path) (pid \(runtime.pid)): stop it first, so that nothing changes during the copy."
            )
        }
        let source = try SQLiteStore(path: databasePath, logger: logger)
        let target: PostgresStore
        do {
            target = try await PostgresStore.connect(to, logger: logger)
        } catch {
            throw CommandFailure("Cannot open the PostgreSQL database: \(error)")
        }
        let started = ContinuousClock.now
        let summary: ImportSummary
        do {
            summary = try await target.importTables(from: source)
        } catch let error as ImportError {
            await target.close()
            throw CommandFailure("Nothing was copied. \(error.description)")
        } catch {
            await target.close()
            throw CommandFailure("Nothing was copied: \(error)")
        }
        await target.close()
        let elapsed = ContinuousClock.now - started
        let total = summary.rows.values.reduce(0, +)
        Console.printLine(
            "Copied \(total) rows of \(summary.rows.count) tables in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds])))."
        )
        for (table, count) in summary.rows.sorted(by: { $0.key < $1.key }) where count > 0 {
            Console.printLine("  \(table): \(count)")
        }
        Console.printLine("Latest cursor: \(summary.latestSeq) (clients resume from their cursors unchanged).")
        Console.printLine("")
        Console.printLine("Start each node with:")
        // (The URL as given, unless it holds a password: that is not printed.)
        let url = (try? PostgresURL(to))?.password == nil ? shellQuoted(to) : "URL"
        Console.printLine("  herald serve --data \(shellQuoted(directory.root.path)) --database \(url)")
    }
}
