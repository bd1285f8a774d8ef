// libFuzzer target for the token parsers: JSONValue, Base64URL and JSONWebToken (header, claims,
// times, Twilio capabilities). They depend on nothing but the standard library, so this file is
// compiled together with their two source files; see Fuzz/README.md and scripts/fuzz jwt.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    _ = try? JSONValue.parse(bytes)
    if let decoded = Base64URL.decode(bytes) {
        precondition(Base64URL.decode(Array(Base64URL.encode(decoded).utf8)) == decoded, "base64url does not round-trip")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if JSONWebToken.hasJWTShape(text), let jwt = try? JSONWebToken(parsing: text) {
        _ = try? jwt.expiresAt()
        _ = try? jwt.notBefore()
        _ = try? jwt.issuedAt()
        _ = try? jwt.incomingCapability()
        _ = jwt.identity
    }
    return 0
}
