#!/usr/bin/env python3
"""How soon attendantd's ring starts with a call and stops when the caller hangs up (issue 30 part 5: "it stops
within 100 ms of the call ending").

A private PulseAudio (a null sink, as the ring tests use) and the release attendantd with one sip-voice channel
whose registrar and caller is this script on one UDP socket (attendantd_invite_latency's setup), with
PULSE_SERVER pointing at the private server. `pactl subscribe` reports every sink input created and removed;
the script reads its lines as they come (time.monotonic_ns at each read). Per call:

- INVITE sent → the ring's stream created at the sound server ("Event 'new' on sink-input");
- after the ring has played for `--ring-ms` (default 300 ms), CANCEL sent → that stream removed ("Event
  'remove'"), with the 200 to the CANCEL and the 487 awaited and acknowledged as a caller does.

Both run through the daemon's whole path: the channel, the host's event router and state database, the alert
center, libcanberra and the sound server, and `pactl subscribe`'s own report (an upper bound of the moment
the sound stopped). Median, p90, p99 and max after 5 warm-up calls; the load average at the end.

Usage: Benchmarks/ring_stop_latency.py [calls] [--ring-ms N] [--binary PATH]
  (default 100 calls, .build-release/release/attendantd with its plugins beside it)
It reports figures; it asserts nothing.
"""
import argparse, os, select, shutil, subprocess, sys, tempfile, time

import attendantd_invite_latency as invite_latency
from attendantd_invite_latency import Registrar, await_cancelled, cancel, uri_address
from baresip_invite_latency import invite, report
from voice_idle import BenchError, start_bus, stop, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WARM_UP = 5
SILENCE = 5


def start_pulseaudio(scratch):
    """PulseAudio with one null sink, on a private socket; returns (process, PULSE_SERVER value)."""
    folder = os.path.join(scratch, "pulse")
    os.makedirs(folder)
    socket_path = os.path.join(folder, "native")
    with open(os.path.join(folder, "default.pa"), "w") as f:
        f.write(f"load-module module-native-protocol-unix socket={socket_path} auth-anonymous=1\n"
                "load-module module-null-sink sink_name=bench\nset-default-sink bench\n")
    env = dict(os.environ, HOME=folder, XDG_RUNTIME_DIR=folder, XDG_CONFIG_HOME=folder + "/config")
    log = open(os.path.join(scratch, "pulseaudio.log"), "w")
    process = subprocess.Popen(
        ["pulseaudio", "-n", "-F", os.path.join(folder, "default.pa"), "--daemonize=no", "--exit-idle-time=-1",
         "--use-pid-file=no", "--disable-shm=yes", "--log-target=stderr"],
        env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    server = "unix:" + socket_path
    client = dict(os.environ, PULSE_SERVER=server)
    wait_for("pulseaudio", lambda: process.poll() is None and
             subprocess.run(["pactl", "info"], env=client, capture_output=True).returncode == 0)
    return process, server


class SinkInputEvents:
    """`pactl subscribe`, line by line, with the time each line was read (from the descriptor itself: a
    buffered reader would hold lines that select() then never reports)."""

    def __init__(self, server):
        self.process = subprocess.Popen(["stdbuf", "-oL", "pactl", "subscribe"], env=dict(os.environ, PULSE_SERVER=server),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        self.fd = self.process.stdout.fileno()
        self.lines = []  # (text, ns) read but not yet taken
        self.partial = b""

    def next(self, kind, timeout):
        """(index, ns) of the next sink-input event of `kind` ("new" or "remove")."""
        deadline = time.monotonic() + timeout
        while True:
            while self.lines:
                line, at = self.lines.pop(0)
                # "Event 'new' on sink-input #3"
                if f"Event '{kind}' on sink-input #" in line:
                    return int(line.rsplit("#", 1)[1]), at
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise BenchError(f"no sink-input {kind} event within {timeout} s")
            data = os.read(self.fd, 65536)
            now = time.monotonic_ns()
            if not data:
                raise BenchError("pactl subscribe ended")
            *complete, self.partial = (self.partial + data).split(b"\n")
            self.lines += [(line.decode(errors="replace"), now) for line in complete]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("calls", nargs="?", type=int, default=100)
    parser.add_argument("--ring-ms", type=int, default=300)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/attendantd"))
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary} is not there: build it first (release build into .build-release)")

    scratch = tempfile.mkdtemp(prefix="attendant-ring-latency-")
    pulse = events = bus = daemon = None
    try:
        pulse, server = start_pulseaudio(scratch)
        events = SinkInputEvents(server)
        os.environ["PULSE_SERVER"] = server  # for attendantd, which launch_attendantd starts with this environment
        registrar = Registrar()
        bus, address = start_bus(scratch)
        daemon = invite_latency.start_attendantd(args.binary, scratch, registrar.port, address)
        deadline = time.monotonic() + 30
        while registrar.contact is None:
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise BenchError("attendantd did not REGISTER within 30 s")
            registrar.receive(0.2)
        target, destination = registrar.contact, uri_address(registrar.contact)
        time.sleep(0.5)

        to_ring, to_silence = [], []
        for number in range(WARM_UP + args.calls):
            message, call = invite(number, target, registrar.port)
            call["message"] = message.decode()
            registrar.socket.sendto(message, destination)
            sent = time.monotonic_ns()
            stream, started = events.next("new", SILENCE)
            time.sleep(args.ring_ms / 1000)
            registrar.socket.sendto(cancel(call), destination)
            cancelled = time.monotonic_ns()
            # The ring's stream goes (a loop that ended on its own would show as a remove of another index
            # followed by a new one: only this stream's removal counts).
            while True:
                gone, stopped = events.next("remove", SILENCE)
                if gone == stream:
                    break
            await_cancelled(lambda timeout: (registrar.receive(timeout) or [None])[0],
                            lambda reply: registrar.socket.sendto(reply, destination), call, number)
            if number >= WARM_UP:
                to_ring.append((started - sent) / 1e6)
                to_silence.append((stopped - cancelled) / 1e6)
        if daemon.poll() is not None:
            raise BenchError(f"attendantd exited with status {daemon.returncode}")
        print(f"attendantd pid {daemon.pid}: {args.binary}; PulseAudio null sink; rings {args.ring_ms} ms before each CANCEL")
        report("INVITE sent → the ring's stream created at the sound server", to_ring, warm_up=WARM_UP)
        report("CANCEL sent → the ring's stream removed at the sound server", to_silence, warm_up=WARM_UP)
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    except BenchError as error:
        print(f"ring_stop_latency: {error}", file=sys.stderr)
        path = os.path.join(scratch, "attendantd.log")
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                print(f"--- attendantd.log (end):\n{f.read()[-3000:]}", file=sys.stderr)
        sys.exit(1)
    finally:
        stop(daemon)
        stop(bus)
        if events is not None:
            stop(events.process)
        stop(pulse)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
