#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// The REST bodies of authenticated sessions (SDK `shyrka/send/AuthJwtRequest.kt`, `auth/AuthJwt.kt`,
/// `auth/RefreshToken.kt`, `network/WebMessagingApi.kt`).
package enum GenesysAuthBodies {
    /// `oauthcodegrantjwtexchange`'s body for an authorization code.
    package static func codeExchange(deploymentId: String, code: String, redirectUri: String?, codeVerifier: String?) -> [UInt8] {
        JSONValue.object([
            "deploymentId": .string(deploymentId),
            "oauth": .members([
                "code": .string(code), "redirectUri": redirectUri.map(JSONValue.string), "codeVerifier": codeVerifier.map(JSONValue.string),
            ]),
        ]).encoded()
    }

    /// `token/refresh`'s body.
    package static func refresh(refreshToken: String) -> [UInt8] {
        JSONValue.object(["refreshToken": .string(refreshToken)]).encoded()
    }

    /// The answer of both: `{jwt, refreshToken?}`.
    package struct AuthJwt: Sendable, Hashable {
        package var jwt: String
        package var refreshToken: String?

        package init(jwt: String, refreshToken: String? = nil) {
            self.jwt = jwt
            self.refreshToken = refreshToken
        }

        package init(decoding bytes: some Collection<UInt8>, limits: GenesysWireLimits = .frame) throws(GenesysWireError) {
            let fields = try GenesysFields(limits.parse(bytes, what: "token answer"), path: "")
            self.init(jwt: try fields.string("jwt"), refreshToken: try fields.optionalString("refreshToken"))
        }
    }
}
