/// A misbehaviour the registrar shows on REGISTER, for tests of the client's recovery.
package enum RegistrarFault: Sendable, Hashable {
    /// `423 Interval Too Brief` with `Min-Expires`, only while the REGISTER asks for less (after the token
    /// check, as a real registrar does).
    case intervalTooBrief(minExpires: UInt32)
    /// `401` with a Bearer challenge even for a valid token.
    case challengeLoop
    /// `503 Service Unavailable`, with `Retry-After` when given.
    case serviceUnavailable(retryAfter: UInt32?)
    /// No answer at all.
    case silence
    /// An answer whose bytes are not a SIP response.
    case malformed
    /// `403 Forbidden`.
    case forbidden
}
