#!/usr/bin/env python3
"""A desktop app that handles some links itself: it serves org.attendant.URLHandler1 on the session bus
and registers with attendantd (SetURLHandler). ShouldOpenURL answers false (claimed) for URLs that
contain the word given as the first argument, true otherwise, and appends each URL asked to the file
given as the second argument. With "--silent" as the third argument it never answers (the daemon must
time out and open the link)."""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

CLAIM, LOG = sys.argv[1], sys.argv[2]
SILENT = len(sys.argv) > 3 and sys.argv[3] == "--silent"


class Handler(dbus.service.Object):
    @dbus.service.method("org.attendant.URLHandler1", in_signature="s", out_signature="b",
                         async_callbacks=("reply", "error"))
    def ShouldOpenURL(self, url, reply, error):
        with open(LOG, "a") as log:
            log.write(url + "\n")
        if not SILENT:
            reply(CLAIM not in url)


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.example.Links", bus)
Handler(bus, "/org/attendant/URLHandler1")
daemon = bus.get_object("org.attendant.Attendant1", "/org/attendant/Attendant1")
daemon.SetURLHandler("org.example.Links", dbus_interface="org.attendant.Attendant1")
print("registered", flush=True)
GLib.MainLoop().run()
