// herald-h2-floor: Herald's APNs listener with nothing behind it — the cost of the HTTP/2 layer alone
// (SwiftNIO, NIOHTTP2 and Herald's connection handler), measured by scripts/bench and
// scripts/profile-push next to the whole push path and nginx. A benchmark tool, not a server.
//
// It runs the same `APNsListener` as `herald serve` (same event loops, pipeline, settings and answer
// frames) with a handler that answers every request at once with what an accepted push gets: 200
// with an `apns-id` (the request's or a new time-ordered one) and an `apns-unique-id`. No token,
// validation, decision, store or fan-out. What a push costs above this floor is Herald's own work.
//
//   herald-h2-floor [--host 127.0.0.1] [--port 0] [--tls-port N --certificate PEM --key PEM]
//                   [--durable FILE [--record-bytes 1700]]
//
// With --durable, each request is answered only once a group commit has written `--record-bytes` for
// it to FILE and synced it (`DurableLog`): the least a durable answer costs in latency, with nothing
// of Herald's store. scripts/bench runs it at the fixed rate beside Herald's p99 target.
//
// Prints one JSON line with the bound ports (`{"cleartext":…,"tls":…}`) on standard output, then
// serves until SIGTERM or SIGINT.
import Foundation
import HeraldAPNs
import HeraldCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UnixSignals

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

/// Answers every request as an accepted push: on the thread that read it, or (with a durable log)
/// from the log's thread once the request's record is synced.
struct AcceptEverything: PushHandler {
    let log: DurableLog?
    private static let counter = Atomic<UInt64>(UInt64(Date().timeIntervalSince1970 * 1_000_000))

    func handle(_ request: APNsRequest, connection: APNsConnection) async -> APNsResponse {
        await withCheckedContinuation { continuation in
            handle(request, connection: connection) { continuation.resume(returning: $0) }
        }
    }

    func handle(
        _ request: APNsRequest, connection: APNsConnection, respond: @escaping @Sendable (APNsResponse) -> Void
    ) {
        let response = answer(request)
        if let log {
            log.append { respond(response) }
        } else {
            respond(response)
        }
    }

    private func answer(_ request: APNsRequest) -> APNsResponse {
        // Ids of the same shape as Herald's, from a cheap generator: Herald reads its random bytes
        // 4 KiB at a time (RandomPool), so the system generator's call per word would add a cost the
        // push path does not have.
        var generator = SplitMix64(seed: Self.counter.add(1, ordering: .relaxed).newValue)
        let apnsID =
            request.headers.first { $0.name == "apns-id" }?.value
            ?? APNsID.makeTimeOrdered(at: Date(), using: &generator)
        return APNsResponse(status: 200, apnsID: apnsID, uniqueID: APNsID.make(using: &generator))
    }
}

var logger = Logger(label: "herald-h2-floor")
logger.logLevel = .warning
let configuration = APNsListenerConfiguration(
    host: option("--host") ?? "127.0.0.1", cleartextPort: option("--port").flatMap(Int.init) ?? 0,
    tlsPort: option("--tls-port").flatMap(Int.init), certificatePath: option("--certificate"),
    privateKeyPath: option("--key"))
let durableLog = try option("--durable").map { path in
    try DurableLog(path: path, recordBytes: option("--record-bytes").flatMap(Int.init) ?? 1_700)
}
durableLog?.start()
let listener = APNsListener(
    configuration: configuration, handler: AcceptEverything(log: durableLog),
    group: MultiThreadedEventLoopGroup.singleton,
    logger: logger)
let bound = try await listener.bind()
let tls = bound.tls?.port.map(String.init) ?? "null"
FileHandle.standardOutput.write(Data("{\"cleartext\":\(bound.cleartext.port ?? 0),\"tls\":\(tls)}\n".utf8))
let group = ServiceGroup(
    configuration: .init(services: [listener], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
