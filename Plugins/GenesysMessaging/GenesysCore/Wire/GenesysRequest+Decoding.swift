#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

extension GenesysRequest {
    /// Reads a request frame, as the server would: for the wire tests (each request against the SDK's
    /// own serialisation) and for whatever plays the server's part.
    package init(decoding bytes: some Collection<UInt8>, limits: GenesysWireLimits = .frame) throws(GenesysWireError) {
        try self.init(decoding: limits.parse(bytes, what: "request"))
    }

    package init(decoding value: JSONValue) throws(GenesysWireError) {
        let fields = try GenesysFields(value, path: "")
        let token = try fields.string("token")
        let tracingId = try fields.optionalString("tracingId")
        let action: Action
        switch try fields.string("action") {
        case "configureSession":
            action = .configureSession(
                deploymentId: try fields.string("deploymentId"),
                startNew: try fields.optionalBool("startNew") ?? false,
                journeyContext: try fields.optionalObject("journeyContext").map { fields throws(GenesysWireError) in try GenesysJourneyContext(fields)
                }
            )
        case "configureAuthenticatedSession":
            action = .configureAuthenticatedSession(
                deploymentId: try fields.string("deploymentId"),
                startNew: try fields.optionalBool("startNew") ?? false,
                journeyContext: try fields.optionalObject("journeyContext").map { fields throws(GenesysWireError) in try GenesysJourneyContext(fields)
                },
                jwt: try fields.object("data").string("code")
            )
        case "onMessage":
            action = .onMessage(try GenesysOutgoingMessage(fields.object("message")), time: try fields.optionalString("time"))
        case "echo":
            action = .echo
        case "onAttachment":
            action = .onAttachment(
                GenesysAttachmentUpload(
                    attachmentId: try fields.string("attachmentId"),
                    fileName: try fields.string("fileName"),
                    fileType: try fields.string("fileType"),
                    fileSize: try fields.optionalInteger("fileSize"),
                    fileMd5: try fields.optionalString("fileMd5"),
                    errorsAsJson: try fields.bool("errorsAsJson")
                )
            )
        case "getAttachment":
            action = .getAttachment(attachmentId: try fields.string("attachmentId"))
        case "deleteAttachment":
            action = .deleteAttachment(attachmentId: try fields.string("attachmentId"))
        case "getJwt":
            action = .getJwt
        case "closeSession":
            action = .closeSession(closeAllConnections: try fields.bool("closeAllConnections"))
        default:
            throw .bad("action", "is not an action of the SDK's RequestAction")
        }
        self.init(token: token, tracingId: tracingId, action: action)
    }
}
