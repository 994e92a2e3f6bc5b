import Foundation
import HeraldLocalization
import Testing

/// Tests against CLDR's own data file: every sample CLDR lists for every locale, and the generator
/// reproducing the committed Swift file. Skipped when the Debian package unicode-cldr-core is absent.
@Suite(
    .enabled(if: CLDRData.isInstalled, "\(CLDRData.pluralsPath) is absent: install unicode-cldr-core (scripts/setup)"))
struct CLDRDataTests {
    @Test func everyCLDRSampleGetsItsCategoryInEveryLocale() throws {
        let groups = try CLDRData.sampleGroups()
        #expect(groups.count > 30)
        var checked = 0
        for group in groups {
            for locale in group.locales {
                let rules = PluralRules(locale: locale)
                #expect(rules.locale == locale)
                #expect(Set(rules.categories) == Set(group.samples.keys), "\(locale)")
                for (expected, samples) in group.samples {
                    for sample in samples {
                        let operands = try #require(PluralOperands(decimal: sample), "\(locale) \(sample)")
                        #expect(rules.category(for: operands) == expected, "\(locale): \(sample)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 10_000)
    }

    @Test func theGeneratorReproducesTheCommittedFilesByteForByte() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "plural-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("PluralRules+CLDR.swift")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", CLDRData.repository.appendingPathComponent("scripts/generate-plural-rules").path, "--output",
            output.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for name in ["PluralRules+CLDR.swift", "PluralRules+CLDRConditions.swift"] {
            let generated = try Data(contentsOf: directory.appendingPathComponent(name))
            let committed = try Data(
                contentsOf: CLDRData.repository.appendingPathComponent("Sources/HeraldLocalization/Generated/\(name)"))
            #expect(generated == committed, "\(name): run scripts/generate-plural-rules and commit the result")
        }
    }
}

/// CLDR's plurals.xml and the samples it lists (`@integer 0~15, 100, … @decimal 0.0~1.5, 1c6, …`).
enum CLDRData {
    static let pluralsPath = "/usr/share/unicode/cldr/common/supplemental/plurals.xml"
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: pluralsPath) }
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Group {
        var locales: [String]
        var samples: [PluralCategory: [String]] = [:]
    }

    /// The cardinal rule groups with their samples expanded (ranges stepped by their last digit).
    static func sampleGroups() throws -> [Group] {
        let text = try String(contentsOfFile: pluralsPath, encoding: .utf8)
        let cardinal = text.components(separatedBy: "<plurals type=\"cardinal\">")[1].components(
            separatedBy: "</plurals>")[0]
        var groups: [Group] = []
        for line in cardinal.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("<pluralRules locales=\"") {
                groups.append(
                    Group(locales: line.dropFirst(22).prefix { $0 != "\"" }.split(separator: " ").map(String.init)))
            } else if line.hasPrefix("<pluralRule count=\""),
                let category = PluralCategory(rawValue: String(line.dropFirst(19).prefix { $0 != "\"" }))
            {
                let body = line.components(separatedBy: ">")[1].components(separatedBy: "<")[0]
                var samples: [String] = []
                for part in body.components(separatedBy: "@").dropFirst() {
                    let items = part.drop { $0 != " " }.split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                    samples += items.filter { $0 != "…" && !$0.isEmpty }.flatMap(expand)
                }
                groups[groups.count - 1].samples[category] = samples
            }
        }
        return groups
    }

    /// `0.0~1.5` → 0.0, 0.1, …, 1.5; `2~17` → 2, 3, …, 17; anything else as it is.
    static func expand(_ item: String) -> [String] {
        let ends = item.split(separator: "~").map(String.init)
        guard ends.count == 2 else { return [item] }
        let digits = ends[0].split(separator: ".").dropFirst().first?.count ?? 0
        let scale = Int(pow(10, Double(digits)))
        func scaled(_ text: String) -> Int { Int((Double(text)! * Double(scale)).rounded()) }
        return (scaled(ends[0])...scaled(ends[1])).map { value in
            digits == 0 ? String(value) : "\(value / scale)." + String(String(value % scale + scale).dropFirst())
        }
    }
}
