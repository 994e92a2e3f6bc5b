import Foundation
import HTTPTypes
import HeraldAPI

/// Each JSON request body the API accepts (`RequestBodyParsing` in HeraldAPI: the admin bodies, the
/// clock, app settings, preferences, Focus modes, Summary, device state, categories; the app API's
/// local notification requests with their content and trigger, categories, authorization requests
/// and `willPresent` answers; a person's response to a notification). The first input byte picks the
/// body, the rest is the body.
///
/// The property: a body is either read or refused with a 400 `APIError` (any other error would
/// reach the client as a 500), the same way each time; a partial `PUT` body applied twice gives what
/// it gave once (a `PUT` is idempotent).
enum APIRequestBodyTarget {
    static let target = FuzzTarget(
        name: "api-request-body",
        property:
            "RequestBodyParsing: each body is read or refused with a 400 APIError, deterministically; PUTs are idempotent",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        guard let first = input.first else { return }
        let kind = RequestBodyParsing.kinds[Int(first) % RequestBodyParsing.kinds.count]
        let body = Data(input.dropFirst())
        let parsed: RequestBodyParsing.Parsed
        do {
            parsed = try RequestBodyParsing.parse(kind: kind, body: body)
        } catch let error as APIError {
            try require(error.status.code == 400, "\(kind) body refused with \(error)")
            do {
                _ = try RequestBodyParsing.parse(kind: kind, body: body)
                throw PropertyViolation("\(kind) body refused once, then accepted")
            } catch let again as APIError {
                return try require(again == error, "\(kind) body refused as \(error), then \(again)")
            }
        } catch {
            throw PropertyViolation("\(kind) body refused with an error that is not an APIError (a 500): \(error)")
        }
        let again = try RequestBodyParsing.parse(kind: kind, body: body)
        try require(again.value == parsed.value, "\(kind) body read as \(parsed.value), then \(again.value)")
        if let twice = parsed.appliedTwice {
            try require(twice == parsed.value, "\(kind) PUT applied twice gives \(twice), once \(parsed.value)")
        }
    }
}
