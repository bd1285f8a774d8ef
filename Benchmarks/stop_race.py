#!/usr/bin/env python3
"""SIGTERM right after READY=1, many times: does attendantd always stop, and exit 0?

Each run starts attendantd with two Loopback channels (or `--slow-stop`: one of them with a `stop-delay` it
ignores cancellation for; or `--channels voice,chat,gms,actions`: real channels against one
`attendant-sim` from the binary's folder, on a private session bus, as `memory.py` connects them), waits
for READY=1 on a notify socket this script owns, sends SIGTERM at once (with real channels, after 0 to 1 s,
so the stop meets the channels' start-up work), and waits up to 15 s for the exit. A run that hangs is
attached to with gdb, if installed, and every thread's stack is written to `--stacks DIR` before the
process is killed.

It found two hangs: swift-async-algorithms' `merge` (behind `cancelOnGracefulShutdown()`) waiting on its
own lock on the daemon's one executor thread (about one stop in 150 with Loopback channels), and a GMS
chat's publish waiting for a reply after the Bayeux disconnect (8 stops in 1,300 with real channels).

Usage: Benchmarks/stop_race.py [--runs N] [--binary PATH] [--slow-stop | --channels LIST] [--stacks DIR]
       (default: 500 runs of .build/debug/attendantd). It reports counts; it asserts nothing.
"""
import argparse, os, random, shutil, signal, socket, subprocess, sys, tempfile, time

TWO_CHANNELS = """
[[channel]]
name = "quick"
plugin = "loopback"

[[channel]]
name = "other"
plugin = "loopback"
"""

SLOW_STOP = TWO_CHANNELS + """[channel.loopback]
stop-delay = "1h"
"""


def run_once(binary, config_text, stacks, index, bus_address=None, config=None):
    """'ok', 'exit N' or 'hung', and the daemon's log when not ok."""
    with tempfile.TemporaryDirectory() as scratch:
        if config is None:
            config = os.path.join(scratch, "attendant.toml")
            with open(config, "w") as f:
                f.write('[daemon]\nshutdown-timeout = "1s"\n' + config_text)
        notify_path = os.path.join(scratch, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(30)
        environment = dict(
            os.environ,
            NOTIFY_SOCKET=notify_path,
            XDG_STATE_HOME=scratch + "/state",
            XDG_RUNTIME_DIR=scratch,
            XDG_CONFIG_HOME=scratch + "/config",
            DBUS_SESSION_BUS_ADDRESS=bus_address or "unix:path=/nonexistent",
            DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent",
        )
        daemon = subprocess.Popen(
            [binary, "--config", config], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        try:
            while b"READY=1" not in notify.recv(4096):
                pass
        except socket.timeout:
            daemon.kill()
            return "no READY=1", daemon.communicate()[1]
        if bus_address:
            time.sleep(random.choice([0, 0, 0.05, 0.3, 1.0]))
        daemon.send_signal(signal.SIGTERM)
        try:
            status = daemon.wait(timeout=15)
            log = daemon.stderr.read()
            return ("ok" if status == 0 else f"exit {status}"), log
        except subprocess.TimeoutExpired:
            if stacks and shutil.which("gdb"):
                trace = subprocess.run(
                    ["gdb", "-p", str(daemon.pid), "-batch", "-ex", "thread apply all bt 40"], capture_output=True, text=True
                ).stdout
                with open(os.path.join(stacks, f"hung-{index}.txt"), "w") as f:
                    f.write(trace)
            daemon.kill()
            return "hung", daemon.communicate()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--binary", default=".build/debug/attendantd")
    parser.add_argument("--slow-stop", action="store_true", help="one channel ignores its stop for an hour")
    parser.add_argument("--channels", help="real channels against attendant-sim: voice, chat, gms, actions")
    parser.add_argument("--stacks", help="a folder for the stacks of hung runs (needs gdb)")
    arguments = parser.parse_args()
    if arguments.stacks:
        os.makedirs(arguments.stacks, exist_ok=True)
    simulator = bus = None
    bus_address = config = None
    shared = tempfile.mkdtemp(prefix="stop-race-")
    try:
        if arguments.channels:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import memory, voice_idle
            simulator, fields = memory.start_simulator(os.path.dirname(os.path.abspath(arguments.binary)), shared)
            bus, bus_address = voice_idle.start_bus(shared)
            config = memory.configuration(fields, arguments.channels.split(","), shared)
        counts = {}
        for index in range(arguments.runs):
            outcome, log = run_once(
                arguments.binary, SLOW_STOP if arguments.slow_stop else TWO_CHANNELS, arguments.stacks, index, bus_address, config
            )
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome != "ok":
                print(f"run {index}: {outcome}; the daemon's last lines:\n{log[-1200:]}", flush=True)
        summary = ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items()))
        print(f"{arguments.runs} stops of {arguments.binary}: {summary}")
    finally:
        for process in (simulator, bus):
            if process is not None:
                process.terminate()
                process.wait()
        shutil.rmtree(shared, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
