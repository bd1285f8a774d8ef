// The Attendant plugin API.
//
// Two audiences read this module:
//
// - **Plugin authors** implement the *Plugin SPI*: ``ChannelPluginFactory`` and ``Channel``, and export one
//   entry point (see ``PluginExport``). They call the *Host API*: ``ChannelHost``, ``ChannelStore``,
//   ``ChannelSettings``.
// - **The daemon** implements the Host API and calls the Plugin SPI.
//
// The module depends on nothing but swift-log, whose `Logger` it re-exports: a plugin imports only
// `AttendantPluginAPI` and must not link Logging itself, so that one copy of Logging's types is shared
// with the host.
@_exported public import Logging
