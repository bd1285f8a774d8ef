import NIOSSL

extension ChannelConfiguration {
    /// The channel's TLS policy (``TLSPolicy``): `tls-verify`, and the CAs in `tls-ca-file`, read now
    /// (`~/` by `environment`'s `HOME`).
    ///
    /// - Throws: ``ConfigurationError`` naming the key and the file when the file cannot be read or holds
    ///   no PEM certificate.
    package func tlsPolicy(environment: [String: String]) throws(ConfigurationError) -> TLSPolicy {
        guard let written = self.tlsCAFile else { return TLSPolicy(verifies: self.verifiesTLS) }
        let path = Paths.expandingTilde(written, environment: environment)
        func problem(_ text: String) -> ConfigurationError {
            ConfigurationError(
                .key(.unreadable, place: self.keyPlaces["tls-ca-file"] ?? self.place, key: "tls-ca-file", scope: "[[channel]] \"\(self.name)\"", text)
            )
        }
        let text: String
        do {
            text = try FileContents.read(path)
        } catch {
            throw problem("cannot read \(path): \(error)")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))
        } catch {
            throw problem("\(path) is not a PEM file of certificates (\(error)); give the CA's certificate, -----BEGIN CERTIFICATE----- …")
        }
        guard !certificates.isEmpty else {
            throw problem("\(path) holds no PEM certificate; give the CA's certificate, -----BEGIN CERTIFICATE----- …")
        }
        return TLSPolicy(verifies: self.verifiesTLS, authorities: certificates, authoritiesFile: written)
    }

    /// What `tls-ca-file` holds now (nil without the key, or when it cannot be read): kept when the channel
    /// starts, so a reload can tell that the file was edited in place and restart the channel.
    package func tlsCAFileContents(environment: [String: String]) -> String? {
        guard let written = self.tlsCAFile else { return nil }
        return try? FileContents.read(Paths.expandingTilde(written, environment: environment))
    }
}
