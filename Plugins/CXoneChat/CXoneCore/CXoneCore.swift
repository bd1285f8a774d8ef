// CXoneCore: the pure part of the CXoneChat plugin (issue 5), no sockets, no clock of its own.
//
// - Wire/: CXone's WebSocket frames and REST bodies, decoded and encoded (imports only
//   FoundationEssentials, so Fuzz/CXoneEvents compiles it alone).
// - Chat/: the chat state machine of the CXone mobile SDK's sequence diagrams, driven by semantic inputs
//   and returning the actions its driver carries out.
