import AsyncHTTPClient
import AttendantPluginAPI
import AttendantPluginKit
import Glibc
import NIOCore
import NIOHTTP1

/// `token-url`: an HTTP GET or POST (with an empty body); the response body is the token, or with
/// `token-url-field` a JSON object whose field (a dotted path for nested objects: `data.token`) holds it.
///
/// Runs on the process's verifying HTTP client (``HostNetwork/Shared``), which checks TLS certificates
/// against the system's trust store (`tls-verify` is a channel's network's, not its token source's) and
/// does not retry a refused connection until the deadline, so a server that is down is reported at once.
/// Messages give the status line, never the body.
struct URLTokenSource: TokenSource {
    let url: String
    let method: TokenSettings.HTTPMethod
    let field: String?
    let description: String
    /// A backstop only: the token manager cancels the request after `token-timeout`.
    var deadline: Duration = .seconds(300)
    static let bodyLimit = 1024 * 1024

    func fetch() async throws -> String {
        var request = HTTPClientRequest(url: self.url)
        request.method = self.method == .post ? .POST : .GET
        request.headers.add(name: "User-Agent", value: "attendantd")
        request.headers.add(name: "Accept", value: self.field == nil ? "application/jwt, text/plain, */*" : "application/json")
        if self.method == .post { request.headers.add(name: "Content-Length", value: "0") }

        let status: HTTPResponseStatus
        let body: ByteBuffer
        do {
            let response = try await Self.client.execute(request, timeout: .milliseconds(Int64(self.deadline.seconds * 1000)))
            status = response.status
            body = try await response.body.collect(upTo: Self.bodyLimit)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as NIOTooManyBytesError {
            _ = error
            throw TokenError(
                .malformed,
                "\(self.description) answered with more than \(Self.bodyLimit / 1024) KiB; it must answer with the token alone"
            )
        } catch {
            throw TokenError(.source, "\(self.description): \(Self.describe(error))")
        }
        try Task.checkCancellation()
        guard (200..<300).contains(status.code) else {
            throw TokenError(.source, "\(self.description) answered HTTP \(status.code) \(status.reasonPhrase)")
        }
        let bytes = Array(body.readableBytesView)
        guard let field = self.field else {
            if bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: "{") {
                throw TokenError(.malformed, "\(self.description) answered with JSON; set token-url-field to the field that holds the token")
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw TokenError(.malformed, "\(self.description) did not answer with JSON (\(error)), but token-url-field is set")
        }
        var value: JSONValue? = json
        for key in field.split(separator: ".", omittingEmptySubsequences: false) { value = value?[String(key)] }
        guard case .string(let token)? = value else {
            let found = value.map { "it is \($0.typeDescription)" } ?? "there is none"
            throw TokenError(.malformed, "\(self.description) answered JSON without a string field \"\(field)\" (\(found))")
        }
        return token
    }

    /// The process's verifying client, the one the channels' networks use (one HTTP client pool per process).
    static var client: HTTPClient { HostNetwork.Shared.process.httpClient(verifiesTLS: true) }

    func timeoutMessage(_ limit: Duration) -> String {
        "\(self.description) did not answer within \(limit.seconds.formatted) s"
    }

    /// A connection failure in words: "Connection refused", "could not connect in time", …
    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "could not connect in time"
            case .deadlineExceeded, .readTimeout: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .invalidURL: return "not a valid URL"
            default: return text
            }
        }
        return text
    }
}
