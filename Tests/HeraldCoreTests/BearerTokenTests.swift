import HeraldCore
import Testing

@Suite("Bearer tokens")
struct BearerTokenTests {
    @Test("tokens are 43 base64url characters and never start with '-' (a command line would read an option)")
    func neverAnOption() {
        var generator = SystemRandomNumberGenerator()
        // With 1 token in 64 starting with '-', 5,000 tokens hold one with near certainty (1 - 10^-34).
        let tokens = (0..<5_000).map { _ in BearerToken.make(using: &generator) }
        #expect(tokens.allSatisfy { $0.count == 43 && $0.first != "-" })
        #expect(tokens.allSatisfy { Base64URL.decode($0[...])?.count == 32 })
        #expect(Set(tokens).count == tokens.count)
    }
}
