#!/usr/bin/env python3
"""A fault campaign across all four channels at once (issue 34, item 1).

One attendantd runs a sip-voice, a cxone-chat, a gms-chat and a karte-actions channel against one
attendant-sim (as memory.py connects them; voice over TCP with Bearer tokens, CXone with several threads
per customer), on a private session bus with a notification server (python-dbusmock's notification_daemon
template, its calls logged) and a private system bus with python-dbusmock's logind template. Then, one fault
kind after the other, each for its count:

- suspend: PrepareForSleep(true) through the logind mock, the chats' background awaited, the daemon
  stopped (SIGSTOP, as a suspended machine is frozen) while the agents write, SIGCONT and
  PrepareForSleep(false); traffic on every channel in each cycle, before and during the sleep;
- kill: traffic started, SIGKILL at a random moment 0-0.5 s into it, the daemon started again on the same
  configuration and state folder, traffic again;
- tokens: `RenewToken` of the voice channel (a new JWT from the simulator's token endpoint, then a new
  REGISTER); every --refuse-every'th one refused by the endpoint (`/control/refuse-renewals`); traffic
  every --token-traffic-every rotations;
- drops: the simulator lives in a network namespace the script makes, reached over a veth pair
  (10.77.0.1/30 here, 10.77.0.2/30 there; a TCP relay in the namespace carries each of the simulator's
  ports from 10.77.0.2 to its 127.0.0.1, since attendant-sim listens on loopback only). Each drop takes the
  link down for --drop-seconds and up again; every third one also has the simulator's registrar and GMS
  server forget their clients (`/control/restart`, `/control/gms/fault?kind=restart`) and the CXone gateway
  drop its sockets while the link is down; every other drop first adds loss and latency to the link for
  its traffic: 5 % loss and 80 ms each way, with tc netem on both ends of the veth pair, or, on a kernel
  built without netem, the loss from nftables (a `numgen random` drop of 5 % of the packets leaving each
  end) and the latency from the relay, which holds each chunk 80 ms before passing it on (the script says
  which it used, and goes on without either when neither works).

Traffic, each round: the simulator calls the voice channel (the call is declined once recorded); the CXone
agent opens a new thread with a message; the GMS agent writes in the open chat (the first round's is a
new contact); the KARTE channel reports a view whose campaign (one per round) shows an action. Each
message carries a unique mark.

For each fault kind it reports contacts expected (calls the daemon rang, threads and chats opened,
actions tracked), recorded, duplicated (the same id twice) and lost (expected, not recorded once traffic
has settled); messages (agent messages and actions) alerted once, twice or more, and never (Notify calls
whose body or summary holds the mark); and time from the fault's end (resume, restart, renewal, link up)
to every channel listening again (median, p99, max; ChannelStateChanged signals read with dbus-monitor).

Every output is then scanned for every secret (issue 34, item 4): the voice tokens, the CXone OAuth code,
PKCE verifier and access tokens, the GMS chats' secure keys and the KARTE app key (what the script writes, and
the simulator's `/control/secrets`), in attendantd's log, everything on both private buses (dbus-monitor),
the notifications, every attendantctl output the campaign took plus one of each informational command with
--json, and every file under the daemon's state, config and runtime folders. Hits are reported per output
and per kind; secrets.json (mode 0600) is the one place secrets belong, so it is shown apart. The drops
(link down) leave an unreachable route behind the link's own, so the peers cannot be reached through the
default route meanwhile.

Usage: Benchmarks/fault_campaign.py [--suspend 200] [--drops 200] [--tokens 1000] [--kill 50]
                                    [--binary .build/debug/attendantd] [--keep DIR]
  A count of 0 skips that fault kind. Needs root for the namespace (drops are skipped without it).
It reports figures; it asserts nothing, and exits non-zero only when it could not run.
"""
import argparse, json, os, random, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time
import urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from voice_idle import BenchError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHANNELS = ("voice", "chat", "gms", "actions")
LOGIN1 = "org.freedesktop.login1"
MOCK = "org.freedesktop.DBus.Mock"
MANAGER_PATH = "/org/freedesktop/login1"
MANAGER = "org.freedesktop.login1.Manager"
NAMESPACE, HOST_LINK, PEER_LINK = "attendant-fc", "afc0", "afc1"
HOST_ADDRESS, PEER_ADDRESS, UNREACHABLE = "10.77.0.1", "10.77.0.2", "10.77.0.0/30"


def dbusmock_python():
    """A python with python-dbusmock: scripts/setup's venv, the one the tests use, else this one."""
    for candidate in (os.path.join(ROOT, ".build-python/bin/python3"), sys.executable, "/usr/bin/python3"):
        if os.access(candidate, os.X_OK) and subprocess.run([candidate, "-c", "import dbusmock"],
                                                            capture_output=True).returncode == 0:
            return candidate
    raise BenchError("no python with python-dbusmock: run scripts/setup, which installs it into .build-python")


def wait_for(what, condition, timeout=30.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise BenchError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class StateLog:
    """ChannelStateChanged signals as dbus-monitor prints them, with the bus's time stamps."""

    def __init__(self, address, scratch):
        self.entries = []  # (time, channel, state)
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            ["dbus-monitor", "--address", address,
             "type='signal',interface='org.attendant.Attendant1',member='ChannelStateChanged'"],
            stdout=subprocess.PIPE, stderr=open(os.path.join(scratch, "dbus-monitor.log"), "w"), text=True, bufsize=1)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        stamp, strings = None, []
        for line in self.process.stdout:
            found = re.match(r"signal time=([0-9.]+) .*member=ChannelStateChanged", line)
            if found:
                stamp, strings = float(found.group(1)), []
            elif stamp is not None and line.startswith("   string "):
                strings.append(line.strip()[len('string "'):-1])
                if len(strings) == 2:
                    with self.lock:
                        self.entries.append((stamp, strings[0], strings[1]))
                    stamp = None

    def listening_after(self, start, states):
        """The first time at or after `start` when every channel's state is listening, given `states`
        (each channel's state at `start`), or None."""
        states = dict(states)
        if all(state == "listening" for state in states.values()):
            return start
        with self.lock:
            entries = [entry for entry in self.entries if entry[0] >= start]
        for stamp, channel, state in entries:
            states[channel] = state
            if all(value == "listening" for value in states.values()):
                return stamp
        return None

    def states_at(self, moment):
        states = {channel: "starting" for channel in CHANNELS}
        with self.lock:
            for stamp, channel, state in self.entries:
                if stamp < moment:
                    states[channel] = state
        return states


# ---------------------------------------------------------------------------------------------- secrets

