// GenesysCore: the pure part of the genesys-messaging plugin (issue 35): Genesys Cloud web messaging, the
// successor of GMS chat. No sockets, no clock of its own.
//
// - Wire/: the socket's requests (`configureSession`, `onMessage`, `echo`, the attachment actions…) and
//   the frames the server sends (`SessionResponse`, `StructuredMessage`, the errors…), the history page,
//   the deployment's config.json, the OAuth bodies and the URLs, as Genesys' Messenger transport SDK
//   writes and reads them (Plugins/GenesysMessaging/README.md, "Wire facts"). Imports only the kit's
//   JSONValue, so a fuzz target can compile it alone.
// - Session/: the file profile the deployment and the session give, and the session state machine
//   (configuring, configured, read-only after ConversationDisconnect, reconnection, echo and typing cool-downs).
// - Chat/: the chat session the channel's SessionDriver runs (the machine, the messages shown once, the
//   history catch-up, the requests); imports the plugin API, so the fuzz target leaves it out.
