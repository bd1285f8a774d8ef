// libFuzzer entry point for the CXone wire decoders (scripts/fuzz cxone builds it with the sources of
// Plugins/CXoneChat/CXoneCore/Wire as one module). Every input goes through CXoneWireExercise twice: with
// small limits, so inputs reach them, and with the defaults. A broken invariant traps, which libFuzzer
// reports as a crash and saves the input.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCXoneEvents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for limits in [CXoneWireLimits(maxFrameSize: 2048, maxDepth: 12), CXoneWireLimits()] {
        let result = CXoneWireExercise.run(bytes, limits: limits)
        if let violation = result.violation {
            fatalError(violation)
        }
    }
    return 0
}
