// KarteCore: the pure part of the KarteActions plugin (issue 13), no sockets, no clock of its own.
//
// - Wire/: the track request body (`keys`, `app_info`, `events`), event-field validation as the SDKs do it,
//   the track response decoder (size limit, errors naming fields and types, never content), the
//   `response_timestamp` parser, and the campaign content this project shows (``KarteActionContent``).
// - Tracking/: ``KarteTrackingMachine``: pv ids, batching per (visitor, pv_id, original_pv_id), retries.
// - Actions/: ``KarteActionsMachine``: response routing (remote_config, control group, suppress,
//   display-limit mode) and the presentation state (shown actions, resets, links, dismiss, suppress).
//
// The facts behind every rule are in ../shared/protocols/karte.md, with the SDK source paths.