class SecretScan:
    """Every secret the campaign and the simulator handed the daemon, by kind, and where they turn up.

    The values come from what the script writes (the KARTE app key's file, the CXone OAuth code's file and
    its PKCE verifier) and from the simulator (`/control/secrets`: every voice token and CXone token it
    issued, the GMS chats' secure keys). Ids the daemon may show (the CXone customer id, the chats' local
    ids, KARTE's visitor id) are not secrets and are not looked for. A JWT is also looked for by its
    signature alone, which a log that cut the token short would still show."""

    def __init__(self):
        self.values = {}  # kind: set of values

    def add(self, kind, values):
        for value in values if isinstance(values, (list, set, tuple)) else [values]:
            if isinstance(value, str) and len(value) >= 8:
                self.values.setdefault(kind, set()).add(value)

    def needles(self):
        """(kind, value, a JWT's signature or None) for every value."""
        found = []
        for kind, values in self.values.items():
            for value in sorted(values):
                parts = value.split(".")
                signature = parts[2].encode() if len(parts) == 3 and len(parts[2]) >= 16 else None
                found.append((kind, value.encode(), signature))
        return found

    def scan(self, outputs):
        """outputs: (output, [paths]); returns {output: {kind: hits}}, and {output: [(path, kind)]}."""
        needles = self.needles()
        hits, where = {}, {}
        for output, paths in outputs:
            row = hits.setdefault(output, {kind: 0 for kind in self.values})
            for path in paths:
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError:
                    continue
                for kind, value, signature in needles:
                    # A JWT's signature is in each copy of it, and also in a copy cut short at the front.
                    count = data.count(signature if signature is not None else value)
                    if count:
                        row[kind] += count
                        where.setdefault(output, []).append((os.path.relpath(path), kind))
        return hits, where


# ---------------------------------------------------------------------------------------------- the relay

class RelayDelay:
    """The latency the relay adds to each chunk, in ms, read from a file the script writes (absent: none)."""

    def __init__(self, path):
        self.path, self.stamp, self.seconds = path, None, 0.0

    def current(self):
        try:
            stamp = os.stat(self.path).st_mtime_ns
        except OSError:
            self.stamp, self.seconds = None, 0.0
            return 0.0
        if stamp != self.stamp:
            try:
                with open(self.path) as f:
                    self.seconds = float(f.read().strip() or 0) / 1000
            except (OSError, ValueError):
                self.seconds = 0.0
            self.stamp = stamp
            print(f"{time.strftime('%H:%M:%S')} relay: each chunk now waits {self.seconds * 1000:.0f} ms", file=sys.stderr,
                  flush=True)
        return self.seconds


DELAY = None  # the relay's RelayDelay, in the relay process only


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            delay = DELAY.current() if DELAY else 0.0
            if delay > 0:
                time.sleep(delay)
            sink.sendall(data)
    except OSError:
        pass
    for end in (sink, source):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def forward(listener, target):
    """Accepts on `listener` and carries each connection to `target` (host, port), both ways, in threads."""
    def serve():
        while True:
            client, _ = listener.accept()
            try:
                upstream = socket.create_connection(target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for pair in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=pair, daemon=True).start()
    threading.Thread(target=serve, daemon=True).start()


def relay(listen_host, ports, unix_path, http_port):
    """Runs inside the namespace: each port on listen_host to the same port on 127.0.0.1, where
    attendant-sim listens, and unix_path (a file socket, which no network namespace hides) to its HTTP
    port, for the script's control calls while the link is down. Each chunk waits the latency written in
    FAULT_CAMPAIGN_DELAY, when that file is there (the stand-in for netem's delay)."""
    global DELAY
    if os.environ.get("FAULT_CAMPAIGN_DELAY"):
        DELAY = RelayDelay(os.environ["FAULT_CAMPAIGN_DELAY"])
    listeners = []
    for port in ports:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((listen_host, port))
        listener.listen(64)
        listeners.append((listener, port))
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.bind(unix_path)
    control.listen(64)
    listeners.append((control, http_port))
    for listener, port in listeners:
        forward(listener, ("127.0.0.1", port))
    print("relaying", flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})


class UnixHTTPConnection(__import__("http.client").client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=20)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(self.path)


# ---------------------------------------------------------------------------------------------- the network

