// libFuzzer entry point for the SIP message parser and stream framer (scripts/fuzz sip builds it with the
// sources of Plugins/SIPVoice/SIPCore/Message as one module). Every input goes through
// SIPParserExercise twice: with small limits, so inputs reach them, and with the defaults. The stream passes
// cut it in pieces whose sizes come from the input's hash (.drawnFromInput), so a crash reproduces. A broken
// invariant traps, which libFuzzer reports as a crash and saves the input.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSIPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let small = SIPParserLimits(maxLineLength: 256, maxHeaderCount: 24, maxHeadSize: 2048, maxBodySize: 512)
    for limits in [small, SIPParserLimits()] {
        let result = SIPParserExercise.run(bytes, limits: limits, cuts: .drawnFromInput)
        if let violation = result.violation {
            fatalError(violation)
        }
    }
    return 0
}
