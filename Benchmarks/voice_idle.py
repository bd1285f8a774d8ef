#!/usr/bin/env python3
"""Idle benchmark for a registered SIPVoice channel (DESIGN.md section 8: wake-ups, CPU and memory).

Starts Debian's kamailio on loopback with the test registrar's configuration
(Tests/Fixtures/voice/kamailio.cfg: Digest with ephemeral credentials), a private session bus, and the
release attendantd with ONE sip-voice channel (authentication = "ephemeral", its token command printing
the shared secret). Once the channel is registered (kamailio's location table shows its contact) and a
few seconds have settled, it samples the daemon, lets it idle for the period, and samples again:

- context switches (voluntary + involuntary) summed over all threads, and per thread (by name, from
  /proc/PID/task/TID/comm), so one sees which thread wakes; threads are sampled every second, so one that
  ends in the period counts up to its last sample (at most a second's wake-ups of it are missed);
- CPU time: utime + stime from /proc/PID/stat (clock ticks, 10 ms resolution) and the sum of the threads'
  on-CPU nanoseconds from /proc/PID/task/TID/schedstat (fine-grained);
- memory at the end: VmRSS and private memory (Private_Clean + Private_Dirty of smaps_rollup);
- REGISTERs kamailio received from the client in the period (its "attendant-trace:" lines).

With --baresip (default when baresip is installed) Debian's baresip registers to the same kamailio with
the same registration interval and is sampled the same way in the same period: the side-by-side figure.

With --windows N the period is taken N times in a row, each reported on its own: with --expires 60
--idle 60 each window holds one registration refresh of each client, so the first refresh of the
process (which pays for code run the first time) and the later ones are told apart.

Usage: Benchmarks/voice_idle.py [--idle SECONDS] [--windows N] [--expires SECONDS] [--keepalive SECONDS]
                                [--transport udp|tcp]
                                [--binary PATH] [--no-baresip]
  (defaults: 60 s, 1 window, 600 s, udp, .build-release/release/attendantd; DESIGN's figure is 600 s: --idle 600)
It reports figures; it asserts nothing.
"""
import argparse, base64, hashlib, hmac, os, re, secrets, shutil, signal, socket, subprocess, sys, tempfile, time

import loopback_ports

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "voice")
EXPIRES = 600


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------- helpers

def free_port(extra_tcp=False):
    """A port free on 127.0.0.1 for UDP and TCP alike (and TCP on the next one with extra_tcp)."""
    port = loopback_ports.free_port(extra_tcp)
    if port is None:
        raise BenchError("found no free UDP and TCP port on 127.0.0.1")
    return port


