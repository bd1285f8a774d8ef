// libFuzzer target for the GenesysMessaging plugin's decoders (issue 35): the web messaging socket's
// frames (SessionResponse, StructuredMessage with its content and events, the attachment answers, the
// errors…), the history API's pages, the deployment's config.json, the JWT answer, the requests as the
// server reads them, and the file profile the session and the deployment give. They depend on nothing but
// the standard library and JSONValue, so this file is compiled together with their sources
// (Plugins/GenesysMessaging/GenesysCore/Wire and Session/GenesysFileProfile.swift); see scripts/fuzz genesys.
//
// Every input is read by every decoder. Besides not crashing, each decoder must
// - read the document, not its text: the document JSONValue writes back is the same document;
// - name a field, never a value, when it refuses (GenesysWireError: values carry session tokens, JWTs and
//   the conversation): a string value with the canary `SECRET` in it never appears in the error;
// - for requests, write what it read so that it reads back the same (the wire tests' both ways).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGenesysFrames(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let document = try? JSONValue.parse(bytes)
    // The decoders read the document, not its text: written back, it is the same document.
    if let document { precondition((try? JSONValue.parse(document.encoded())) == document, "a document does not survive encoding") }

    if let frame = checked(bytes, document, { bytes throws(GenesysWireError) in try GenesysServerFrame(decoding: bytes) }) {
        // The body is the one its class names.
        precondition(document?["class"]?.stringValue == frame.body.className, "a frame's body is not of its class")
        exercise(frame)
    }
    if let page = checked(bytes, document, { bytes throws(GenesysWireError) in try GenesysHistoryPage(decoding: bytes) }) {
        page.entities.forEach(exercise)
    }
    if let config = checked(bytes, document, { bytes throws(GenesysWireError) in try GenesysDeploymentConfig(decoding: bytes) }) {
        exercise(config)
    }
    _ = checked(bytes, document) { bytes throws(GenesysWireError) in try GenesysAuthBodies.AuthJwt(decoding: bytes) }
    if let request = checked(bytes, document, { bytes throws(GenesysWireError) in try GenesysRequest(decoding: bytes) }) {
        // What was read is written back so that it reads the same.
        precondition((try? GenesysRequest(decoding: request.encoded())) == request, "a request does not survive encoding")
    }
    return 0
}

/// Decodes `bytes`. A refusal must not carry a value of the document.
private func checked<T>(_ bytes: [UInt8], _ document: JSONValue?, _ decode: ([UInt8]) throws(GenesysWireError) -> T) -> T? {
    do throws(GenesysWireError) {
        return try decode(bytes)
    } catch {
        if let document, error.problem.contains("SECRET") {
            precondition(keys(of: document).contains { $0.contains("SECRET") }, "a refusal shows a value: \(error.problem)")
        }
        return nil
    }
}

/// Every member name in the document (a refusal names its field by path, and a path is made of these).
private func keys(of value: JSONValue) -> [String] {
    var names: [String] = []
    var pending = [value]
    while let next = pending.popLast() {
        switch next {
        case .object(let members):
            names.append(contentsOf: members.keys)
            pending.append(contentsOf: members.values)
        case .array(let items): pending.append(contentsOf: items)
        default: continue
        }
    }
    return names
}

/// What the channel reads out of a frame.
private func exercise(_ frame: GenesysServerFrame) {
    _ = frame.isHealthCheckReply
    switch frame.body {
    case .error(let code, let text):
        _ = (code.description, code.endsTheSession, code.refusesTheMessage, code.isHTTPClass, text.count)
    case .session(let session):
        for upload in uploads {
            exercise(GenesysFileProfile(session: session, fileUpload: upload), session.blockedExtensions + session.allowedFileTypes)
        }
    case .structuredMessage(let message):
        exercise(message)
    case .uploadFailure(let failure), .generateURLError(let failure):
        _ = (failure.errorCode.description, failure.errorCode.refusesTheMessage)
    case .tooManyRequests(_, let code, _):
        _ = (code.description, code.endsTheSession)
    case .presignedURL(let answer):
        _ = answer.isRefreshedDownload
    default:
        break
    }
}

/// What the channel reads out of a message, pushed or paged.
private func exercise(_ message: GenesysStructuredMessage) {
    _ = (message.isReadOnly, message.isConversationDisconnect, message.cards.count)
    for reply in message.quickReplies {
        precondition(reply.originatingMessageId == message.id && reply.type == "QuickReply", "a quick reply answers another message")
    }
    let files = message.attachments
    precondition(files.count <= message.content.count, "more attachments than contents")
    let profile = GenesysFileProfile(enabled: true, allowedFileTypes: files.compactMap(\.mime), blockedFileTypes: [".exe"], maxFileSizeKB: 1)
    for file in files {
        _ = profile.refusal(fileName: file.filename, mimeType: file.mime ?? file.mediaType, byteCount: file.fileSize ?? 0)
    }
}

private func exercise(_ config: GenesysDeploymentConfig) {
    let session = GenesysSessionResponse(connected: true, allowedFileTypes: ["*/*", "image/png"], maxFileSizeKB: 10, blockedExtensions: [".exe"])
    let profile = GenesysFileProfile(session: session, fileUpload: config.fileUpload)
    precondition(profile.enabled || config.fileUpload?.modes.flatMap(\.fileTypes).isEmpty ?? true, "a deployment's file types are lost")
    exercise(profile, config.fileUpload?.modes.flatMap(\.fileTypes) ?? [])
}

/// The deployment's `fileUpload` as it may come: absent, deciding by the session, or by its modes.
private let uploads: [GenesysDeploymentConfig.FileUpload?] = [
    nil,
    .init(enableAttachments: false, modes: []),
    .init(enableAttachments: nil, modes: [.init(fileTypes: ["image/png", "*/*"], maxFileSizeKB: 100)]),
]

/// Asks the profile about files named after what the document gave.
private func exercise(_ profile: GenesysFileProfile, _ names: [String]) {
    for name in names.prefix(8) {
        _ = profile.refusal(fileName: "file" + name, mimeType: name, byteCount: 1000)
        _ = profile.refusal(fileName: name, mimeType: "image/png", byteCount: Int.max)
    }
}
