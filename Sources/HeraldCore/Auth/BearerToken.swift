/// Random bearer tokens (users', the admin's): 32 random bytes in base64url, never starting with
/// `-`. A token is pasted into commands (`herald watch --token …`), and a leading `-` made the
/// argument parser read it as an option (1 token in 64).
public enum BearerToken {
    public static func make<R: RandomNumberGenerator>(using generator: inout R) -> String {
        while true {
            let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            if token.first != "-" { return token }
        }
    }
}
