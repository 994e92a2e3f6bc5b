import Foundation
import HeraldPolicy
import Testing

/// Who Herald suggests for a Focus: people reached by outgoing interactions, counted once per
/// interaction however their handle is written, the excluded left out, most reached first.
@Suite struct PeopleSuggestionsTests {
    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }
    static func person(_ value: String, _ kind: PersonHandle.Kind, _ name: String?) -> PeopleSuggestions.Person {
        PeopleSuggestions.Person(handle: PersonHandle(value, kind: kind), displayName: name)
    }

    @Test func rankedByCountThenRecency() {
        let ben = Self.person("+1 555 010 0300", .phoneNumber, "Ben")
        let benAgain = Self.person("555-010-0300", .phoneNumber, "Benjamin")
        let cara = Self.person("Cara@Example.com", .emailAddress, "Cara")
        let dan = Self.person("dan", .appSpecific, nil)
        let ranked = PeopleSuggestions.rank(
            [
                .init(people: [ben, benAgain], bundleID: "a", date: Self.at(1)),
                .init(people: [cara], bundleID: "a", date: Self.at(2)),
                .init(people: [benAgain], bundleID: "b", date: Self.at(3)),
                .init(people: [dan], bundleID: "a", date: Self.at(4)),
            ], excluding: [], limit: 10)
        #expect(ranked.map(\.displayName) == ["Benjamin", nil, "Cara"])
        #expect(ranked.map(\.interactions) == [2, 1, 1])
        #expect(ranked.first?.bundleIDs == ["a", "b"] && ranked.first?.lastInteraction == Self.at(3))
        #expect(
            PeopleSuggestions.rank(
                [.init(people: [ben, cara], bundleID: "a", date: Self.at(1))],
                excluding: [PersonHandle("cara@example.com", kind: .emailAddress)], limit: 10
            ).map(\.displayName) == ["Ben"])
        #expect(
            PeopleSuggestions.rank(
                [.init(people: [ben, cara], bundleID: "a", date: Self.at(1))],
                excluding: [], limit: 1
            ).count == 1)
    }
}
