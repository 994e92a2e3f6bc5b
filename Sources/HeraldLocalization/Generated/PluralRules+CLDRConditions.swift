// swift-format-ignore-file
// GENERATED FILE — DO NOT EDIT. Regenerate with scripts/generate-plural-rules.
// Source: /usr/share/unicode/cldr/common/supplemental/plurals.xml
// CLDR version 41, cardinal plural rules (sha256 c0345021eaff7a0e38ee7e8fc58532e2e36ec5137b6c2497905e2bcf1be1b5b3).
// One case per CLDR locale group; each group's conditions are evaluated in CLDR order, then `other`.

extension PluralRuleSet {
    /// The category of a number under the group's rules.
    func category(for o: PluralOperands) -> PluralCategory {
        switch self {
        case .bm:
            return .other
        case .am:
            // one: i = 0 or n = 1
            if o.i == 0 || (o.f == 0 && o.i == 1) { return .one }
            return .other
        case .ff:
            // one: i = 0,1
            if (o.i == 0 || o.i == 1) { return .one }
            return .other
        case .ast:
            // one: i = 1 and v = 0
            if o.i == 1 && o.v == 0 { return .one }
            return .other
        case .si:
            // one: n = 0,1 or i = 0 and f = 1
            if (o.f == 0 && (o.i == 0 || o.i == 1)) || (o.i == 0 && o.f == 1) { return .one }
            return .other
        case .ak:
            // one: n = 0..1
            if (o.f == 0 && (0...1).contains(o.i)) { return .one }
            return .other
        case .tzm:
            // one: n = 0..1 or n = 11..99
            if (o.f == 0 && (0...1).contains(o.i)) || (o.f == 0 && (11...99).contains(o.i)) { return .one }
            return .other
        case .af:
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            return .other
        case .da:
            // one: n = 1 or t != 0 and i = 0,1
            if (o.f == 0 && o.i == 1) || (o.t != 0 && (o.i == 0 || o.i == 1)) { return .one }
            return .other
        case .`is`:
            // one: t = 0 and i % 10 = 1 and i % 100 != 11 or t != 0
            if (o.t == 0 && o.i % 10 == 1 && o.i % 100 != 11) || o.t != 0 { return .one }
            return .other
        case .mk:
            // one: v = 0 and i % 10 = 1 and i % 100 != 11 or f % 10 = 1 and f % 100 != 11
            if (o.v == 0 && o.i % 10 == 1 && o.i % 100 != 11) || (o.f % 10 == 1 && o.f % 100 != 11) { return .one }
            return .other
        case .ceb:
            // one: v = 0 and i = 1,2,3 or v = 0 and i % 10 != 4,6,9 or v != 0 and f % 10 != 4,6,9
            if (o.v == 0 && (o.i == 1 || o.i == 2 || o.i == 3)) || (o.v == 0 && !(o.i % 10 == 4 || o.i % 10 == 6 || o.i % 10 == 9)) || (o.v != 0 && !(o.f % 10 == 4 || o.f % 10 == 6 || o.f % 10 == 9)) { return .one }
            return .other
        case .lv:
            // zero: n % 10 = 0 or n % 100 = 11..19 or v = 2 and f % 100 = 11..19
            if (o.f == 0 && o.i % 10 == 0) || (o.f == 0 && (11...19).contains(o.i % 100)) || (o.v == 2 && (11...19).contains(o.f % 100)) { return .zero }
            // one: n % 10 = 1 and n % 100 != 11 or v = 2 and f % 10 = 1 and f % 100 != 11 or v != 2 and f % 10 = 1
            if ((o.f == 0 && o.i % 10 == 1) && !(o.f == 0 && o.i % 100 == 11)) || (o.v == 2 && o.f % 10 == 1 && o.f % 100 != 11) || (o.v != 2 && o.f % 10 == 1) { return .one }
            return .other
        case .lag:
            // zero: n = 0
            if (o.f == 0 && o.i == 0) { return .zero }
            // one: i = 0,1 and n != 0
            if (o.i == 0 || o.i == 1) && !(o.f == 0 && o.i == 0) { return .one }
            return .other
        case .ksh:
            // zero: n = 0
            if (o.f == 0 && o.i == 0) { return .zero }
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            return .other
        case .iu:
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // two: n = 2
            if (o.f == 0 && o.i == 2) { return .two }
            return .other
        case .shi:
            // one: i = 0 or n = 1
            if o.i == 0 || (o.f == 0 && o.i == 1) { return .one }
            // few: n = 2..10
            if (o.f == 0 && (2...10).contains(o.i)) { return .few }
            return .other
        case .mo:
            // one: i = 1 and v = 0
            if o.i == 1 && o.v == 0 { return .one }
            // few: v != 0 or n = 0 or n % 100 = 2..19
            if o.v != 0 || (o.f == 0 && o.i == 0) || (o.f == 0 && (2...19).contains(o.i % 100)) { return .few }
            return .other
        case .bs:
            // one: v = 0 and i % 10 = 1 and i % 100 != 11 or f % 10 = 1 and f % 100 != 11
            if (o.v == 0 && o.i % 10 == 1 && o.i % 100 != 11) || (o.f % 10 == 1 && o.f % 100 != 11) { return .one }
            // few: v = 0 and i % 10 = 2..4 and i % 100 != 12..14 or f % 10 = 2..4 and f % 100 != 12..14
            if (o.v == 0 && (2...4).contains(o.i % 10) && !(12...14).contains(o.i % 100)) || ((2...4).contains(o.f % 10) && !(12...14).contains(o.f % 100)) { return .few }
            return .other
        case .fr:
            // one: i = 0,1
            if (o.i == 0 || o.i == 1) { return .one }
            // many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5
            if (o.e == 0 && o.i != 0 && o.i % 1000000 == 0 && o.v == 0) || !(0...5).contains(o.e) { return .many }
            return .other
        case .pt:
            // one: i = 0..1
            if (0...1).contains(o.i) { return .one }
            // many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5
            if (o.e == 0 && o.i != 0 && o.i % 1000000 == 0 && o.v == 0) || !(0...5).contains(o.e) { return .many }
            return .other
        case .it:
            // one: i = 1 and v = 0
            if o.i == 1 && o.v == 0 { return .one }
            // many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5
            if (o.e == 0 && o.i != 0 && o.i % 1000000 == 0 && o.v == 0) || !(0...5).contains(o.e) { return .many }
            return .other
        case .es:
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5
            if (o.e == 0 && o.i != 0 && o.i % 1000000 == 0 && o.v == 0) || !(0...5).contains(o.e) { return .many }
            return .other
        case .gd:
            // one: n = 1,11
            if (o.f == 0 && (o.i == 1 || o.i == 11)) { return .one }
            // two: n = 2,12
            if (o.f == 0 && (o.i == 2 || o.i == 12)) { return .two }
            // few: n = 3..10,13..19
            if (o.f == 0 && ((3...10).contains(o.i) || (13...19).contains(o.i))) { return .few }
            return .other
        case .sl:
            // one: v = 0 and i % 100 = 1
            if o.v == 0 && o.i % 100 == 1 { return .one }
            // two: v = 0 and i % 100 = 2
            if o.v == 0 && o.i % 100 == 2 { return .two }
            // few: v = 0 and i % 100 = 3..4 or v != 0
            if (o.v == 0 && (3...4).contains(o.i % 100)) || o.v != 0 { return .few }
            return .other
        case .dsb:
            // one: v = 0 and i % 100 = 1 or f % 100 = 1
            if (o.v == 0 && o.i % 100 == 1) || o.f % 100 == 1 { return .one }
            // two: v = 0 and i % 100 = 2 or f % 100 = 2
            if (o.v == 0 && o.i % 100 == 2) || o.f % 100 == 2 { return .two }
            // few: v = 0 and i % 100 = 3..4 or f % 100 = 3..4
            if (o.v == 0 && (3...4).contains(o.i % 100)) || (3...4).contains(o.f % 100) { return .few }
            return .other
        case .he:
            // one: i = 1 and v = 0
            if o.i == 1 && o.v == 0 { return .one }
            // two: i = 2 and v = 0
            if o.i == 2 && o.v == 0 { return .two }
            // many: v = 0 and n != 0..10 and n % 10 = 0
            if o.v == 0 && !(o.f == 0 && (0...10).contains(o.i)) && (o.f == 0 && o.i % 10 == 0) { return .many }
            return .other
        case .cs:
            // one: i = 1 and v = 0
            if o.i == 1 && o.v == 0 { return .one }
            // few: i = 2..4 and v = 0
            if (2...4).contains(o.i) && o.v == 0 { return .few }
            // many: v != 0
            if o.v != 0 { return .many }
            return .other
        case .pl:
            // one: i = 1 and v = 0
            if o.i == 1 && o.v == 0 { return .one }
            // few: v = 0 and i % 10 = 2..4 and i % 100 != 12..14
            if o.v == 0 && (2...4).contains(o.i % 10) && !(12...14).contains(o.i % 100) { return .few }
            // many: v = 0 and i != 1 and i % 10 = 0..1 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 12..14
            if (o.v == 0 && o.i != 1 && (0...1).contains(o.i % 10)) || (o.v == 0 && (5...9).contains(o.i % 10)) || (o.v == 0 && (12...14).contains(o.i % 100)) { return .many }
            return .other
        case .be:
            // one: n % 10 = 1 and n % 100 != 11
            if (o.f == 0 && o.i % 10 == 1) && !(o.f == 0 && o.i % 100 == 11) { return .one }
            // few: n % 10 = 2..4 and n % 100 != 12..14
            if (o.f == 0 && (2...4).contains(o.i % 10)) && !(o.f == 0 && (12...14).contains(o.i % 100)) { return .few }
            // many: n % 10 = 0 or n % 10 = 5..9 or n % 100 = 11..14
            if (o.f == 0 && o.i % 10 == 0) || (o.f == 0 && (5...9).contains(o.i % 10)) || (o.f == 0 && (11...14).contains(o.i % 100)) { return .many }
            return .other
        case .lt:
            // one: n % 10 = 1 and n % 100 != 11..19
            if (o.f == 0 && o.i % 10 == 1) && !(o.f == 0 && (11...19).contains(o.i % 100)) { return .one }
            // few: n % 10 = 2..9 and n % 100 != 11..19
            if (o.f == 0 && (2...9).contains(o.i % 10)) && !(o.f == 0 && (11...19).contains(o.i % 100)) { return .few }
            // many: f != 0
            if o.f != 0 { return .many }
            return .other
        case .mt:
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // few: n = 0 or n % 100 = 2..10
            if (o.f == 0 && o.i == 0) || (o.f == 0 && (2...10).contains(o.i % 100)) { return .few }
            // many: n % 100 = 11..19
            if (o.f == 0 && (11...19).contains(o.i % 100)) { return .many }
            return .other
        case .ru:
            // one: v = 0 and i % 10 = 1 and i % 100 != 11
            if o.v == 0 && o.i % 10 == 1 && o.i % 100 != 11 { return .one }
            // few: v = 0 and i % 10 = 2..4 and i % 100 != 12..14
            if o.v == 0 && (2...4).contains(o.i % 10) && !(12...14).contains(o.i % 100) { return .few }
            // many: v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 11..14
            if (o.v == 0 && o.i % 10 == 0) || (o.v == 0 && (5...9).contains(o.i % 10)) || (o.v == 0 && (11...14).contains(o.i % 100)) { return .many }
            return .other
        case .br:
            // one: n % 10 = 1 and n % 100 != 11,71,91
            if (o.f == 0 && o.i % 10 == 1) && !(o.f == 0 && (o.i % 100 == 11 || o.i % 100 == 71 || o.i % 100 == 91)) { return .one }
            // two: n % 10 = 2 and n % 100 != 12,72,92
            if (o.f == 0 && o.i % 10 == 2) && !(o.f == 0 && (o.i % 100 == 12 || o.i % 100 == 72 || o.i % 100 == 92)) { return .two }
            // few: n % 10 = 3..4,9 and n % 100 != 10..19,70..79,90..99
            if (o.f == 0 && ((3...4).contains(o.i % 10) || o.i % 10 == 9)) && !(o.f == 0 && ((10...19).contains(o.i % 100) || (70...79).contains(o.i % 100) || (90...99).contains(o.i % 100))) { return .few }
            // many: n != 0 and n % 1000000 = 0
            if !(o.f == 0 && o.i == 0) && (o.f == 0 && o.i % 1000000 == 0) { return .many }
            return .other
        case .ga:
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // two: n = 2
            if (o.f == 0 && o.i == 2) { return .two }
            // few: n = 3..6
            if (o.f == 0 && (3...6).contains(o.i)) { return .few }
            // many: n = 7..10
            if (o.f == 0 && (7...10).contains(o.i)) { return .many }
            return .other
        case .gv:
            // one: v = 0 and i % 10 = 1
            if o.v == 0 && o.i % 10 == 1 { return .one }
            // two: v = 0 and i % 10 = 2
            if o.v == 0 && o.i % 10 == 2 { return .two }
            // few: v = 0 and i % 100 = 0,20,40,60,80
            if o.v == 0 && (o.i % 100 == 0 || o.i % 100 == 20 || o.i % 100 == 40 || o.i % 100 == 60 || o.i % 100 == 80) { return .few }
            // many: v != 0
            if o.v != 0 { return .many }
            return .other
        case .kw:
            // zero: n = 0
            if (o.f == 0 && o.i == 0) { return .zero }
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // two: n % 100 = 2,22,42,62,82 or n % 1000 = 0 and n % 100000 = 1000..20000,40000,60000,80000 or n != 0 and n % 1000000 = 100000
            if (o.f == 0 && (o.i % 100 == 2 || o.i % 100 == 22 || o.i % 100 == 42 || o.i % 100 == 62 || o.i % 100 == 82)) || ((o.f == 0 && o.i % 1000 == 0) && (o.f == 0 && ((1000...20000).contains(o.i % 100000) || o.i % 100000 == 40000 || o.i % 100000 == 60000 || o.i % 100000 == 80000))) || (!(o.f == 0 && o.i == 0) && (o.f == 0 && o.i % 1000000 == 100000)) { return .two }
            // few: n % 100 = 3,23,43,63,83
            if (o.f == 0 && (o.i % 100 == 3 || o.i % 100 == 23 || o.i % 100 == 43 || o.i % 100 == 63 || o.i % 100 == 83)) { return .few }
            // many: n != 1 and n % 100 = 1,21,41,61,81
            if !(o.f == 0 && o.i == 1) && (o.f == 0 && (o.i % 100 == 1 || o.i % 100 == 21 || o.i % 100 == 41 || o.i % 100 == 61 || o.i % 100 == 81)) { return .many }
            return .other
        case .ar:
            // zero: n = 0
            if (o.f == 0 && o.i == 0) { return .zero }
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // two: n = 2
            if (o.f == 0 && o.i == 2) { return .two }
            // few: n % 100 = 3..10
            if (o.f == 0 && (3...10).contains(o.i % 100)) { return .few }
            // many: n % 100 = 11..99
            if (o.f == 0 && (11...99).contains(o.i % 100)) { return .many }
            return .other
        case .cy:
            // zero: n = 0
            if (o.f == 0 && o.i == 0) { return .zero }
            // one: n = 1
            if (o.f == 0 && o.i == 1) { return .one }
            // two: n = 2
            if (o.f == 0 && o.i == 2) { return .two }
            // few: n = 3
            if (o.f == 0 && o.i == 3) { return .few }
            // many: n = 6
            if (o.f == 0 && o.i == 6) { return .many }
            return .other
        }
    }
}
