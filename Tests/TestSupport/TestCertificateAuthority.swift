import Foundation

/// A certificate authority made for one test with openssl (P-256 keys, valid for a day), and the server
/// certificates it issues: what a private PBX's CA is, for TLS peers on loopback.
public struct TestCertificateAuthority: Sendable {
    /// The folder that holds every file.
    public let folder: String
    /// The CA's certificate (PEM): what `tls-ca-file` names.
    public let certificateFile: String
    private let keyFile: String

    /// A new CA named `name` (its subject's CN).
    public init(_ name: String) async throws {
        self.folder = try makeTemporaryFolder("attendant-test-ca")
        self.certificateFile = self.folder + "/ca.pem"
        self.keyFile = self.folder + "/ca-key.pem"
        try await Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", self.keyFile,
            "-out", self.certificateFile, "-days", "1", "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    /// A server certificate and its key, issued by this CA for `names` (subjectAltName entries such as
    /// `IP:127.0.0.1`, `DNS:localhost`).
    public func issue(_ file: String, names: [String]) async throws -> (certificate: String, key: String) {
        let key = self.folder + "/\(file)-key.pem"
        let request = self.folder + "/\(file).csr"
        let certificate = self.folder + "/\(file).pem"
        let extensions = self.folder + "/\(file).ext"
        try "subjectAltName=\(names.joined(separator: ","))\nextendedKeyUsage=serverAuth\n".write(
            toFile: extensions,
            atomically: true,
            encoding: .utf8
        )
        try await Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", request,
            "-subj", "/CN=\(file)",
        ])
        try await Self.openssl([
            "x509", "-req", "-in", request, "-CA", self.certificateFile, "-CAkey", self.keyFile, "-CAcreateserial",
            "-out", certificate, "-days", "1", "-extfile", extensions,
        ])
        return (certificate, key)
    }

    /// Runs openssl off the cooperative threads (several TLS tests make their CAs at once; a blocking
    /// wait on both threads of a two-core machine stalled every other suite).
    private static func openssl(_ arguments: [String]) async throws {
        let (status, said) = try await run("/usr/bin/openssl", arguments)
        guard status == 0 else {
            throw FixtureError("openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(said)")
        }
    }
}