class Namespace:
    """The peers' network namespace and the veth pair to it; removed by close(), also after a failure."""

    def __init__(self):
        self.made = False
        self.netem = None  # why netem is unavailable, or None once it worked
        self.nft = None  # without netem: why nftables cannot drop packets, or None once it could
        self.delay_file = None  # without netem: where the relay reads its latency (Campaign sets it)

    @staticmethod
    def ip(*arguments, check=True):
        result = subprocess.run(["ip", *arguments], capture_output=True, text=True)
        if check and result.returncode != 0:
            raise BenchError(f"ip {' '.join(arguments)}: {result.stderr.strip()}")
        return result

    def open(self):
        self.close()  # what a killed run left
        self.made = True
        self.ip("netns", "add", NAMESPACE)
        self.ip("-n", NAMESPACE, "link", "set", "lo", "up")
        self.ip("link", "add", HOST_LINK, "type", "veth", "peer", "name", PEER_LINK)
        self.ip("link", "set", PEER_LINK, "netns", NAMESPACE)
        self.ip("addr", "add", HOST_ADDRESS + "/30", "dev", HOST_LINK)
        self.ip("-n", NAMESPACE, "addr", "add", PEER_ADDRESS + "/30", "dev", PEER_LINK)
        self.ip("link", "set", HOST_LINK, "up")
        self.ip("-n", NAMESPACE, "link", "set", PEER_LINK, "up")
        # While the link is down its route goes with it, and the peers' addresses would be sent to the
        # default route instead: on a machine whose network answers any address (a sandbox's proxy does,
        # with "HTTP/1.1 400"), the daemon would talk to a stranger. This route, behind the link's own,
        # makes a drop what a lost network is: no route to the peers ("No route to host").
        self.ip("route", "add", "unreachable", UNREACHABLE, "metric", "4000")
        probe = subprocess.run(["tc", "qdisc", "add", "dev", HOST_LINK, "root", "netem", "delay", "1ms"],
                               capture_output=True, text=True)
        if probe.returncode == 0:
            subprocess.run(["tc", "qdisc", "del", "dev", HOST_LINK, "root"], capture_output=True)
        else:
            self.netem = f"tc qdisc … netem: {probe.stderr.strip()}"
            try:
                with __import__("gzip").open("/proc/config.gz", "rt") as f:
                    if "# CONFIG_NET_SCH_NETEM is not set" in f.read():
                        self.netem += f" (this kernel, {os.uname().release}, is built without CONFIG_NET_SCH_NETEM)"
            except OSError:
                pass
            self.nft = self.nft_rules(0)
            if self.nft is None:
                self.nft_clear()

    @property
    def impairment(self):
        """How loss and latency are made: 'netem', 'nftables and the relay', or None."""
        if self.netem is None:
            return "netem"
        return "nftables and the relay" if self.nft is None else None

    @staticmethod
    def nft_script(link, loss):
        # A table of the campaign's own in each namespace: output of the veth end, loss % of the packets.
        return (f"table inet attendant_fc {{\n chain out {{\n  type filter hook output priority 0; policy accept;\n"
                f"  oifname \"{link}\" numgen random mod 100 < {loss} counter drop\n }}\n}}\n")

    def nft_rules(self, loss):
        """Drops loss % of what leaves each end of the link; None once done, else why it could not."""
        self.nft_clear()
        for prefix, link in (([], HOST_LINK), (["ip", "netns", "exec", NAMESPACE], PEER_LINK)):
            try:
                result = subprocess.run([*prefix, "nft", "-f", "-"], input=self.nft_script(link, loss),
                                        capture_output=True, text=True)
            except FileNotFoundError:
                return "nft is not installed (Debian's nftables; scripts/setup installs it)"
            if result.returncode != 0:
                return f"nft: {result.stderr.strip()}"
        return None

    def nft_clear(self):
        for prefix in ([], ["ip", "netns", "exec", NAMESPACE]):
            try:
                subprocess.run([*prefix, "nft", "delete", "table", "inet", "attendant_fc"], capture_output=True)
            except FileNotFoundError:
                return

    def link(self, up):
        self.ip("link", "set", HOST_LINK, "up" if up else "down")

    def impair(self, loss, delay_ms):
        if self.netem is None:
            subprocess.run(["tc", "qdisc", "replace", "dev", HOST_LINK, "root", "netem", "loss", f"{loss}%",
                            "delay", f"{delay_ms}ms"], check=True, capture_output=True)
            subprocess.run(["ip", "netns", "exec", NAMESPACE, "tc", "qdisc", "replace", "dev", PEER_LINK, "root",
                            "netem", "loss", f"{loss}%", "delay", f"{delay_ms}ms"], check=True, capture_output=True)
        elif self.nft is None:
            reason = self.nft_rules(loss)
            if reason:
                raise BenchError(f"cannot add the loss: {reason}")
            if self.delay_file:
                with open(self.delay_file, "w") as f:
                    f.write(str(delay_ms))

    def dropped(self):
        """Packets nftables dropped so far on each end (host, peer), for the log; None with netem."""
        if self.netem is None or self.nft is not None:
            return None
        counts = []
        for prefix in ([], ["ip", "netns", "exec", NAMESPACE]):
            listing = subprocess.run([*prefix, "nft", "list", "table", "inet", "attendant_fc"], capture_output=True,
                                     text=True).stdout
            found = re.search(r"counter packets (\d+)", listing)
            counts.append(int(found.group(1)) if found else 0)
        return tuple(counts)

    def clear(self):
        if self.netem is None:
            subprocess.run(["tc", "qdisc", "del", "dev", HOST_LINK, "root"], capture_output=True)
            subprocess.run(["ip", "netns", "exec", NAMESPACE, "tc", "qdisc", "del", "dev", PEER_LINK, "root"],
                           capture_output=True)
        elif self.nft is None:
            self.nft_clear()
            if self.delay_file and os.path.exists(self.delay_file):
                os.unlink(self.delay_file)

    def close(self):
        if self.netem is not None:
            self.nft_clear()  # before the namespace goes (no nft installed: nothing to clear, nothing said)
        self.ip("route", "del", "unreachable", UNREACHABLE, "metric", "4000", check=False)
        if self.ip("link", "show", HOST_LINK, check=False).returncode == 0:
            self.ip("link", "del", HOST_LINK, check=False)
        if NAMESPACE in self.ip("netns", "list", check=False).stdout.split():
            self.ip("netns", "del", NAMESPACE, check=False)


# ---------------------------------------------------------------------------------------------- the campaign

