/// An error code of web messaging: the `code` of a frame of class `string`, a `GenerateUrlError`'s or
/// `UploadFailureEvent`'s `errorCode`, an HTTP status. SDK `core/ErrorCode.kt` (`ErrorCode.mapFrom`):
/// the 4xxx codes are the service's own, 3xx/4xx/5xx are HTTP classes, 6xxx the SDK's.
package struct GenesysErrorCode: Sendable, Hashable, CustomStringConvertible {
    package var code: Int

    package init(_ code: Int) { self.code = code }

    package static let featureUnavailable = Self(4000)
    package static let fileTypeInvalid = Self(4001)
    package static let fileSizeInvalid = Self(4002)
    package static let fileContentInvalid = Self(4003)
    package static let fileNameInvalid = Self(4004)
    package static let fileNameTooLong = Self(4005)
    package static let sessionHasExpired = Self(4006)
    package static let sessionNotFound = Self(4007)
    package static let attachmentHasExpired = Self(4008)
    package static let attachmentNotFound = Self(4009)
    package static let attachmentNotSuccessfullyUploaded = Self(4010)
    package static let messageTooLong = Self(4011)
    package static let customAttributeSizeTooLarge = Self(4013)
    package static let cannotDowngradeToUnauthenticated = Self(4017)
    package static let missingParameter = Self(4020)
    package static let requestRateTooHigh = Self(4029)
    package static let unexpectedError = Self(5000)

    private static let names: [Int: String] = [
        4000: "FeatureUnavailable", 4001: "FileTypeInvalid", 4002: "FileSizeInvalid", 4003: "FileContentInvalid",
        4004: "FileNameInvalid", 4005: "FileNameTooLong", 4006: "SessionHasExpired", 4007: "SessionNotFound",
        4008: "AttachmentHasExpired", 4009: "AttachmentNotFound", 4010: "AttachmentNotSuccessfullyUploaded",
        4011: "MessageTooLong", 4013: "CustomAttributeSizeTooLarge", 4017: "CannotDowngradeToUnauthenticated",
        4020: "MissingParameter", 4029: "RequestRateTooHigh", 5000: "UnexpectedError",
    ]

    /// The SDK's name for the code, or its HTTP class ("ClientResponseError(403)"); "UnexpectedError" for
    /// anything else, as `mapFrom` does.
    package var name: String {
        if let name = Self.names[self.code] { return name }
        switch self.code {
        case 300...399: return "RedirectResponseError(\(self.code))"
        case 400...499: return "ClientResponseError(\(self.code))"
        case 500...599: return "ServerResponseError(\(self.code))"
        default: return "UnexpectedError"
        }
    }

    package var description: String { "\(self.code) \(self.name)" }

    /// The session is gone (SDK `handleError`: SessionHasExpired, SessionNotFound go to the error state).
    package var endsTheSession: Bool { self == .sessionHasExpired || self == .sessionNotFound }

    /// The last message sent was refused and nothing else changed (MessageTooLong, RequestRateTooHigh,
    /// CustomAttributeSizeTooLarge).
    package var refusesTheMessage: Bool {
        self == .messageTooLong || self == .requestRateTooHigh || self == .customAttributeSizeTooLarge
    }

    /// An HTTP class (3xx, 4xx, 5xx): while configuring, it fails the session (the SDK retries a 401 on
    /// an authenticated session after refreshing the JWT, at most 3 times).
    package var isHTTPClass: Bool { (300...599).contains(self.code) }
}