def wait_for(what, condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise BenchError(f"timed out after {timeout:.0f} s waiting for {what}")


def running(name, process):
    if process.poll() is not None:
        raise BenchError(f"{name} exited with status {process.returncode}")
    return True


def stop(process, timeout=10):
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# ---------------------------------------------------------------------------------------------- peers

def make_certificates(folder):
    """A CA and a server certificate for IP 127.0.0.1 it issued (P-256, a day), as the voice tests make them
    (Tests/TestSupport/TestCertificateAuthority.swift). Returns (CA file, certificate file, key file)."""
    os.makedirs(folder)
    ca, ca_key = os.path.join(folder, "ca.pem"), os.path.join(folder, "ca-key.pem")
    certificate, key, request = (os.path.join(folder, name) for name in ("registrar.pem", "registrar-key.pem", "registrar.csr"))
    extensions = os.path.join(folder, "registrar.ext")
    with open(extensions, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for arguments in (
        ["req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "1", "-subj", "/CN=Attendant Benchmark CA",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        ["req", "-new", *ec, "-keyout", key, "-out", request, "-subj", "/CN=registrar"],
        ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", certificate,
         "-days", "1", "-extfile", extensions],
    ):
        result = subprocess.run(["openssl", *arguments], capture_output=True, text=True)
        if result.returncode != 0:
            raise BenchError(f"openssl {' '.join(arguments[:2])} failed: {result.stderr}")
    return ca, certificate, key


class Kamailio:
    """The fixture's registrar on 127.0.0.1:port, logging to a file."""

    def __init__(self, scratch, tls=False):
        """With tls, kamailio also listens for TLS on self.tls_port, with a certificate for 127.0.0.1 from a
        CA made here with openssl (self.ca_file, what a client's tls-ca-file names)."""
        self.secret = secrets.token_hex(16)
        self.run = os.path.join(scratch, "kamailio")
        os.makedirs(self.run)
        self.control = os.path.join(self.run, "ctl")
        self.log_path = os.path.join(scratch, "kamailio.log")
        self.port = free_port()
        self.tls_port = self.ca_file = None
        listeners = ["-l", f"udp:127.0.0.1:{self.port}", "-l", f"tcp:127.0.0.1:{self.port}"]
        if tls:
            self.tls_port = free_port()
            self.ca_file, certificate, key = make_certificates(os.path.join(scratch, "ca"))
            listeners += ["-l", f"tls:127.0.0.1:{self.tls_port}", "-A", "WITH_TLS",
                          "-A", f'TLS_CERTIFICATE="{certificate}"', "-A", f'TLS_KEY="{key}"']
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            ["kamailio", "-f", os.path.join(FIXTURES, "kamailio.cfg"), "-DD", "-E", "-Y", self.run, "-w", self.run,
             "-m", "32", "-M", "4", *listeners,
             "-A", f'SECRET="{self.secret}"', "-A", f'CTL="unix:{self.control}"',
             "-A", "MIN_EXPIRES=60", "-A", "MAX_EXPIRES=3600", "-A", "FLOW_TIMER=0"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        wait_for("kamailio to answer on its ctl socket",
                 lambda: self.alive() and os.path.exists(self.control) and "kamailio" in self.kamcmd("core.version"))

    def alive(self):
        if self.process.poll() is not None:
            raise BenchError(f"kamailio exited ({self.process.returncode}):\n{self.log_text()[-3000:]}")
        return True

    def kamcmd(self, *arguments):
        result = subprocess.run(["kamcmd", "-s", "unix:" + self.control, *arguments], capture_output=True, text=True, timeout=10)
        return result.stdout if result.returncode == 0 else ""

    def registered(self, user):
        return f"AoR: {user}" in self.kamcmd("ul.dump")

    def log_text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def ephemeral(self, user, lifetime=86400):
        username = f"{int(time.time()) + lifetime}:{user}"
        password = base64.b64encode(hmac.new(self.secret.encode(), username.encode(), hashlib.sha1).digest()).decode()
        return username, password

    def stop(self):
        stop(self.process)
        self.log.close()


def start_bus(scratch):
    """A private dbus-daemon; returns (process, address)."""
    process = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address",
         f"--address=unix:path={scratch}/bus"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = process.stdout.readline().strip()
    if not address:
        raise BenchError("dbus-daemon did not print its address")
    return process, address


def start_attendantd(binary, scratch, kamailio, bus_address, transport, expires, keepalive=None):
    """attendantd with one sip-voice channel "phone" for sip:alice@127.0.0.1."""
    token = os.path.join(scratch, "token")
    with open(token, "w") as f:
        f.write(f"#!/bin/sh\nprintf '%s\\n' '{kamailio.secret}'\n")
    os.chmod(token, 0o700)
    registrar = f"sip:127.0.0.1:{kamailio.port}" + (";transport=tcp" if transport == "tcp" else "")
    config = os.path.join(scratch, "attendant.toml")
    with open(config, "w") as f:
        f.write(f"""
[[channel]]
name = "phone"
plugin = "sip-voice"
token-command = ["{token}"]
{f'keepalive-interval = "{keepalive}s"' if keepalive else ""}

[channel.sip-voice]
registrar = "{registrar}"
address-of-record = "sip:alice@127.0.0.1"
authentication = "ephemeral"
softphone-contact = "<sip:softphone@127.0.0.1:5999>"
register-expires = "{expires}s"
""")
    return launch_attendantd(binary, scratch, config, bus_address)


def launch_attendantd(binary, scratch, config, bus_address):
    """attendantd with the configuration file `config`, on the session bus at `bus_address`, with scratch
    XDG folders, no system bus and nothing of systemd's; its log goes to scratch/attendantd.log."""
    env = dict(os.environ, XDG_RUNTIME_DIR=scratch + "/run", XDG_STATE_HOME=scratch + "/state",
               XDG_CONFIG_HOME=scratch + "/config", DBUS_SESSION_BUS_ADDRESS=bus_address,
               DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={scratch}/no-system-bus")
    for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"):
        env.pop(key, None)
    for folder in ("run", "state", "config"):
        os.makedirs(os.path.join(scratch, folder), mode=0o700, exist_ok=True)
    log = open(os.path.join(scratch, "attendantd.log"), "w")
    return subprocess.Popen([binary, "--config", config], env=env, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT)


def start_baresip(scratch, kamailio, transport, expires):
    """baresip registering sip:bob@127.0.0.1 with the fixture's headless configuration."""
    folder = os.path.join(scratch, "baresip")
    os.makedirs(folder)
    sip_port, control_port = free_port(extra_tcp=True), free_port()
    with open(os.path.join(FIXTURES, "baresip-config")) as f:
        template = f.read()
    with open(os.path.join(folder, "config"), "w") as f:
        f.write(template.replace("SIP_PORT", str(sip_port)).replace("CTRL_PORT", str(control_port)))
    username, password = kamailio.ephemeral("bob")
    uri = f"sip:bob@127.0.0.1:{kamailio.port}" + (";transport=tcp" if transport == "tcp" else "")
    with open(os.path.join(folder, "accounts"), "w") as f:
        f.write(f"<{uri}>;auth_user={username};auth_pass={password};regint={expires}\n")
    log = open(os.path.join(scratch, "baresip.log"), "w")
    process = subprocess.Popen(["baresip", "-f", folder], env=dict(os.environ, HOME=folder),
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    return process, sip_port


# ---------------------------------------------------------------------------------------------- sampling

def threads(pid):
    """{tid: (name, context switches, on-CPU ns)} for every thread of pid."""
    result = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        base = f"/proc/{pid}/task/{tid}"
        try:
            with open(base + "/comm") as f:
                name = f.read().strip()
            switches = 0
            with open(base + "/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        switches += int(line.split()[1])
            with open(base + "/schedstat") as f:
                on_cpu = int(f.read().split()[0])
        except FileNotFoundError:
            continue
        result[int(tid)] = (name, switches, on_cpu)
    return result


def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def cpu_ticks(pid):
    fields = stat_fields(pid)
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def page_faults(pid):
    fields = stat_fields(pid)
    return int(fields[7]), int(fields[9])  # minflt, majflt (fields 10 and 12 of stat)


def memory(pid):
    rss = private = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                private += int(line.split()[1])
    return rss / 1024, private / 1024


def sample(pid):
    return {"threads": threads(pid), "ticks": cpu_ticks(pid), "faults": page_faults(pid)}


def idle(clients, seconds, interval=1.0):
    """Samples every client at the start, every `interval` during `seconds`, and at the end. A thread
    keeps the counts of the last sample it was seen in, so threads that end in the period (a thread pool's
    idle workers) count up to then instead of vanishing from the sum."""
    first = {name: sample(process.pid) for name, process, _ in clients}
    last = {name: {"threads": dict(first[name]["threads"]), "ticks": 0, "faults": (0, 0)} for name in first}
    deadline = time.monotonic() + seconds
    while True:
        for name, process, _ in clients:
            now = sample(process.pid)
            last[name]["threads"].update(now["threads"])
            last[name]["ticks"] = now["ticks"]
            last[name]["faults"] = now["faults"]
            last[name]["alive"] = set(now["threads"])
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return first, last
        time.sleep(min(interval, remaining))


def difference(before, after, pid):
    """The figures of one process over the period."""
    tick = os.sysconf("SC_CLK_TCK")
    per_thread = []
    for tid, (name, switches, on_cpu) in after["threads"].items():
        _, old_switches, old_cpu = before["threads"].get(tid, (name, 0, 0))
        per_thread.append((tid, name, switches - old_switches, (on_cpu - old_cpu) / 1e6, tid not in before["threads"]))
    gone = [tid for tid in after["threads"] if tid not in after["alive"]]
    rss, private = memory(pid)
    return {
        "switches": sum(t[2] for t in per_thread),
        "cpu_ms_ticks": (after["ticks"] - before["ticks"]) * 1000 / tick,
        "cpu_ms_sched": sum(t[3] for t in per_thread),
        "minflt": after["faults"][0] - before["faults"][0], "majflt": after["faults"][1] - before["faults"][1],
        "rss": rss, "private": private, "threads": sorted(per_thread, key=lambda t: -t[2]), "gone": gone,
    }


# ---------------------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--idle", type=float, default=60, help="idle period in seconds (DESIGN: 600)")
    parser.add_argument("--settle", type=float, default=5, help="seconds after registration before sampling")
    parser.add_argument("--windows", type=int, default=1, help="periods taken in a row, each reported")
    parser.add_argument("--expires", type=int, default=EXPIRES, help="registration interval of both clients")
    parser.add_argument("--keepalive", type=int, help="the channel's keepalive-interval (default: the daemon's, 600 s)")
    parser.add_argument("--transport", choices=["udp", "tcp"], default="udp")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/attendantd"))
    parser.add_argument("--no-baresip", dest="baresip", action="store_false")
    args = parser.parse_args()
    if args.baresip and not shutil.which("baresip"):
        args.baresip = False
    if not os.access(args.binary, os.X_OK):
        raise BenchError(f"{args.binary} is not there: build it first with `swift build -c release --scratch-path .build-release`")

    scratch = tempfile.mkdtemp(prefix="attendant-voice-idle-")
    kamailio = bus = daemon = baresip = None
    try:
        kamailio = Kamailio(scratch)
        bus, address = start_bus(scratch)
        daemon = start_attendantd(args.binary, scratch, kamailio, address, args.transport, args.expires, args.keepalive)
        clients = [("attendantd", daemon, "alice")]
        if args.baresip:
            baresip, _ = start_baresip(scratch, kamailio, args.transport, args.expires)
            clients.append(("baresip", baresip, "bob"))
        for name, process, user in clients:
            wait_for(f"{name} to register {user}", lambda: running(name, process) and kamailio.alive() and kamailio.registered(user))
        time.sleep(args.settle)
        ports = {name: client_ports(kamailio, user) for name, _, user in clients}

        for window in range(1, args.windows + 1):
            log_before = len(kamailio.log_text())
            before, after = idle(clients, args.idle)
            registers = registers_per_client(kamailio.log_text()[log_before:], ports)
            if args.windows > 1:
                print(f"\n=== window {window} of {args.windows}")
            report(args, clients, before, after, kamailio, registers)
            sys.stdout.flush()
    except BenchError as error:
        print(f"voice_idle: {error}", file=sys.stderr)
        for name in ("attendantd.log", "baresip.log"):
            path = os.path.join(scratch, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    print(f"--- {name} (end):\n{f.read()[-2000:]}", file=sys.stderr)
        sys.exit(1)
    finally:
        for process in (baresip, daemon):
            stop(process)
        if kamailio:
            kamailio.stop()
        stop(bus)
        shutil.rmtree(scratch, ignore_errors=True)


def client_ports(kamailio, user):
    """The ports `user`'s binding names in kamailio's location table (its Contact and Received address):
    the socket or connection its REGISTERs come from."""
    dump = kamailio.kamcmd("ul.dump")
    block = dump.split(f"AoR: {user}", 1)[1].split("AoR:", 1)[0] if f"AoR: {user}" in dump else ""
    return set(re.findall(r"127\.0\.0\.1:(\d+)", block)) - {str(kamailio.port)}


def registers_per_client(period_log, ports):
    """REGISTERs in kamailio's log of the period, per client (by the source port of the trace line)."""
    counts = {name: 0 for name in ports}
    for match in re.finditer(r"attendant-trace: request REGISTER \S+ from \w+:127\.0\.0\.1:(\d+)", period_log):
        for name, client in ports.items():
            if match.group(1) in client:
                counts[name] += 1
    return counts


def report(args, clients, before, after, kamailio, registers):
    print(f"idle {args.idle:.0f} s after registration (+{args.settle:.0f} s settle), {args.transport.upper()}, "
          f"register-expires {args.expires} s, kamailio 127.0.0.1:{kamailio.port}")
    figures = {name: difference(before[name], after[name], process.pid) for name, process, _ in clients}
    print()
    print(f"{'process':<12}{'ctx switches':>14}{'CPU ms (ticks)':>16}{'CPU ms (sched)':>16}{'REGISTERs':>11}"
          f"{'RSS MiB':>10}{'private MiB':>13}{'page faults':>13}")
    for name, figure in figures.items():
        print(f"{name:<12}{figure['switches']:>14}{figure['cpu_ms_ticks']:>16.1f}{figure['cpu_ms_sched']:>16.2f}"
              f"{registers[name]:>11}{figure['rss']:>10.1f}{figure['private']:>13.1f}"
              f"{str(figure['minflt']) + '/' + str(figure['majflt']):>13}")
    for name, figure in figures.items():
        print(f"\n{name}: wake-ups (context switches) per thread in the period")
        for tid, thread, switches, cpu_ms, new in figure["threads"]:
            print(f"  {tid:>8} {thread:<20}{switches:>8}  {cpu_ms:8.2f} ms CPU" + ("  (new in the period)" if new else ""))
        if figure["gone"]:
            print(f"  threads that ended in the period (counted up to their last sample): {figure['gone']}")


if __name__ == "__main__":
    main()
