import Foundation
import HeraldAPI
import HeraldCore
import HeraldPolicy
import HeraldStore

// What an extension's answer makes of a push: the payload to show (merged, checked as APNs would),
// what the decision records, and the files to attach. Pure.
extension ServiceExtensionService {
    /// The payload to show and what to record, from the extension's answer.
    struct Outcome {
        var payload: JSONValue
        var ref: DecisionRecord.ServiceExtensionRef
        /// A process extension's content, merged into the payload (its attachments to resolve).
        var merged: ExtensionContent.Merged?
        /// A webhook's files to attach.
        var files: [ExtensionAnswer.File] = []
    }

    static func outcome(_ answer: ExtensionAnswer, original: JSONValue, budget: Int) -> Outcome {
        func ref(_ outcome: DecisionRecord.ServiceExtensionRef.Outcome, _ error: String? = nil)
            -> DecisionRecord.ServiceExtensionRef
        {
            DecisionRecord.ServiceExtensionRef(
                outcome: outcome, durationMilliseconds: answer.milliseconds, budgetMilliseconds: budget, error: error)
        }
        let shown: JSONValue
        let outcome: DecisionRecord.ServiceExtensionRef.Outcome
        var merged: ExtensionContent.Merged?
        var files: [ExtensionAnswer.File] = []
        switch answer.result {
        case .content(let content, let before, let expired):
            do {
                let result = try ExtensionContent.merge(payload: original, before: before, after: content)
                shown = result.payload
                merged = result
                outcome = expired ? .bestAttempt : (result.changed ? .modified : .unchanged)
            } catch {
                return Outcome(payload: original, ref: ref(.failed, "its content is not valid: \(error.description)"))
            }
        case .payload(let payload, let given):
            shown = payload
            files = given
            outcome = payload == original && given.isEmpty ? .unchanged : .modified
        case .timedOut:
            return Outcome(payload: original, ref: ref(.timedOut))
        case .failed(let why):
            return Outcome(payload: original, ref: ref(.failed, why))
        }
        let bytes = (try? JSONEncoder().encode(shown)) ?? Data()
        guard bytes.count <= ExtensionContent.maximumPayloadBytes else {
            let limit = ExtensionContent.maximumPayloadBytes
            return Outcome(
                payload: original,
                ref: ref(.failed, "its content makes a payload of \(bytes.count) bytes, over \(limit)"))
        }
        if case .failure(let error) = Result(catching: { () throws(PayloadError) in
            try NotificationPayload(json: bytes, requiresAPS: true)
        }) {
            return Outcome(
                payload: original, ref: ref(.failed, "its content makes a payload APNs would refuse: \(error.message)"))
        }
        return Outcome(payload: shown, ref: ref(outcome), merged: merged, files: files)
    }
}
