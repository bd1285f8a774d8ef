#!/usr/bin/env python3
"""INVITE → 180 through a real proxy over UDP, TCP and TLS, attendantd beside baresip (issue 30, DESIGN.md section 8).

One kamailio (the voice tests' registrar, Tests/Fixtures/voice/kamailio.cfg, with its tls module and a
certificate from a CA this script makes with openssl) on 127.0.0.1. Registered to it, each over UDP, TCP
and TLS:

- the release attendantd, with three sip-voice channels: alice-udp, alice-tcp and alice-tls (ephemeral
  Digest credentials, the TLS channel trusting the CA through tls-ca-file; RFC 5626 outbound, so calls
  come back on each channel's own flow);
- Debian's baresip 1.0, with three accounts: bob-udp, bob-tcp and bob-tls (the fixture's headless
  configuration).

The caller is this script, on one UDP socket: it sends INVITEs (with an SDP offer, baresip_invite_latency's
invite()) to kamailio for each of the six users in turn, round after round, so every callee meets the same
machine. kamailio relays each to the user's contact over the transport it registered with. Per call the
figure runs from the moment the INVITE's sendto() returned to select() waking with the 180 Ringing at the
caller's socket: INVITE → 180 through the proxy, both proxy legs included (the caller's leg is UDP for
every callee, so the figures differ only in the callee's transport and the callee itself). The call is then
cancelled (CANCEL to kamailio, the 200 and the 487 awaited, the 487 acknowledged) before the next one.
Median, p90, p99 and max per callee after the warm-up rounds; the load average at the end.

Usage: Benchmarks/proxied_invite_latency.py [rounds] [pause-ms] [--binary PATH]
  (default 500 rounds of six calls, .build-release/release/attendantd with its plugins beside it; 20
  warm-up rounds come first; pause-ms waits between calls)
It reports figures; it asserts nothing.
"""
import argparse, os, select, shutil, socket, subprocess, sys, tempfile, time

from attendantd_invite_latency import await_cancelled, cancel, method, status
from baresip_invite_latency import header, invite, report
from voice_idle import BenchError, FIXTURES, Kamailio, free_port, launch_attendantd, start_bus, stop, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRANSPORTS = ("udp", "tcp", "tls")
WARM_UP_ROUNDS = 20
SILENCE = 5  # seconds without any answer before a call counts as lost


def registrar_uri(kamailio, transport):
    if transport == "tls":
        return f"sip:127.0.0.1:{kamailio.tls_port};transport=tls"
    return f"sip:127.0.0.1:{kamailio.port}" + (";transport=tcp" if transport == "tcp" else "")


def start_attendantd(binary, scratch, kamailio, bus_address):
    """attendantd with one sip-voice channel per transport, alice-udp, alice-tcp and alice-tls."""
    token = os.path.join(scratch, "token")
    with open(token, "w") as f:
        f.write(f"#!/bin/sh\nprintf '%s\\n' '{kamailio.secret}'\n")
    os.chmod(token, 0o700)
    channels = []
    for transport in TRANSPORTS:
        channels.append(f"""
[[channel]]
name = "phone-{transport}"
plugin = "sip-voice"
token-command = ["{token}"]
{f'tls-ca-file = "{kamailio.ca_file}"' if transport == "tls" else ""}

[channel.sip-voice]
registrar = "{registrar_uri(kamailio, transport)}"
address-of-record = "sip:alice-{transport}@127.0.0.1"
authentication = "ephemeral"
softphone-contact = "<sip:softphone@127.0.0.1:5999>"
ring-timeout = "30s"
""")
    config = os.path.join(scratch, "attendant.toml")
    with open(config, "w") as f:
        f.write(f'[daemon]\nlog-level = "info"\n' + "".join(channels))
    return launch_attendantd(binary, scratch, config, bus_address)


def start_baresip(scratch, kamailio):
    """baresip with three accounts, bob-udp, bob-tcp and bob-tls, registering to kamailio."""
    folder = os.path.join(scratch, "baresip")
    os.makedirs(folder)
    sip_port, control_port = free_port(extra_tcp=True), free_port()
    with open(os.path.join(FIXTURES, "baresip-config")) as f:
        template = f.read()
    with open(os.path.join(folder, "config"), "w") as f:
        f.write(template.replace("SIP_PORT", str(sip_port)).replace("CTRL_PORT", str(control_port)))
    with open(os.path.join(folder, "accounts"), "w") as f:
        for transport in TRANSPORTS:
            username, password = kamailio.ephemeral(f"bob-{transport}")
            aor = f"sip:bob-{transport}@" + registrar_uri(kamailio, transport).removeprefix("sip:")
            f.write(f"<{aor}>;auth_user={username};auth_pass={password};regint=600\n")
    log = open(os.path.join(scratch, "baresip.log"), "w")
    return subprocess.Popen(["baresip", "-f", folder], env=dict(os.environ, HOME=folder),
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)


