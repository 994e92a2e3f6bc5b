import Foundation
import HeraldFuzzing
import Testing

/// Every committed corpus input (`Fuzz/Corpus/<target>/`) through its target's property, in the
/// normal test run: a regression shows up here even where libFuzzer is not built.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(of target: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(
            at: corpus.appendingPathComponent(target), includingPropertiesForKeys: nil
        ).sorted { $0.path < $1.path }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusKeepsTheProperty(target name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let inputs = try Self.inputs(of: name)
        #expect(inputs.count >= 3, "\(name) has a seed corpus")
        for input in inputs {
            do {
                try target.check([UInt8](try Data(contentsOf: input)))
            } catch {
                Issue.record("\(input.lastPathComponent): \(error)")
            }
        }
    }

    @Test func everyCorpusDirectoryIsATarget() throws {
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        #expect(Set(directories) == Set(FuzzTarget.all.map(\.name)))
    }
}
