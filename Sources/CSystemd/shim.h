// libsystemd for Swift. Only what the daemon uses; variadic functions are not importable into Swift,
// so the daemon calls their non-variadic forms (sd_journal_sendv, sd_notify with a formatted string).
#ifndef ATTENDANT_CSYSTEMD_SHIM_H
#define ATTENDANT_CSYSTEMD_SHIM_H

#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