class Campaign:
    def __init__(self, arguments, scratch):
        self.arguments = arguments
        self.scratch = scratch
        self.binary = os.path.abspath(arguments.binary)
        self.folder = os.path.dirname(self.binary)
        self.processes = []  # everything started, stopped in reverse order
        self.daemon = None
        self.namespace = None
        self.control_socket = None
        self.restarts = 0
        self.secrets = SecretScan()

    # -- processes

    def spawn(self, name, command, environment=None, **options):
        log = open(os.path.join(self.scratch, name + ".log"), "a")
        process = subprocess.Popen(command, env=environment or os.environ, stdin=subprocess.DEVNULL,
                                   stdout=options.pop("stdout", log), stderr=options.pop("stderr", log), **options)
        self.processes.append(process)
        return process

    def log_tail(self, name, characters=3000):
        try:
            with open(os.path.join(self.scratch, name + ".log"), errors="replace") as f:
                return f.read()[-characters:]
        except OSError:
            return ""

    def stop_all(self):
        if self.daemon is not None and self.daemon.poll() is None:
            os.kill(self.daemon.pid, signal.SIGCONT)
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def bus(self, name):
        process = self.spawn(name, ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address",
                                    f"--address=unix:path={self.scratch}/{name}"], stdout=subprocess.PIPE, text=True)
        address = process.stdout.readline().strip()
        if not address:
            raise BenchError(f"dbus-daemon ({name}) did not print its address")
        return address

    def busctl(self, address, *arguments):
        result = subprocess.run(["busctl", "--address=" + address, "--timeout=20", *arguments],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise BenchError(f"busctl {' '.join(arguments)}: {result.stderr.strip()}")
        return result.stdout

    def start_desktop(self):
        """The session bus with a notification server that logs its calls, the system bus with logind."""
        self.session_bus = self.bus("session-bus")
        self.system_bus = self.bus("system-bus")
        python = dbusmock_python()
        environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.session_bus,
                           DBUS_SYSTEM_BUS_ADDRESS=self.system_bus)
        self.notify_log = os.path.join(self.scratch, "notify-calls.log")
        self.spawn("notifications", [python, "-m", "dbusmock", "--session", "--template", "notification_daemon",
                                     "-l", self.notify_log], environment)
        self.spawn("logind", [python, "-m", "dbusmock", "--system", "--template", "logind"], environment)
        for address, name in ((self.session_bus, "org.freedesktop.Notifications"), (self.system_bus, LOGIN1)):
            wait_for(f"{name} on its bus", lambda: name in self.busctl(address, "list", "--no-legend"), 60, 0.2)
        self.session_id = "fc1"
        user = os.environ.get("USER") or "root"
        self.busctl(self.system_bus, "call", LOGIN1, MANAGER_PATH, MOCK, "AddSession", "ssusb",
                    self.session_id, "seat0", str(os.getuid()), user, "true")
        self.busctl(self.system_bus, "call", LOGIN1, MANAGER_PATH, MOCK, "AddMethod", "sssss", MANAGER,
                    "GetSessionByPID", "u", "o", f"ret = '/org/freedesktop/login1/session/{self.session_id}'")
        self.states = StateLog(self.session_bus, self.scratch)
        # Everything on both private buses, for the secret scan: the daemon's replies and signals, the
        # alerts it sends, what it asks logind.
        for address, name in ((self.session_bus, "session-bus-traffic"), (self.system_bus, "system-bus-traffic")):
            self.spawn(name, ["dbus-monitor", "--address", address])

    def prepare_for_sleep(self, start):
        flag = "true" if start else "false"
        self.busctl(self.system_bus, "call", LOGIN1, MANAGER_PATH, MOCK, "UpdateProperties", "sa{sv}",
                    MANAGER, "1", "PreparingForSleep", "b", flag)
        self.busctl(self.system_bus, "call", LOGIN1, MANAGER_PATH, MOCK, "EmitSignal", "sssav",
                    MANAGER, "PrepareForSleep", "b", "1", "b", flag)

    def notify_calls(self):
        """Every Notify call the notification server logged, as its logged line."""
        try:
            with open(self.notify_log, errors="replace") as f:
                return [line for line in f if " Notify " in line[:40]]
        except OSError:
            return []

    # -- the simulator

    def start_simulator(self, in_namespace):
        command = [os.path.join(self.folder, "attendant-sim"), "--cxone-multi-thread", "--cxone-oauth", "--gms-greeting", "",
                   "--token-lifetime", "3600"]
        if in_namespace:
            command = ["ip", "netns", "exec", NAMESPACE] + command
        announcement = os.path.join(self.scratch, "announcement")
        simulator = self.spawn("simulator", command, stdout=open(announcement, "w"))
        def announced():
            if simulator.poll() is not None:
                raise BenchError("attendant-sim exited: " + self.log_tail("simulator"))
            try:
                with open(announcement) as f:
                    return json.load(f)
            except (ValueError, OSError):
                return None
        fields = wait_for("attendant-sim's announcement", announced, 30, 0.1)
        self.http_port = fields["http_port"]
        if in_namespace:
            self.control_socket = os.path.join(self.scratch, "control.sock")
            relay_process = self.spawn("relay", ["ip", "netns", "exec", NAMESPACE, sys.executable, __file__,
                                                 "--relay", str(fields["http_port"]), str(fields["sip_port"])],
                                       dict(os.environ, FAULT_CAMPAIGN_CONTROL=self.control_socket,
                                            FAULT_CAMPAIGN_DELAY=os.path.join(self.scratch, "relay-delay-ms")),
                                       stdout=subprocess.PIPE, text=True)
            if relay_process.stdout.readline().strip() != "relaying":
                raise BenchError("the relay did not start: " + self.log_tail("relay"))
            token_url = fields["token_url"]
            fields = {key: value.replace("127.0.0.1", PEER_ADDRESS) if isinstance(value, str) else value
                      for key, value in fields.items()}
            # attendantd takes a plain-http token URL on this machine only (a token must not cross a network
            # in the clear): the token endpoint is reached through a relay on 127.0.0.1 here, over the link.
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            forward(listener, (PEER_ADDRESS, self.http_port))
            fields["token_url"] = token_url.replace(f":{self.http_port}/", f":{listener.getsockname()[1]}/")
        return fields

    def sim(self, method, path, body=None):
        """A call to the simulator's control API: its JSON answer (or text)."""
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        if self.control_socket:
            connection = UnixHTTPConnection(self.control_socket)
            connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
            answer = connection.getresponse()
            status, text = answer.status, answer.read().decode()
            connection.close()
        else:
            request = urllib.request.Request(f"http://127.0.0.1:{self.http_port}{path}", data=data, method=method,
                                             headers={"Content-Type": "application/json"} if data else {})
            try:
                with urllib.request.urlopen(request, timeout=20) as answer:
                    status, text = answer.status, answer.read().decode()
            except urllib.error.HTTPError as error:
                status, text = error.code, error.read().decode()
        if status >= 400:
            raise BenchError(f"simulator {method} {path}: {status} {text[:300]}")
        try:
            return json.loads(text)
        except ValueError:
            return text

    # -- the daemon

    def write_configuration(self, fields):
        key = os.path.join(self.scratch, "karte.key")
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(fields["karte_app_key"] + "\n")
        # The CXone channel signs in with OAuth: an authorization code (its token) and a PKCE verifier.
        code, verifier = f"fc-oauth-code-{random.getrandbits(96):024x}", f"fc-verifier-{random.getrandbits(128):032x}"
        code_file = os.path.join(self.scratch, "cxone.code")
        with open(os.open(code_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(code + "\n")
        self.secrets.add("KARTE app key", fields["karte_app_key"])
        self.secrets.add("CXone OAuth code", code)
        self.secrets.add("CXone PKCE verifier", verifier)
        self.config = os.path.join(self.scratch, "attendant.toml")
        with open(self.config, "w") as f:
            f.write(f"""[daemon]
log-level = "{self.arguments.log_level}"

[alerts]
coalesce = "0s"
ring = false

[[channel]]
name = "voice"
plugin = "sip-voice"
token-url = "{fields['token_url']}alice"
token-url-field = "token"

[channel.sip-voice]
registrar = "{fields['registrar_tcp']}"
address-of-record = "sip:alice@{fields['domain']}"
authentication = "bearer"

[[channel]]
name = "chat"
plugin = "cxone-chat"
token-file = "{code_file}"
chat-alert-lines = 1
chat-alert-events = ["message"]

[channel.cxone-chat]
brand-id = {fields['cxone_brand']}
channel-id = "{fields['cxone_channel']}"
socket-url = "{fields['cxone_socket']}"
chat-url = "{fields['cxone_chat']}"
first-name = "Alice"
last-name = "Campaign"
code-verifier = "{verifier}"

[[channel]]
name = "gms"
plugin = "gms-chat"
chat-alert-lines = 1
chat-alert-events = ["message"]

[channel.gms-chat]
url = "{fields['gms_base']}"
service = "{fields['gms_service']}"
nickname = "Alice"
auto-start = true

[[channel]]
name = "actions"
plugin = "karte-actions"
token-file = "{key}"

[channel.karte-actions]
url = "{fields['karte_base']}"
start-view = "home"
""")

    def start_daemon(self):
        """attendantd on the configuration and the state folder of every start; returns its spawn time."""
        environment = dict(os.environ, XDG_RUNTIME_DIR=self.scratch + "/run", XDG_STATE_HOME=self.scratch + "/state",
                           XDG_CONFIG_HOME=self.scratch + "/config", DBUS_SESSION_BUS_ADDRESS=self.session_bus,
                           DBUS_SYSTEM_BUS_ADDRESS=self.system_bus, XDG_SESSION_ID=self.session_id)
        for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"):
            environment.pop(key, None)
        for folder in ("run", "state", "config"):
            os.makedirs(os.path.join(self.scratch, folder), mode=0o700, exist_ok=True)
        started = time.time()
        if self.daemon is not None:
            self.processes.remove(self.daemon)
        with open(os.path.join(self.scratch, "attendantd.log"), "a") as log:
            log.write(f"==== start {self.restarts} at {started:.3f}\n")
        self.daemon = self.spawn("attendantd", [self.binary, "--config", self.config], environment,
                                 stderr=subprocess.STDOUT)
        self.restarts += 1
        return started

    def event(self, text):
        """A line in the campaign's own log (campaign.log, kept with --keep), with the time the daemon's
        log and the bus use, to line up each fault with what the daemon did."""
        with open(os.path.join(self.scratch, "campaign.log"), "a") as log:
            log.write(f"{time.strftime('%H:%M:%S', time.localtime())}.{int(time.time() * 1000) % 1000:03d} {text}\n")

    def ctl(self, *arguments, check=True):
        result = subprocess.run([os.path.join(self.folder, "attendantctl"), *arguments], capture_output=True, text=True,
                                env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.session_bus), timeout=60)
        with open(os.path.join(self.scratch, "attendantctl.log"), "a") as log:  # for the secret scan
            log.write(f"$ attendantctl {' '.join(arguments)} ({result.returncode})\n{result.stdout}{result.stderr}\n")
        if check and result.returncode != 0:
            raise BenchError(f"attendantctl {' '.join(arguments)} ({result.returncode}): {result.stdout}{result.stderr}"
                             + "\nattendantd's log:\n" + self.log_tail("attendantd"))
        return result

    def sweep(self):
        """Every informational attendantctl command with --json once, for the secret scan."""
        commands = [["status"], ["channels"], ["contacts", "--limit", "1000000"], ["health"], ["metrics"],
                    ["actions", "list", "--channel", "actions"], ["actions", "variables", "--channel", "actions"]]
        for chat in ("chat", "gms"):
            commands += [["chat", "status", "--channel", chat], ["chat", "threads", "--channel", chat]]
        for command in commands:
            self.ctl(*command, *([] if command == ["metrics"] else ["--json"]), check=False)

    def collect_secrets(self):
        """The simulator's secrets (every token it issued, the GMS chats' keys), added to the script's."""
        issued = self.sim("GET", "/control/secrets")
        self.secrets.add("voice token (JWT)", issued["voice_tokens"])
        self.secrets.add("CXone access token", issued["cxone_access_tokens"])
        self.secrets.add("CXone transaction token", issued["cxone_transaction_tokens"])
        self.secrets.add("GMS secure key", issued["gms_secure_keys"])
        self.secrets.add("KARTE app key", issued["karte_app_key"])

    def scan_secrets(self):
        """Each output searched for each secret, once the daemon has stopped: hits by output and kind, the
        files with hits, and whether the secrets file (the one place secrets belong) has mode 0600."""
        def files(*folders):
            return [os.path.join(top, name) for folder in folders for top, _, names in os.walk(folder) for name in names]
        state = [path for path in files(*(os.path.join(self.scratch, folder) for folder in ("state", "config", "run")))
                 if not os.path.basename(path) == "secrets.json" and not os.path.basename(path).endswith((".sock", "bus"))]
        vault = [path for path in files(os.path.join(self.scratch, "state")) if os.path.basename(path) == "secrets.json"]
        scratch = lambda name: [os.path.join(self.scratch, name)]
        outputs = [
            ("attendantd's log (stderr; the journal's lines)", scratch("attendantd.log")),
            ("session bus: every call, reply and signal", scratch("session-bus-traffic.log")),
            ("system bus (logind)", scratch("system-bus-traffic.log")),
            ("desktop notifications", scratch("notify-calls.log")),
            ("attendantctl outputs (--json and text)", scratch("attendantctl.log")),
            ("state, config and runtime folders (SQLite, WAL, ...)", state),
            ("secrets.json (mode 0600: where secrets belong)", vault),
        ]
        hits, where = self.secrets.scan(outputs)
        modes = [oct(os.stat(path).st_mode & 0o777) for path in vault]
        return hits, where, modes, len(state)

    def channels(self):
        result = self.ctl("channels", "--json", check=False)
        try:
            return {channel["name"]: channel for channel in json.loads(result.stdout)}
        except (ValueError, TypeError):
            return {}

    def contacts(self):
        return json.loads(self.ctl("contacts", "--json", "--limit", "1000000").stdout)

    def all_listening(self, timeout=60):
        def check():
            if self.daemon.poll() is not None:
                raise BenchError(f"attendantd exited ({self.daemon.returncode}):\n" + self.log_tail("attendantd"))
            channels = self.channels()
            return len(channels) == len(CHANNELS) and all(c["state"] == "listening" for c in channels.values())
        wait_for("every channel listening", check, timeout, 0.1)


# ---------------------------------------------------------------------------------------------- traffic

class Ledger:
    """What one fault kind's traffic should leave behind, and the recovery times measured."""

    def __init__(self, kind):
        self.kind = kind
        self.calls = []          # call ids the simulator placed
        self.threads = []        # CXone thread ids the agent opened
        self.gms_chats = set()   # GMS chat ids the agent wrote in
        self.campaigns = []      # KARTE campaign ids whose view the channel took
        self.marks = []          # (channel, mark) of every agent message and action
        self.recoveries = []     # seconds from the fault's end to every channel listening
        self.unrecovered = 0     # faults after which the channels were not all listening within the bound
        self.notes = []
        self.failed_views = 0    # views attendantctl could not hand over (the daemon killed then, or refusing)
        self.retried_only = []   # views KARTE got only as retries (`_retry`): no action due


class Traffic:
    def __init__(self, campaign):
        self.campaign = campaign
        self.customer = None
        self.last_thread = None
        self.serial = 0
        # Every campaign so far: KARTE is given them all each time, so that a view whose request reaches it
        # late (held in a dropped link, then retransmitted) still meets its campaign. With only the newest,
        # a view that arrived after the next round's campaign was answered with nothing and counted lost.
        self.karte_campaigns = []

    def mark(self, ledger, channel):
        self.serial += 1
        text = f"FC{ledger.kind[0]}{self.serial:06d}{channel}Z"
        ledger.marks.append((channel, text))
        return text

    def cxone_customer(self):
        if self.customer is None:
            customers = self.campaign.sim("GET", "/control/cxone/status").get("customers") or []
            if not customers:
                raise BenchError("the CXone gateway knows no customer: the chat channel never authorized")
            self.customer = customers[-1]
        return self.customer

    def round(self, ledger, view=True):
        """A call, a new CXone thread, a GMS message and a KARTE view, each with its own mark."""
        sim = self.campaign.sim
        try:
            ledger.calls.append(sim("POST", "/control/call?user=alice")["call_id"])
        except BenchError as error:
            # The simulator could place no call: the channel's flow had just closed (a drop where the
            # registrar forgot its clients) and it had not registered again. No call rang, so none is due;
            # the full-size run of 2026-11-29 stopped here at drop 192 of 200 before this was caught.
            ledger.notes.append(f"a call the simulator could not place: {error}")
        mark = self.mark(ledger, "cx")
        answer = sim("POST", f"/control/cxone/agent?customer={self.cxone_customer()}&text={mark}")
        ledger.threads.append(answer["thread_id"])
        self.last_thread = answer["thread_id"]
        self.gms(ledger)
        if view:
            self.view(ledger)

    def gms(self, ledger):
        mark = self.mark(ledger, "gm")
        self.campaign.sim("POST", f"/control/gms/agent?text={mark}")
        for chat in self.campaign.sim("GET", "/control/gms/chats")["chats"]:
            if not chat["ended"]:
                ledger.gms_chats.add(chat["id"])

    def cxone_in_thread(self, ledger):
        if self.last_thread is None:
            return
        mark = self.mark(ledger, "cx")
        self.campaign.sim("POST", f"/control/cxone/agent?thread={self.last_thread}&text={mark}")

    def view(self, ledger):
        self.serial += 1
        identifier = f"fc{ledger.kind[0]}{self.serial:06d}"
        title = f"FC{ledger.kind[0]}{self.serial:06d}kaZ"
        self.karte_campaigns.append({
            "id": identifier, "shorten_id": identifier, "kind": "popup",
            "trigger": {"event_name": "view", "values": {"view_name": identifier}},
            "title": title, "body": "campaign " + title})
        self.campaign.sim("PUT", "/control/karte/campaigns", self.karte_campaigns)
        result = self.campaign.ctl("actions", "--channel", "actions", "view", identifier, check=False)
        if result.returncode == 0:
            ledger.campaigns.append(identifier)
            ledger.marks.append(("ka", title))
        else:
            ledger.failed_views += 1

    def tidy(self):
        """Declines the calls that ring (recorded and open), so calls do not pile up."""
        try:
            contacts = self.campaign.contacts()
        except (BenchError, ValueError):
            return
        for contact in contacts:
            if contact["kind"] == "call" and contact["outcome"] is None:
                self.campaign.ctl("decline", contact["id"], check=False)


# ---------------------------------------------------------------------------------------------- fault kinds

class Faults:
    def __init__(self, campaign, arguments):
        self.campaign = campaign
        self.arguments = arguments
        self.traffic = Traffic(campaign)
        self.token_outcomes = {}

    def recover(self, start, ledger, states=None, what=""):
        """Waits until every channel listens and no state has changed for a second (at most 30 s), then
        notes the time from `start` to the last moment every channel came to listen (0 if none left)."""
        log = self.campaign.states
        states = dict(states or log.states_at(start))
        deadline = time.time() + 30
        while True:
            current, last_change, reached, came = dict(states), start, None, {}
            with log.lock:
                entries = [entry for entry in log.entries if entry[0] >= start]
            for stamp, channel, state in entries:
                was = all(value == "listening" for value in current.values())
                current[channel] = state
                last_change = stamp
                if state == "listening":
                    came[channel] = stamp
                if not was and all(value == "listening" for value in current.values()):
                    reached = stamp
            listening = all(value == "listening" for value in current.values())
            if listening and time.time() - last_change >= 1.0:
                took = 0.0 if reached is None else max(0.0, reached - start)
                ledger.recoveries.append(took)
                # Which channel was the last to listen again, for the faults past the goal of 1 s.
                if took > 1.0:
                    each = ", ".join(f"{channel} {max(0.0, stamp - start):.1f} s"
                                     for channel, stamp in sorted(came.items(), key=lambda item: -item[1]))
                    probation = [name for name, channel in self.campaign.channels().items() if channel.get("onProbation")]
                    ledger.notes.append(f"{what}: listening again after {took:.1f} s ({each})"
                                        + (f"; on probation: {', '.join(probation)}" if probation else ""))
                self.campaign.event(f"{what}: listening again after {took:.3f} s")
                return
            if time.time() > deadline:
                ledger.unrecovered += 1
                ledger.notes.append(f"{what}: not every channel listening 30 s after the fault: {current}")
                return
            time.sleep(0.05)

    def wait_background(self, since, ledger, what):
        def background():
            with self.campaign.states.lock:
                seen = {channel for stamp, channel, state in self.campaign.states.entries
                        if stamp >= since and state == "background"}
            return {"chat", "gms"} <= seen
        try:
            wait_for("the chats in the background", background, 10, 0.02)
        except BenchError:
            ledger.notes.append(f"{what}: the chats were not both in the background 10 s after PrepareForSleep(true)")

    def suspend(self, count):
        ledger = Ledger("suspend")
        daemon = self.campaign.daemon
        for cycle in range(count):
            self.traffic.round(ledger)
            time.sleep(random.uniform(0, 0.3))
            asleep = time.time()
            self.campaign.prepare_for_sleep(True)
            self.wait_background(asleep, ledger, f"cycle {cycle}")
            os.kill(daemon.pid, signal.SIGSTOP)  # a suspended machine runs nothing
            try:
                self.traffic.cxone_in_thread(ledger)
                self.traffic.gms(ledger)
                time.sleep(self.arguments.sleep_seconds)
            finally:
                os.kill(daemon.pid, signal.SIGCONT)
            resumed = time.time()
            self.campaign.prepare_for_sleep(False)
            self.recover(resumed, ledger, what=f"cycle {cycle}")
            self.traffic.tidy()
        return ledger

    def kill(self, count):
        ledger = Ledger("kill")
        for cycle in range(count):
            failures = []
            def traffic():
                try:
                    self.traffic.round(ledger)
                except BenchError as error:
                    failures.append(str(error))
            worker = threading.Thread(target=traffic)
            worker.start()
            time.sleep(random.uniform(0, 0.5))
            self.campaign.daemon.kill()
            self.campaign.daemon.wait()
            worker.join()
            ledger.notes += [f"cycle {cycle}: traffic failed: {failure}" for failure in failures]
            started = self.campaign.start_daemon()
            self.recover(started, ledger, {channel: "starting" for channel in CHANNELS}, f"cycle {cycle}")
            self.traffic.round(ledger)
            self.traffic.tidy()
        return ledger

    def tokens(self, count):
        ledger = Ledger("tokens")
        outcomes = self.token_outcomes
        for rotation in range(count):
            refused = self.arguments.refuse_every > 0 and rotation % self.arguments.refuse_every == self.arguments.refuse_every - 1
            if refused:
                self.campaign.sim("POST", "/control/refuse-renewals?on=1")
            started = time.time()
            result = self.campaign.ctl("token", "renew", "voice", check=False)
            if refused:
                self.campaign.sim("POST", "/control/refuse-renewals?on=0")
            outcome = ("refused" if refused else "asked") + (", renewed" if result.returncode == 0 else ", failed")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if result.returncode != 0 and not refused:
                ledger.notes.append(f"rotation {rotation}: renewal failed: {result.stdout.strip()} {result.stderr.strip()}")
            self.recover(started, ledger, what=f"rotation {rotation}")
            if rotation % self.arguments.token_traffic_every == 0:
                self.traffic.round(ledger)
                self.traffic.tidy()
        return ledger

    def drops(self, count, namespace):
        ledger = Ledger("drops")
        for drop in range(count):
            impaired = namespace.impairment is not None and drop % 2 == 1
            forget = drop % 3 == 2
            if impaired:
                namespace.impair(loss=5, delay_ms=80)
            self.traffic.round(ledger)
            time.sleep(random.uniform(0, 0.3))
            namespace.link(False)
            self.campaign.event(f"drop {drop}: link down" + (", the peers forget their clients" if forget else ""))
            try:
                self.traffic.cxone_in_thread(ledger)
                self.traffic.gms(ledger)
                if forget:
                    self.campaign.sim("POST", "/control/restart?keep-bindings=0")
                    self.campaign.sim("POST", "/control/gms/fault?kind=restart")
                    self.campaign.sim("POST", "/control/cxone/drop")
                time.sleep(self.arguments.drop_seconds)
            finally:
                up = time.time()
                namespace.link(True)
                self.campaign.event(f"drop {drop}: link up")
            self.recover(up, ledger, what=f"drop {drop}")
            if impaired:
                dropped = namespace.dropped()
                if dropped is not None:
                    self.campaign.event(f"drop {drop}: nftables dropped {dropped[0]} packets leaving here and "
                                        f"{dropped[1]} leaving the peers' side")
                namespace.clear()
            self.traffic.tidy()
        return ledger


# ---------------------------------------------------------------------------------------------- the tally

def notify_entries(path):
    """The Notify calls in the notification server's log (an entry may span lines)."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    return [entry for entry in re.split(r"\n(?=\d+\.\d{3} )", text) if re.match(r"\d+\.\d{3} Notify ", entry)]


def tally(campaign, ledger, gms_before, settle):
    """The ledger's figures, once everything expected is recorded and alerted or `settle` s have passed."""
    def read():
        contacts = campaign.contacts()
        calls = {call["call_id"]: call for call in campaign.sim("GET", "/control/calls")["calls"]}
        entries = notify_entries(campaign.notify_log)
        views = [event for event in campaign.sim("GET", "/control/karte/events")
                 if event.get("event_name") == "view"]
        return contacts, calls, entries, views

    def figures(contacts, calls, entries, views):
        ids = {}
        for contact in contacts:
            key = (contact["channel"], contact["id"] if contact["channel"] != "actions" else contact["fromAddress"])
            ids[key] = ids.get(key, 0) + 1
        rung = [call for call in ledger.calls if calls.get(call, {}).get("status") in ("ringing", "completed")]
        # An action is due when KARTE took its view as a first send; a view the daemon sent again after a
        # restart (`_retry`) is answered with nothing, as the SDKs do (Plugins/KarteActions/README.md).
        answered = {event["values"].get("view_name") for event in views if not event.get("retry")}
        retried = {event["values"].get("view_name") for event in views if event.get("retry")}
        due = [campaign_id for campaign_id in ledger.campaigns if campaign_id in answered]
        ledger.retried_only = sorted(set(ledger.campaigns) & retried - answered)
        expected = [("voice", call) for call in rung] + [("chat", thread) for thread in ledger.threads] \
            + [("actions", campaign_id) for campaign_id in due]
        gms_contacts = sum(1 for contact in contacts if contact["channel"] == "gms")
        gms_expected = len(ledger.gms_chats - gms_before["chats"])
        gms_recorded = gms_contacts - gms_before["contacts"]
        recorded = sum(1 for key in expected if ids.get(key, 0) >= 1) + min(gms_recorded, gms_expected)
        duplicated = sum(1 for key in expected if ids.get(key, 0) > 1) + max(0, gms_recorded - gms_expected)
        lost = [key for key in expected if ids.get(key, 0) == 0] + [("gms", "chat")] * max(0, gms_expected - gms_recorded)
        undue = {f"FC{campaign_id[2:]}kaZ" for campaign_id in ledger.campaigns if campaign_id not in due}
        alerts = {mark: sum(1 for entry in entries if mark in entry) for _, mark in ledger.marks if mark not in undue}
        return {
            "expected": len(expected) + gms_expected, "recorded": recorded, "duplicated": duplicated, "lost": lost,
            "not_rung": len(ledger.calls) - len(rung),
            "once": sum(1 for n in alerts.values() if n == 1), "twice": sum(1 for n in alerts.values() if n >= 2),
            "never": [mark for mark, n in alerts.items() if n == 0],
            "twice_marks": [mark for mark, n in alerts.items() if n >= 2],
            # KARTE took the view as a first send and answered it, and then got it again as `_retry`: the
            # daemon sent it again because it never kept that answer (the link went down or the daemon was
            # killed while the answer was on its way). What a retry brings is never shown, as in KARTE's SDKs.
            "answer_lost": [key for key in lost if key[0] == "actions" and key[1] in retried],
            "pending_calls": sum(1 for call in ledger.calls if calls.get(call, {}).get("status") == "calling"),
        }

    deadline = time.monotonic() + settle
    while True:
        result = figures(*read())
        if (not result["lost"] and not result["never"] and not result["pending_calls"]) or time.monotonic() > deadline:
            return result
        time.sleep(0.5)


def report(rows, arguments):
    def seconds(values):
        if not values:
            return "-", "-", "-"
        return (f"{statistics.median(values) * 1000:.0f} ms", f"{percentile(values, 0.99) * 1000:.0f} ms",
                f"{max(values) * 1000:.0f} ms")
    header = ["fault", "faults", "contacts expected", "recorded", "duplicated", "lost",
              "of them KARTE answers the daemon never kept (view resent as _retry)", "calls not rung",
              "messages alerted once", "twice+", "never", "listening again: median", "p99", "max", "not within 30 s"]
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" for _ in header) + " |")
    for kind, faults, ledger, figures in rows:
        print("| " + " | ".join(str(value) for value in [
            kind, faults, figures["expected"], figures["recorded"], figures["duplicated"], len(figures["lost"]),
            len(figures["answer_lost"]), figures["not_rung"], figures["once"], figures["twice"], len(figures["never"]),
            *seconds(ledger.recoveries), ledger.unrecovered]) + " |")


def report_secrets(secrets, hits, where, modes, state_files):
    kinds = sorted(secrets.values)
    print("\nsecrets looked for: " + ", ".join(f"{kind} ({len(secrets.values[kind])})" for kind in kinds)
          + f"; {state_files} files in the state, config and runtime folders")
    header = ["output"] + kinds + ["hits"]
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" for _ in header) + " |")
    for output, row in hits.items():
        print("| " + " | ".join([output] + [str(row.get(kind, 0)) for kind in kinds] + [str(sum(row.values()))]) + " |")
    for output, places in where.items():
        print(f"  {output}: " + ", ".join(sorted({f"{path} ({kind})" for path, kind in places})))
    if modes:
        print(f"  secrets.json mode: {', '.join(modes)}")


# ---------------------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suspend", type=int, default=200, help="suspend/resume cycles (200)")
    parser.add_argument("--drops", type=int, default=200, help="network drops (200; needs root)")
    parser.add_argument("--tokens", type=int, default=1000, help="token rotations (1000)")
    parser.add_argument("--kill", type=int, default=50, help="SIGKILLs during traffic, each with a restart (50)")
    parser.add_argument("--refuse-every", type=int, default=5, help="every Nth rotation is refused (5; 0: none)")
    parser.add_argument("--token-traffic-every", type=int, default=10, help="a traffic round every N rotations (10)")
    parser.add_argument("--sleep-seconds", type=float, default=0.5, help="how long each suspend lasts (0.5)")
    parser.add_argument("--drop-seconds", type=float, default=2.0, help="how long each link is down (2)")
    parser.add_argument("--settle", type=float, default=30, help="how long a fault kind's traffic may take to arrive")
    parser.add_argument("--cxone-threads", type=int, default=0,
                        help="CXone threads the agent opens before the faults (0); a full-size run's chat has "
                             "about 400 by its drops, one per traffic round, and this reproduces that at once")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/attendantd"))
    parser.add_argument("--log-level", default="info", help="attendantd's log-level (info; debug shows each retry)")
    parser.add_argument("--keep", help="keep the logs (attendantd.log, notify-calls.log, ...) in this folder")
    parser.add_argument("--relay", nargs="+", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.relay:
        ports = [int(port) for port in arguments.relay]
        return relay(PEER_ADDRESS, ports, os.environ["FAULT_CAMPAIGN_CONTROL"], ports[0])
    random.seed(arguments.seed)
    for tool in ("dbus-daemon", "dbus-monitor", "busctl"):
        if shutil.which(tool) is None:
            raise BenchError(f"{tool} is missing (scripts/setup installs it)")

    namespace = None
    if arguments.drops:
        reason = None
        if os.geteuid() != 0:
            reason = "not root"
        elif shutil.which("ip") is None:
            reason = "ip (iproute2) is missing"
        else:
            namespace = Namespace()
            try:
                namespace.open()
            except BenchError as error:
                reason = str(error)
                namespace.close()
                namespace = None
        if reason:
            print(f"drops skipped: the network namespace could not be made ({reason})", flush=True)
            arguments.drops = 0
        elif namespace.impairment is None:
            print(f"drops without loss and latency: {namespace.netem}; and {namespace.nft}", flush=True)
        elif namespace.netem:
            print(f"every other drop's loss from nftables and latency from the relay ({namespace.netem})", flush=True)

    scratch = tempfile.mkdtemp(prefix="fault-campaign-")
    campaign = Campaign(arguments, scratch)
    if namespace is not None:
        namespace.delay_file = os.path.join(scratch, "relay-delay-ms")  # as start_simulator tells the relay
    rows, faults, scan = [], None, None
    try:
        campaign.start_desktop()
        fields = campaign.start_simulator(namespace is not None)
        campaign.write_configuration(fields)
        campaign.start_daemon()
        campaign.all_listening()
        faults = Faults(campaign, arguments)
        if arguments.cxone_threads > 0:
            print(f"opening {arguments.cxone_threads} CXone threads first…", flush=True)
            customer = faults.traffic.cxone_customer()
            for number in range(arguments.cxone_threads):
                campaign.sim("POST", f"/control/cxone/agent?customer={customer}&text=preload-{number}")
        plan = [("suspend/resume", arguments.suspend, faults.suspend), ("SIGKILL + restart", arguments.kill, faults.kill),
                ("token rotation", arguments.tokens, faults.tokens),
                ("network drop", arguments.drops, lambda count: faults.drops(count, namespace))]
        for kind, count, run in plan:
            if count <= 0:
                continue
            contacts = campaign.contacts()
            before = {"contacts": sum(1 for contact in contacts if contact["channel"] == "gms"),
                      "chats": set().union(*(row[2].gms_chats for row in rows))}
            began = time.monotonic()
            print(f"{kind}: {count}…", flush=True)
            ledger = run(count)
            figures = tally(campaign, ledger, before, arguments.settle)
            rows.append((kind, count, ledger, figures))
            print(f"{kind}: done in {time.monotonic() - began:.0f} s", flush=True)
            for label, items in (("lost", figures["lost"]), ("never alerted", figures["never"]),
                                 ("alerted twice or more", figures["twice_marks"]), ("notes", ledger.notes)):
                if items:
                    print(f"  {label} ({len(items)}): {', '.join(map(str, items[:20]))}", flush=True)
            if ledger.retried_only:
                print(f"  views KARTE got only as a retry (the first send never reached it), so no action is due: "
                      f"{', '.join(ledger.retried_only)}")
            if ledger.failed_views:
                print(f"  views attendantctl could not hand to the daemon (it said so; none tracked, none due): "
                      f"{ledger.failed_views}")
        campaign.sweep()
        campaign.collect_secrets()
    finally:
        campaign.stop_all()
        if campaign.secrets.values and rows:
            scan = campaign.scan_secrets()
        if namespace is not None:
            namespace.close()
        if arguments.keep:
            shutil.copytree(scratch, arguments.keep, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*bus", "*.sock", "run"))
        shutil.rmtree(scratch, ignore_errors=True)
    print()
    report(rows, arguments)
    if faults is not None and faults.token_outcomes:
        print("\ntoken rotations: " + ", ".join(f"{k} {v}" for k, v in sorted(faults.token_outcomes.items())))
    if scan is not None:
        report_secrets(campaign.secrets, *scan)
    print(f"\n{campaign.restarts} daemon starts; binary {arguments.binary}")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        sys.exit(main())
    except BenchError as error:
        sys.exit(f"fault_campaign.py: {error}")
    except KeyboardInterrupt:
        sys.exit("fault_campaign.py: interrupted (namespace and processes cleaned up)")
