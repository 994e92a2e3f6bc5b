import Foundation

/// The people Herald suggests for a Focus's allowed people: those the user reached out to — the
/// recipients of the messages they sent and the people they called, as their apps donated them
/// (`INInteraction` with direction outgoing). Incoming interactions never count: a spam caller
/// must not become a suggestion (WWDC21 10091: "Siri only learns from outgoing intent donations").
public enum PeopleSuggestions {
    /// One outgoing interaction: who it went to, through which app, when.
    public struct Interaction: Sendable, Hashable {
        public var people: [Person]
        public var bundleID: String
        public var date: Date

        public init(people: [Person], bundleID: String, date: Date) {
            self.people = people
            self.bundleID = bundleID
            self.date = date
        }
    }

    public struct Person: Sendable, Hashable {
        public var handle: PersonHandle
        public var displayName: String?

        public init(handle: PersonHandle, displayName: String?) {
            self.handle = handle
            self.displayName = displayName
        }
    }

    /// A suggested person: the handle to allow, the name last used, the apps, how often and when last.
    public struct Suggestion: Sendable, Hashable {
        public var handle: PersonHandle
        public var displayName: String?
        public var bundleIDs: [String]
        public var interactions: Int
        public var lastInteraction: Date
    }

    /// The people of `outgoing`, most interactions first (then the most recent), one entry per person
    /// however their handle was written (`PersonHandle.matches`), leaving out anyone `excluded`
    /// matches (already allowed or silenced); at most `limit`.
    public static func rank(_ outgoing: [Interaction], excluding excluded: [PersonHandle], limit: Int)
        -> [Suggestion]
    {
        var suggestions: [Suggestion] = []
        for interaction in outgoing.sorted(by: { $0.date < $1.date }) {
            // A person named twice in one interaction counts once.
            var seen: [PersonHandle] = []
            for person in interaction.people where !seen.contains(where: { $0.matches(person.handle) }) {
                seen.append(person.handle)
                if excluded.contains(where: { $0.matches(person.handle) }) { continue }
                if let index = suggestions.firstIndex(where: { $0.handle.matches(person.handle) }) {
                    suggestions[index].interactions += 1
                    suggestions[index].lastInteraction = max(suggestions[index].lastInteraction, interaction.date)
                    if let name = person.displayName { suggestions[index].displayName = name }
                    if !suggestions[index].bundleIDs.contains(interaction.bundleID) {
                        suggestions[index].bundleIDs.append(interaction.bundleID)
                    }
                } else {
                    suggestions.append(
                        Suggestion(
                            handle: person.handle, displayName: person.displayName, bundleIDs: [interaction.bundleID],
                            interactions: 1, lastInteraction: interaction.date))
                }
            }
        }
        return Array(
            suggestions.sorted {
                ($0.interactions, $0.lastInteraction) > ($1.interactions, $1.lastInteraction)
            }.prefix(max(0, limit)))
    }
}
