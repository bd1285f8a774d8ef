// libsystemd for Swift. Only what the daemon uses; variadic functions are not importable into Swift,
// so the daemon calls their non-variadic forms (sd_journal_sendv, sd_notify with a formatted string,
// sd_bus_message_append_basic and friends), and the sd-bus vtable macros become the constructors below.
//
// SwiftPM does not notice edits to this file: clean the build folder after changing it.
#ifndef ATTENDANT_CSYSTEMD_SHIM_H
#define ATTENDANT_CSYSTEMD_SHIM_H

#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

// One sd_bus_vtable entry each. `names` is the argument names, each followed by a NUL, inputs then
// outputs (what SD_BUS_PARAM builds); the strings must outlive the vtable.
static inline sd_bus_vtable attendant_vtable_start(uint64_t flags) {
    sd_bus_vtable entry;
    memset(&entry, 0, sizeof entry);
    sd_bus_vtable start = SD_BUS_VTABLE_START(flags);
    entry = start;
    return entry;
}

static inline sd_bus_vtable attendant_vtable_method(
    const char *member, const char *signature, const char *result, const char *names,
    sd_bus_message_handler_t handler, uint64_t flags) {
    sd_bus_vtable entry;
    memset(&entry, 0, sizeof entry);
    entry.type = _SD_BUS_VTABLE_METHOD;
    entry.flags = flags;
    entry.x.method.member = member;
    entry.x.method.signature = signature;
    entry.x.method.result = result;
    entry.x.method.handler = handler;
    entry.x.method.offset = 0;
    entry.x.method.names = names;
    return entry;
}

static inline sd_bus_vtable attendant_vtable_signal(
    const char *member, const char *signature, const char *names, uint64_t flags) {
    sd_bus_vtable entry;
    memset(&entry, 0, sizeof entry);
    entry.type = _SD_BUS_VTABLE_SIGNAL;
    entry.flags = flags;
    entry.x.signal.member = member;
    entry.x.signal.signature = signature;
    entry.x.signal.names = names;
    return entry;
}

static inline sd_bus_vtable attendant_vtable_property(
    const char *member, const char *signature, sd_bus_property_get_t getter, uint64_t flags) {
    sd_bus_vtable entry;
    memset(&entry, 0, sizeof entry);
    entry.type = _SD_BUS_VTABLE_PROPERTY;
    entry.flags = flags;
    entry.x.property.member = member;
    entry.x.property.signature = signature;
    entry.x.property.get = getter;
    return entry;
}

static inline sd_bus_vtable attendant_vtable_end(void) {
    sd_bus_vtable entry;
    memset(&entry, 0, sizeof entry);
    entry.type = _SD_BUS_VTABLE_END;
    return entry;
}

// Flag values that are enum members or macros Swift cannot see as integers.
static inline uint64_t attendant_vtable_unprivileged(void) { return SD_BUS_VTABLE_UNPRIVILEGED; }
static inline uint64_t attendant_vtable_property_emits_change(void) { return SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE; }

// prctl is variadic: name the calling thread (what `top -H` and crash reports show).
static inline int attendant_name_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
