import HeraldCore
import Testing

@testable import HeraldServer

@Suite("Random pool for ids")
struct RandomPoolTests {
    @Test("ids drawn across several refills are valid, distinct and use every bit")
    func idsAcrossRefills() {
        var generator = PooledRandomGenerator()
        var ids = Set<String>()
        var ored: UInt64 = 0
        var anded: UInt64 = .max
        for _ in 0..<2_000 {  // 4,000 words: several 512-word reads
            let id = APNsID.make(using: &generator)
            #expect(APNsID.isValid(id))
            ids.insert(id)
            let word = generator.next()
            ored |= word
            anded &= word
        }
        #expect(ids.count == 2_000)
        #expect(ored == .max && anded == 0)
    }
}
