#!/usr/bin/env python3
"""attendantd's memory with real channels (DESIGN.md section 8, issue 11), and where it goes.

Starts the release attendant-sim (no scripted calls), a private dbus-daemon, scratch XDG folders, and
the release attendantd with the channels asked for, each connected to the simulator as scripts/demo
connects them: `voice` (sip-voice over TCP, Bearer tokens from the simulator's token endpoint), `chat`
(cxone-chat), `gms` (gms-chat) and `actions` (karte-actions). Once the daemon's log says every channel
listens it waits --settle seconds, then reads /proc/PID/status (VmRSS) and /proc/PID/smaps: resident,
private clean, private dirty and shared per mapping. Private clean pages are file pages (code) that no
other process maps at that moment; private dirty pages (heap, stacks, relocated data) are what this
process alone costs whatever else runs.

Usage: Benchmarks/memory.py [--channels voice,chat] [--settle 12] [--binary PATH]
It reports figures; it asserts nothing.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

from voice_idle import BenchError, launch_attendantd, start_bus, stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start_simulator(binary_folder, scratch):
    announcement = os.path.join(scratch, "announcement")
    with open(announcement, "w") as out, open(os.path.join(scratch, "simulator.log"), "w") as log:
        process = subprocess.Popen([os.path.join(binary_folder, "attendant-sim"), "--cxone-auto-reply", "--gms-auto-reply"],
                                   stdout=out, stderr=log, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError("attendant-sim exited: " + open(os.path.join(scratch, "simulator.log")).read())
        try:
            with open(announcement) as f:
                return process, json.load(f)
        except (ValueError, OSError):
            time.sleep(0.1)
    raise BenchError("attendant-sim announced nothing within 20 s")


def configuration(fields, channels, scratch):
    sections = {
        "voice": f"""
[[channel]]
name = "voice"
plugin = "sip-voice"
token-url = "{fields['token_url']}alice"
token-url-field = "token"

[channel.sip-voice]
registrar = "{fields['registrar_tcp']}"
address-of-record = "sip:alice@{fields['domain']}"
authentication = "bearer"
softphone-contact = "<sip:softphone@127.0.0.1:5099>"
""",
        "chat": f"""
[[channel]]
name = "chat"
plugin = "cxone-chat"

[channel.cxone-chat]
brand-id = {fields['cxone_brand']}
channel-id = "{fields['cxone_channel']}"
socket-url = "{fields['cxone_socket']}"
chat-url = "{fields['cxone_chat']}"
first-name = "Alice"
last-name = "Bench"
""",
        "gms": f"""
[[channel]]
name = "gms"
plugin = "gms-chat"

[channel.gms-chat]
url = "{fields['gms_base']}"
service = "{fields['gms_service']}"
nickname = "Alice"
auto-start = true
""",
        "actions": f"""
[[channel]]
name = "actions"
plugin = "karte-actions"
token-file = "{scratch}/karte.key"

[channel.karte-actions]
url = "{fields['karte_base']}"
start-view = "home"
""",
    }
    key = os.path.join(scratch, "karte.key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(fields["karte_app_key"] + "\n")
    path = os.path.join(scratch, "attendant.toml")
    with open(path, "w") as f:
        f.write('[daemon]\nlog-level = "info"\n' + "".join(sections[name] for name in channels))
    return path


def smaps(pid):
    """{mapping: [rss, private clean, private dirty, shared]} in KiB."""
    mappings, current = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and ":" not in parts[0]:
                current = parts[5] if len(parts) > 5 else "[anonymous]"
                mappings.setdefault(current, [0, 0, 0, 0])
            elif parts[0] in ("Rss:", "Private_Clean:", "Private_Dirty:"):
                mappings[current][("Rss:", "Private_Clean:", "Private_Dirty:").index(parts[0])] += int(parts[1])
            elif parts[0] in ("Shared_Clean:", "Shared_Dirty:"):
                mappings[current][3] += int(parts[1])
    return mappings


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--channels", default="voice,chat", help="comma-separated: voice, chat, gms, actions")
    parser.add_argument("--settle", type=float, default=12)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/attendantd"))
    parser.add_argument("--top", type=int, default=12, help="mappings listed")
    args = parser.parse_args()
    channels = [name.strip() for name in args.channels.split(",") if name.strip()]
    unknown = [name for name in channels if name not in ("voice", "chat", "gms", "actions")]
    if not channels or unknown:
        parser.error(f"--channels takes voice, chat, gms and actions, comma-separated (not {', '.join(unknown) or 'nothing'})")
    scratch = tempfile.mkdtemp(prefix="attendant-memory-")
    simulator = bus = daemon = None
    try:
        simulator, fields = start_simulator(os.path.dirname(args.binary), scratch)
        bus, address = start_bus(scratch)
        daemon = launch_attendantd(args.binary, scratch, configuration(fields, channels, scratch), address)
        log_path = os.path.join(scratch, "attendantd.log")
        # Each channel is named after its option: a lone one's status line is "<name> listening".
        wanted = f"ready: {len(channels)} channels listening" if len(channels) > 1 else f"ready: {channels[0]} listening"
        deadline = time.monotonic() + 60
        while wanted not in open(log_path).read():
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise BenchError("attendantd did not report every channel listening:\n" + open(log_path).read()[-3000:])
            time.sleep(0.1)
        time.sleep(args.settle)
        with open(f"/proc/{daemon.pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        mappings = smaps(daemon.pid)
        total = [sum(values[i] for values in mappings.values()) for i in range(4)]
        print(f"attendantd (pid {daemon.pid}), channels: {', '.join(channels)}; {args.settle:.0f} s after every channel listened")
        print(f"  VmRSS {rss / 1024:.1f} MiB; private {(total[1] + total[2]) / 1024:.1f} MiB "
              f"(clean {total[1] / 1024:.1f}, dirty {total[2] / 1024:.1f}); shared {total[3] / 1024:.1f} MiB")
        print(f"  {'resident':>9} {'priv clean':>10} {'priv dirty':>10} {'shared':>8}  mapping (MiB)")
        for name, values in sorted(mappings.items(), key=lambda item: -item[1][0])[:args.top]:
            print(f"  {values[0] / 1024:9.2f} {values[1] / 1024:10.2f} {values[2] / 1024:10.2f} {values[3] / 1024:8.2f}  {name}")
    finally:
        for process in (daemon, bus, simulator):
            if process is not None:
                stop(process)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        sys.exit(f"memory.py: {error}")
