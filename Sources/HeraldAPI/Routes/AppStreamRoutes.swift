import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// The app's live connection and what it answers (`UNUserNotificationCenterDelegate` over HTTP):
/// - `GET /v1/app/stream[?will_present=true]` (the app's credential): Server-Sent Events.
///   `event: response` — a person's response (`didReceive`), each at most once (a connection claims
///   it in the store before writing it), and those made while the app was away as soon as it
///   connects. `event: will_present` (only to a connection that asked for them) — a notification
///   about to be delivered while the app is in front of the unlocked device; the delivery waits for
///   the answer (at most `AppConnections.willPresentTimeout`, else it is not presented).
/// - `POST /v1/app/will-present/{id}` `{"options": ["banner","list","sound","badge"]}`: the answer.
struct AppStreamRoutes: Sendable {
    /// The most responses one store read of a connection takes.
    static let claimBatch = 50

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var routes: [APIRoute] {
        [
            APIRoute(.get, "/v1/app/stream", appStream),
            APIRoute(.post, "/v1/app/will-present/{id}", answerWillPresent),
        ]
    }

    @Sendable func appStream(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let answersWillPresent: Bool
        switch request.uri.queryParameters.get("will_present") {
        case nil, "false": answersWillPresent = false
        case "true": answersWillPresent = true
        default: throw APIError.invalidField("will_present", "must be true or false.")
        }
        let dependencies = self.dependencies
        return Response(
            status: .ok, headers: ServerSentEvents.headers,
            body: ResponseBody { writer in
                let registration = dependencies.apps.register(
                    deviceID: app.deviceID, bundleID: app.bundleID, answersWillPresent: answersWillPresent)
                defer { registration.cancel() }
                let stopping = Atomic<Bool>(false)
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                try await withTaskCancellationOrGracefulShutdownHandler {
                    while !Task.isCancelled && !stopping.load(ordering: .acquiring) {
                        // Questions first: a delivery waits for their answer.
                        for question in registration.takeQuestions() {
                            var buffer = ByteBuffer(string: "id: \(question.id)\nevent: will_present\ndata: ")
                            buffer.writeBytes(try JSONBody.encode(Self.json(question)))
                            buffer.writeString("\n\n")
                            try await writer.write(buffer)
                        }
                        let claimed = try await dependencies.store.claimResponses(
                            deviceID: app.deviceID, bundleID: app.bundleID, limit: Self.claimBatch,
                            at: dependencies.now())
                        for response in claimed {
                            var buffer = ByteBuffer(string: "id: \(response.id)\nevent: response\ndata: ")
                            buffer.writeBytes(try JSONBody.encode(ResponseRoutes.json(response)))
                            buffer.writeString("\n\n")
                            try await writer.write(buffer)
                        }
                        if claimed.count == Self.claimBatch { continue }
                        await registration.wait(timeout: dependencies.heartbeatInterval)
                        if stopping.load(ordering: .acquiring) { break }
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    }
                } onCancelOrGracefulShutdown: {
                    stopping.store(true, ordering: .releasing)
                    registration.cancel()
                }
                try await writer.finish(nil)
            })
    }

    /// A `will_present` event: the question's id and the notification as the app's list shows one
    /// (`identifier`, `date`, `source`, `trigger`; `notification.payload`), not stored yet.
    static func json(_ asked: AppConnections.Question) -> JSONValue {
        let question = asked.question
        return .object([
            "id": .string(asked.id),
            "notification": .object([
                "identifier": .string(question.identifier),
                "date": .string(Timestamp.string(question.date)),
                "source": .string(question.isLocal ? "local" : "push"),
                "trigger": question.trigger.flatMap { try? JSONParser.parse(Array($0.utf8)) } ?? .null,
                "notification": .object([
                    "payload": (try? JSONParser.parse(Array(question.payload.utf8))) ?? .object([:])
                ]),
            ]),
        ])
    }

    @Sendable func answerWillPresent(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let id = try context.parameters.require("id")
        let options = try Self.willPresentOptions(try await JSONFields.body(request, context: context))
        guard dependencies.apps.answer(id: id, deviceID: app.deviceID, bundleID: app.bundleID, options: options)
        else {
            throw APIError.notFound(
                "question_not_found",
                "No willPresent question with this id waits for this app: it was answered, timed out, or is not its own."
            )
        }
        return Response(status: .noContent)
    }

    /// Reads the body of `POST /v1/app/will-present/{id}`: how to present the notification.
    static func willPresentOptions(_ fields: JSONFields) throws -> PresentationOptions {
        try fields.allowOnly(["options"])
        guard let names = try fields.strings("options") else { throw APIError.missingField("options") }
        return try PolicyNames.presentationOptions(names, field: "options")
    }
}