def registered_over(kamailio, user):
    """The transport of user's binding at kamailio ("udp", "tcp", "tls"), or None."""
    dump = kamailio.kamcmd("ul.dump")
    start = dump.find(f"AoR: {user}\n")
    if start < 0:
        return None
    block = dump[start:dump.find("AoR: ", start + 1) if dump.find("AoR: ", start + 1) > 0 else len(dump)]
    for line in block.splitlines():
        if line.strip().startswith("Socket:"):
            return line.split(":", 1)[1].strip().split(":", 1)[0]
    return None


def call(sock, number, user, proxy):
    """One call to user through the proxy; returns INVITE → 180 in ms."""
    target = f"sip:{user}@127.0.0.1:{proxy[1]}"
    message, call = invite(number, target, sock.getsockname()[1])
    call["message"] = message.decode()

    def receive(timeout):
        if not select.select([sock], [], [], timeout)[0]:
            return None
        return sock.recv(65536).decode(errors="replace")

    sock.sendto(message, proxy)
    sent = time.monotonic_ns()
    ringing = None
    while ringing is None:
        response = receive(SILENCE)
        now = time.monotonic_ns()
        if response is None:
            raise BenchError(f"call {number} to {user}: no 180 within {SILENCE} s")
        if method(response) is not None or header(response, "Call-ID") != call["call_id"]:
            continue
        code = status(response)
        if code == 180:
            ringing = now
        elif code >= 200:
            raise BenchError(f"call {number} to {user}: ended with {code} before a 180 Ringing")
    sock.sendto(cancel(call), proxy)
    await_cancelled(receive, lambda reply: sock.sendto(reply, proxy), call, f"{number} to {user}")
    return (ringing - sent) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rounds", nargs="?", type=int, default=500)
    parser.add_argument("pause_ms", nargs="?", type=int, default=0)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/attendantd"))
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary} is not there: build it first (release build into .build-release)")

    scratch = tempfile.mkdtemp(prefix="attendant-proxied-latency-")
    kamailio = bus = daemon = baresip = None
    try:
        kamailio = Kamailio(scratch, tls=True)
        bus, address = start_bus(scratch)
        daemon = start_attendantd(args.binary, scratch, kamailio, address)
        baresip = start_baresip(scratch, kamailio)
        users = [f"{who}-{transport}" for transport in TRANSPORTS for who in ("alice", "bob")]
        for user in users:
            wait_for(f"{user} to register", lambda: kamailio.alive() and registered_over(kamailio, user) is not None)
        over = {user: registered_over(kamailio, user) for user in users}
        for user in users:
            expected = user.split("-")[1]
            if over[user] != expected:
                raise BenchError(f"{user} registered over {over[user]}, not {expected}")
        time.sleep(1)  # let every channel settle into listening after its 200

        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        proxy = ("127.0.0.1", kamailio.port)
        figures = {user: [] for user in users}
        number = 0
        for round in range(WARM_UP_ROUNDS + args.rounds):
            for user in users:
                took = call(sock, number, user, proxy)
                number += 1
                if round >= WARM_UP_ROUNDS:
                    figures[user].append(took)
                if args.pause_ms:
                    time.sleep(args.pause_ms / 1000)
        for process, name in ((daemon, "attendantd"), (baresip, "baresip")):
            if process.poll() is not None:
                raise BenchError(f"{name} exited with status {process.returncode}")
        print(f"attendantd pid {daemon.pid}: {args.binary}; baresip pid {baresip.pid}; kamailio 127.0.0.1:{kamailio.port} "
              f"(UDP, TCP) and :{kamailio.tls_port} (TLS); caller UDP")
        if args.pause_ms:
            print(f"({args.pause_ms} ms between calls)")
        for transport in TRANSPORTS:
            for who, name in (("alice", "attendantd"), ("bob", "baresip")):
                report(f"{name}: INVITE sent → 180 Ringing received, callee over {transport.upper()} via kamailio",
                       figures[f"{who}-{transport}"], warm_up=WARM_UP_ROUNDS)
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    except BenchError as error:
        print(f"proxied_invite_latency: {error}", file=sys.stderr)
        for name in ("attendantd.log", "kamailio.log", "baresip.log"):
            path = os.path.join(scratch, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    print(f"--- {name} (end):\n{f.read()[-2000:]}", file=sys.stderr)
        sys.exit(1)
    finally:
        stop(daemon)
        stop(baresip)
        if kamailio is not None:
            kamailio.stop()
        stop(bus)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
