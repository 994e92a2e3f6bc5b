import HeraldLocalization
import Testing

/// The category of an integer in a locale.
private func category(_ number: Int, _ locale: String) -> PluralCategory {
    PluralRules.category(for: PluralOperands(number), locale: locale)
}

/// The category of a number written in decimal in a locale.
private func category(_ decimal: String, _ locale: String) -> PluralCategory {
    PluralRules.category(for: PluralOperands(decimal: decimal)!, locale: locale)
}

@Suite struct PluralRulesTests {
    @Test func arabicUsesAllSixCategoriesAsInTheSeedExample() {
        #expect(category(0, "ar") == .zero)
        #expect(category(1, "ar") == .one)
        #expect(category(2, "ar") == .two)
        for n in 3...10 { #expect(category(n, "ar") == .few, "n = \(n)") }
        for n in 11...99 { #expect(category(n, "ar") == .many, "n = \(n)") }
        for n in [100, 101, 102] { #expect(category(n, "ar") == .other, "n = \(n)") }
        #expect(category(103, "ar") == .few)
        #expect(category(111, "ar") == .many)
        #expect(PluralRules(locale: "ar").categories == [.zero, .one, .two, .few, .many, .other])
    }

    @Test func regionalLocalesFallBackToTheirLanguage() {
        for locale in ["ar_EG", "ar-EG", "ar-eg", "ar_SA@numbers=arab", "ar-SA-u-nu-latn"] {
            #expect(PluralRules(locale: locale).locale == "ar", "\(locale)")
            #expect(category(2, locale) == .two, "\(locale)")
        }
        #expect(PluralRules(locale: "zh-Hant-TW").locale == "zh")
        #expect(PluralRules(locale: "en_US_POSIX").locale == "en")
    }

    @Test func portugalHasItsOwnRulesAndBrazilUsesPortuguese() {
        #expect(PluralRules(locale: "pt_PT").locale == "pt_PT")
        #expect(PluralRules(locale: "pt-PT").locale == "pt_PT")
        #expect(PluralRules(locale: "pt_BR").locale == "pt")
        #expect(category(0, "pt_BR") == .one)
        #expect(category(0, "pt_PT") == .other)
        #expect(category("1.5", "pt") == .one)
        #expect(category("1.5", "pt_PT") == .other)
    }

    @Test func unknownLocalesUseRootWhereEverythingIsOther() {
        for locale in ["xx", "", "tlh_QO", "Base"] {
            #expect(PluralRules(locale: locale).locale == "root", "\(locale)")
            #expect(category(1, locale) == .other)
        }
        #expect(PluralRules(locale: "root").categories == [.other])
    }

    @Test func russian() {
        #expect(category(1, "ru") == .one)
        #expect(category(21, "ru") == .one)
        for n in [2, 3, 4, 22, 104] { #expect(category(n, "ru") == .few, "n = \(n)") }
        for n in [0, 5, 11, 12, 14, 19, 25, 100, 111] { #expect(category(n, "ru") == .many, "n = \(n)") }
        #expect(category("1.5", "ru") == .other)
        #expect(category(-21, "ru") == .one)
    }

    @Test func polish() {
        #expect(category(1, "pl") == .one)
        for n in [2, 3, 4, 22, 34] { #expect(category(n, "pl") == .few, "n = \(n)") }
        for n in [0, 5, 11, 12, 14, 21, 25, 101] { #expect(category(n, "pl") == .many, "n = \(n)") }
        #expect(category("1.5", "pl") == .other)
    }

    @Test func czech() {
        #expect(category(1, "cs") == .one)
        for n in 2...4 { #expect(category(n, "cs") == .few) }
        for n in [0, 5, 22, 100] { #expect(category(n, "cs") == .other, "n = \(n)") }
        #expect(category("1.5", "cs") == .many)
        #expect(category("1.0", "cs") == .many)
    }

    @Test func frenchTreatsZeroAndFractionsBelowTwoAsOne() {
        #expect(category(0, "fr") == .one)
        #expect(category(1, "fr") == .one)
        #expect(category("1.5", "fr") == .one)
        #expect(category(2, "fr") == .other)
        #expect(category(1_000_000, "fr") == .many)
        #expect(category("1c6", "fr") == .many)
        #expect(category("1.5c6", "fr") == .many)
        #expect(category(1_000_001, "fr") == .other)
        #expect(category(0, "fr_CA") == .one)
    }

    @Test func englishTellsOneFromOnePointZero() {
        #expect(category(1, "en") == .one)
        #expect(category("1", "en") == .one)
        #expect(category("1.0", "en") == .other)
        #expect(category(0, "en") == .other)
        #expect(category(2, "en") == .other)
        #expect(PluralRules(locale: "en_GB").categories == [.one, .other])
    }

    @Test func welshHasSixCategories() {
        #expect(category(0, "cy") == .zero)
        #expect(category(1, "cy") == .one)
        #expect(category(2, "cy") == .two)
        #expect(category(3, "cy") == .few)
        #expect(category(6, "cy") == .many)
        for n in [4, 5, 7, 100] { #expect(category(n, "cy") == .other, "n = \(n)") }
    }

    @Test func japaneseHasOnlyOther() {
        for n in [0, 1, 2, 11, 100] { #expect(category(n, "ja") == .other) }
        #expect(PluralRules(locale: "ja_JP").categories == [.other])
    }

    @Test func latvianZeroCoversTensAndTeens() {
        for n in [0, 10, 11, 19, 20, 30, 100, 111] { #expect(category(n, "lv") == .zero, "n = \(n)") }
        for n in [1, 21, 31, 101] { #expect(category(n, "lv") == .one, "n = \(n)") }
        for n in [2, 9, 22] { #expect(category(n, "lv") == .other, "n = \(n)") }
        #expect(category("0.1", "lv") == .one)
        #expect(category("0.11", "lv") == .zero)
    }

    @Test func theRulesNameTheirCLDRVersion() {
        #expect(!PluralRules.cldrVersion.isEmpty)
        #expect(PluralRules.cldrVersion != "unknown")
    }
}

@Suite struct PluralOperandsTests {
    @Test func decimalOperandsKeepVisibleFractionDigits() throws {
        let operands = try #require(PluralOperands(decimal: "1.50"))
        #expect([operands.i, operands.v, operands.w, operands.f, operands.t, operands.e] == [1, 2, 1, 50, 5, 0])
        #expect(operands.description == "1.50")
        let tiny = try #require(PluralOperands(decimal: "-0.05"))
        #expect([tiny.i, tiny.v, tiny.w, tiny.f, tiny.t] == [0, 2, 2, 5, 5])
        #expect(PluralOperands(decimal: "3") == PluralOperands(3))
        #expect(PluralOperands(decimal: " 7 ") == PluralOperands(7))
        #expect(PluralOperands(decimal: ".5")?.f == 5)
    }

    @Test func compactExponentMovesTheDecimalPoint() throws {
        let operands = try #require(PluralOperands(decimal: "1.2c3"))
        #expect([operands.i, operands.v, operands.f, operands.c] == [1200, 0, 0, 3])
        let partial = try #require(PluralOperands(decimal: "1.2345e2"))
        #expect([partial.i, partial.v, partial.f, partial.e] == [123, 2, 45, 2])
    }

    @Test func textThatIsNotANumberHasNoOperands() {
        for text in ["", "abc", "1.2.3", "1,5", "--1", "1c", "1e-5", "0x10", "99999999999999999999"] {
            #expect(PluralOperands(decimal: text) == nil, "\(text)")
        }
    }

    @Test func negativeIntegersUseTheirMagnitude() {
        #expect(PluralOperands(-3) == PluralOperands(3))
        #expect(PluralOperands(Int.min).i == Int.max)
    }
}
