import HeraldLocalization
import Testing

private func format(
    _ format: String, _ arguments: [FormatArgument], variables: [String: PluralVariable] = [:], locale: String = "en"
) -> String {
    StringFormatter.format(format, arguments: arguments, variables: variables, locale: locale)
}

private let comment = PluralVariable(variants: [.one: "%u Comment", .other: "%u Comments"], valueType: "u")

@Suite struct StringFormatterTests {
    /// Found by the `string-formatter` fuzz target: a plural variable whose argument index is 0 (a
    /// String Catalog's `argNum: 0`) numbered its variant's specifiers 0, and formatting read
    /// `arguments[-1]`: the process crashed.
    @Test func aVariableWithArgumentIndexZeroOrBelowReadsNoArgument() {
        for index in [0, -3] {
            let files = PluralVariable(variants: [.one: "%d file", .other: "%d files"], argumentIndex: index)
            let text = format("%#@n@", [1, 2], variables: ["n": files])
            #expect(text.hasSuffix(" files"), "\(text)")
            #expect(!text.contains("1") && !text.contains("2"), "\(text)")
        }
        #expect(format("%#@n@", [3], variables: ["n": PluralVariable(variants: [.other: "%d files"])]) == "3 files")
    }

    @Test func objectsAndIntegersAreSubstitutedInOrder() {
        #expect(format("%@ liked your photo", ["Anna"]) == "Anna liked your photo")
        #expect(format("%@ and %@ have invited you", ["Jenna", "Frank"]) == "Jenna and Frank have invited you")
        #expect(format("%d, %i, %u, %ld, %lu, %lld", [1, 2, 3, 4, 5, 6]) == "1, 2, 3, 4, 5, 6")
        #expect(format("%@ new", [3]) == "3 new")
    }

    @Test func apnsStringArgumentsWorkWithNumericSpecifiers() {
        #expect(format("%d points", ["42"]) == "42 points")
        #expect(format("%u left", [" 7 "]) == "7 left")
        #expect(format("%.1f km", ["2.26"]) == "2.3 km")
        #expect(format("%d points", ["many"]) == "many points")
    }

    @Test func unsignedConversionsWrapNegativeNumbersAsC() {
        #expect(format("%u", [-1]) == "4294967295")
        #expect(format("%lu", [-1]) == "18446744073709551615")
        #expect(format("%d", [-1]) == "-1")
    }

    @Test func floatingPointFollowsPrintf() {
        #expect(format("%f", [1.5]) == "1.500000")
        #expect(format("%.2f", [1.5]) == "1.50")
        #expect(format("%05.1f|%e|%g", [3.14159, 12345.678, 0.0001]) == "003.1|1.234568e+04|0.0001")
        #expect(format("%@", [2.0]) == "2")
        #expect(format("%@", [1.5]) == "1.5")
    }

    @Test func percentSignsAndFlags() {
        #expect(format("100%% sure", []) == "100% sure")
        #expect(format("100%", []) == "100%")
        #expect(format("[%5d][%-5d][%x][%X][%#o][%c]", [42, 7, 255, 255, 8, 65]) == "[   42][7    ][ff][FF][010][A]")
        #expect(format("[%6@][%-6@][%.3@]", ["ab", "ab", "abcdef"]) == "[    ab][ab    ][abc]")
    }

    @Test func positionalArgumentsCanReorderAndRepeat() {
        #expect(format("%2$@ beat %1$@ by %3$d points", ["Ann", "Bob", 3]) == "Bob beat Ann by 3 points")
        #expect(format("%1$@, %1$@!", ["Hey"]) == "Hey, Hey!")
        #expect(format("%2$d/%1$d", [1, 2]) == "2/1")
    }

    @Test func missingArgumentsAndUnknownSpecifiersStayVisible() {
        #expect(format("%@ and %@", ["Ann"]) == "Ann and %@")
        #expect(format("%3$@", ["a"]) == "%3$@")
        #expect(format("50%k off %", []) == "50%k off %")
        #expect(format("%#@nothing@ here", [1]) == "%#@nothing@ here")
    }

    @Test func stringsdictVariablesPickTheirVariantByCount() {
        #expect(format("%#@comment@", [1], variables: ["comment": comment]) == "1 Comment")
        #expect(format("%#@comment@", [2], variables: ["comment": comment]) == "2 Comments")
        #expect(format("%1$#@comment@", [5], variables: ["comment": comment]) == "5 Comments")
        #expect(format("%#@comment@", ["1"], variables: ["comment": comment]) == "1 Comment")
    }

    @Test func variablesConsumeTheirArgumentAmongOtherSpecifiers() {
        let files = PluralVariable(variants: [.one: "one file", .other: "%d files"])
        let folders = PluralVariable(variants: [.one: "%d folder", .other: "%d folders"])
        let variables = ["files": files, "folders": folders]
        #expect(
            format("%@ has %#@files@ in %#@folders@", ["Ann", 1, 2], variables: variables)
                == "Ann has one file in 2 folders")
        #expect(
            format("%@ has %#@files@ in %#@folders@", ["Ann", 3, 1], variables: variables)
                == "Ann has 3 files in 1 folder")
        #expect(format("%#@files@, owner %@", [1, "Bob"], variables: variables) == "one file, owner Bob")
    }

    @Test func aZeroVariantIsUsedForZeroInEveryLanguage() {
        let messages = PluralVariable(variants: [.zero: "No messages", .one: "%u message", .other: "%u messages"])
        #expect(format("%#@m@", [0], variables: ["m": messages]) == "No messages")
        #expect(format("%#@m@", [1], variables: ["m": messages]) == "1 message")
        #expect(format("%#@m@", [0], variables: ["m": comment]) == "0 Comments")
    }

    @Test func pluralVariantsFollowTheLocalesRules() {
        let russian = PluralVariable(variants: [
            .one: "%u файл", .few: "%u файла", .many: "%u файлов", .other: "%u файла",
        ])
        #expect(format("%#@f@", [21], variables: ["f": russian], locale: "ru") == "21 файл")
        #expect(format("%#@f@", [22], variables: ["f": russian], locale: "ru") == "22 файла")
        #expect(format("%#@f@", [25], variables: ["f": russian], locale: "ru_RU") == "25 файлов")
        #expect(format("%#@f@", ["1.5"], variables: ["f": russian], locale: "ru") == "1 файла")
    }

    @Test func hostileFormatsStayCheap() {
        #expect(format("%99999999d|%.99999f", [1, 2.0]) == "%99999999d|%.99999f")
        let loop = PluralVariable(variants: [.other: "%#@loop@ %#@loop@ %#@loop@"])
        let output = format("%#@loop@", [1], variables: ["loop": loop])
        #expect(output.count < 2_000)
        #expect(output.contains("%1$#@loop@"))
    }
}
