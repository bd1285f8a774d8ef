// GMSCore: the pure part of the GMSChat plugin (issue 12), no sockets, no clock of its own.
//
// - Wire/: Bayeux 1.0 messages and batches, GMS Chat API v2 replies and v1 `/_genesys` events, decoded
//   and encoded (imports only the kit's JSONValue, so Fuzz/BayeuxDecoder compiles it alone).
// - Bayeux/: the Bayeux client state machine: handshake, connect, advice, subscriptions, publishes.
// - Chat/: the transcript ledger (order and deduplication by position).
