#!/usr/bin/env python3
"""attendant-invite-latency against a running attendantd, from a separate caller process (DESIGN.md section 8).

The counterpart of baresip_invite_latency.py: the same INVITEs (with the same SDP offer, built by that
script's invite()), sent the same way from a UDP socket on 127.0.0.1, but to a real attendantd process
with one sip-voice channel. Setup: a private dbus-daemon, scratch XDG folders, and attendantd with ONE
sip-voice channel (authentication = "none", register-expires 600 s) whose registrar is this script's
UDP socket. The script answers the channel's REGISTER with 200 OK (Contact with expires=600), notes the
Contact the channel registered, then sends every INVITE to that Contact from the same socket, as a
proxy relays them. Per call, both figures run from the moment the INVITE's sendto() returned
(time.monotonic_ns right after it; the arrival time is taken when select() wakes):

- to the 100 Trying arriving at the caller's socket, if one comes (the channel sends none by default: it
  rings at once, and RFC 3261 section 17.2.1 then leaves the 100 out, as baresip does);
- to the 180 Ringing arriving at the caller's socket.

Each call is then ended as a caller would: CANCEL (same Via branch, CSeq 1 CANCEL), the 200 to the CANCEL
and the 487 to the INVITE are awaited, and the 487 is acknowledged (ACK with the same branch, To with the
487's tag) before the next INVITE. Median, p90, p99, max after the warm-up calls.

Usage: Benchmarks/attendantd_invite_latency.py [calls] [pause-ms] [--binary PATH]
  (default 2000 calls back to back, .build-release/release/attendantd; 100 warm-up calls come first;
  pause-ms waits between calls; the plugins are found in the folder of the binary)
It reports figures; it asserts nothing.
"""
import argparse, os, re, select, shutil, socket, sys, tempfile, time

from baresip_invite_latency import WARM_UP, header, invite, report
from voice_idle import BenchError, launch_attendantd, start_bus, stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPIRES = 600
SILENCE = 5  # seconds without any answer before a call counts as lost


def start_attendantd(binary, scratch, registrar_port, bus_address):
    """attendantd with one sip-voice channel "phone" for sip:alice@127.0.0.1, registering to the script."""
    config = os.path.join(scratch, "attendant.toml")
    with open(config, "w") as f:
        f.write(f"""
[daemon]
log-level = "info"
state-directory = "{scratch}/state/attendant"

[[channel]]
name = "phone"
plugin = "sip-voice"
keepalive-interval = "{EXPIRES}s"

[channel.sip-voice]
registrar = "sip:127.0.0.1:{registrar_port};transport=udp"
address-of-record = "sip:alice@127.0.0.1"
authentication = "none"
register-expires = "{EXPIRES}s"
ring-timeout = "30s"
softphone-contact = "<sip:softphone@127.0.0.1:5999>"
""")
    return launch_attendantd(binary, scratch, config, bus_address)


# ---------------------------------------------------------------------------------------------- SIP

def method(message):
    """The method of a request, or None for a response."""
    first = message.split(" ", 1)[0]
    return None if first.startswith("SIP/") else first


def status(message):
    return int(message.split(" ", 2)[1])


def answer_register(sock, request, source):
    """200 OK to a REGISTER: Via, From, To (with a tag), Call-ID, CSeq echoed; Contact with expires.
    Returns the Contact URI."""
    contact = header(request, "Contact") or header(request, "m")
    if contact is None:
        raise BenchError("the channel's REGISTER has no Contact")
    vias = [line for line in request.split("\r\n")[1:] if line.lower().startswith(("via:", "v:"))]
    to = header(request, "To") or header(request, "t")
    if ";tag=" not in to:
        to += ";tag=registrar"
    response = ("SIP/2.0 200 OK\r\n" + "".join(v + "\r\n" for v in vias) +
                f"From: {header(request, 'From') or header(request, 'f')}\r\nTo: {to}\r\n"
                f"Call-ID: {header(request, 'Call-ID') or header(request, 'i')}\r\nCSeq: {header(request, 'CSeq')}\r\n"
                f"Contact: {contact};expires={EXPIRES}\r\nExpires: {EXPIRES}\r\nContent-Length: 0\r\n\r\n")
    sock.sendto(response.encode(), source)
    match = re.search(r"<([^>]+)>", contact)
    return match.group(1) if match else contact.split(";", 1)[0].strip()


def uri_address(uri):
    """(host, port) of a sip: URI such as sip:alice@127.0.0.1:40000;transport=udp."""
    rest = uri.split(":", 1)[1].split(";", 1)[0].split("?", 1)[0]
    host = rest.rsplit("@", 1)[-1]
    if host.startswith("["):
        address, _, port = host[1:].partition("]:")
        return address, int(port or 5060)
    address, _, port = host.partition(":")
    return address, int(port or 5060)


def of_invite(call, name):
    """The INVITE's own header `name` (From, To): CANCEL and ACK repeat it."""
    return header(call["message"], name)


def cancel(call):
    """CANCEL of the INVITE (RFC 3261 section 9.1: same Request-URI, Via branch, From, To, Call-ID)."""
    return (f"CANCEL {call['target']} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:{call['port']};branch={call['branch']}\r\n"
            f"Max-Forwards: 70\r\nFrom: {of_invite(call, 'From')}\r\nTo: {of_invite(call, 'To')}\r\n"
            f"Call-ID: {call['call_id']}\r\nCSeq: 1 CANCEL\r\nContent-Length: 0\r\n\r\n").encode()


def ack(call, response):
    """ACK of a non-2xx final answer (RFC 3261 section 17.1.1.3: same branch, the response's To)."""
    return (f"ACK {call['target']} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:{call['port']};branch={call['branch']}\r\n"
            f"Max-Forwards: 70\r\nFrom: {of_invite(call, 'From')}\r\nTo: {header(response, 'To')}\r\n"
            f"Call-ID: {call['call_id']}\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n").encode()


def await_cancelled(receive, reply, call, number):
    """After the CANCEL of `call`: waits for the 200 to the CANCEL and the INVITE's final answer, acknowledges
    that answer with `reply(ack)`, and checks they are 200 and 487. `receive(timeout)` gives the next SIP
    message as text, or None after `timeout` seconds of silence."""
    final = cancel_ok = None
    while final is None or cancel_ok is None:
        response = receive(SILENCE)
        if response is None:
            raise BenchError(f"call {number}: silence for {SILENCE} s after the CANCEL (200: {cancel_ok}, final: {final})")
        if method(response) is not None or header(response, "Call-ID") != call["call_id"]:
            continue
        code, cseq = status(response), (header(response, "CSeq") or "").split()
        if cseq[-1:] == ["CANCEL"]:
            cancel_ok = code
        elif code >= 200:
            reply(ack(call, response))
            final = code
    if final != 487 or cancel_ok != 200:
        raise BenchError(f"call {number}: CANCEL got {cancel_ok}, the INVITE {final} (expected 200 and 487)")


class Registrar:
    """The script's one UDP socket: registrar for the channel, caller for the INVITEs."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.registers = 0
        self.contact = self.source = None

    def receive(self, timeout):
        """(message, source, arrival ns) of the next datagram that is not a REGISTER (REGISTERs are
        answered on the way), or None after `timeout` seconds of silence."""
        while True:
            if not select.select([self.socket], [], [], timeout)[0]:
                return None
            now = time.monotonic_ns()
            data, source = self.socket.recvfrom(65536)
            message = data.decode(errors="replace")
            if method(message) == "REGISTER":
                self.registers += 1
                self.contact, self.source = answer_register(self.socket, message, source), source
                continue
            return message, source, now


# ---------------------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("calls", nargs="?", type=int, default=2000)
    parser.add_argument("pause_ms", nargs="?", type=int, default=0)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/attendantd"))
    args = parser.parse_args()
    pause = args.pause_ms / 1000
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary} is not there: build it first (release build into .build-release)")

    scratch = tempfile.mkdtemp(prefix="attendant-invite-latency-")
    bus = daemon = None
    try:
        registrar = Registrar()
        bus, address = start_bus(scratch)
        daemon = start_attendantd(args.binary, scratch, registrar.port, address)
        deadline = time.monotonic() + 30
        while registrar.contact is None:
            if daemon.poll() is not None:
                raise BenchError(f"attendantd exited with status {daemon.returncode}")
            if time.monotonic() > deadline:
                raise BenchError("attendantd did not REGISTER within 30 s")
            got = registrar.receive(0.2)
            if got is not None:
                print(f"(ignored before registration: {got[0].splitlines()[0]})", file=sys.stderr)
        target = registrar.contact
        destination = uri_address(target)
        print(f"attendantd pid {daemon.pid}: {args.binary}")
        print(f"channel registered Contact <{target}> (REGISTER from {registrar.source[0]}:{registrar.source[1]}); "
              f"registrar and caller 127.0.0.1:{registrar.port}, UDP")
        time.sleep(0.5)  # let the channel settle into listening after the 200

        to_trying, to_ringing = [], []
        for number in range(WARM_UP + args.calls):
            message, call = invite(number, target, registrar.port)
            call["message"] = message.decode()
            registrar.socket.sendto(message, destination)
            sent = time.monotonic_ns()
            trying = ringing = None
            while ringing is None:
                got = registrar.receive(SILENCE)
                if got is None:
                    raise BenchError(f"call {number}: attendantd stayed silent for {SILENCE} s "
                                     f"(100: {trying is not None}, 180: no)")
                response, source, now = got
                if method(response) is not None or header(response, "Call-ID") != call["call_id"]:
                    continue
                code = status(response)
                if code == 100 and trying is None:
                    trying = now
                elif code == 180:
                    ringing = now
                elif code >= 200:
                    raise BenchError(f"call {number}: ended with {code} before a 180 Ringing")
            registrar.socket.sendto(cancel(call), destination)
            await_cancelled(lambda timeout: (registrar.receive(timeout) or [None])[0],
                            lambda reply: registrar.socket.sendto(reply, destination), call, number)
            if number >= WARM_UP:
                if trying is not None:
                    to_trying.append((trying - sent) / 1e6)
                to_ringing.append((ringing - sent) / 1e6)
            if pause:
                time.sleep(pause)
        if daemon.poll() is not None:
            raise BenchError(f"attendantd exited with status {daemon.returncode}")
        if pause:
            print(f"({pause * 1000:.0f} ms between calls)")
        if to_trying:
            report("attendantd: INVITE sent → 100 Trying received (UDP)", to_trying)
        else:
            print("attendantd sent no 100 Trying")
        report("attendantd: INVITE sent → 180 Ringing received (UDP)", to_ringing)
        print(f"REGISTERs answered: {registrar.registers}")
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    except BenchError as error:
        print(f"attendantd_invite_latency: {error}", file=sys.stderr)
        path = os.path.join(scratch, "attendantd.log")
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                print(f"--- attendantd.log (end):\n{f.read()[-3000:]}", file=sys.stderr)
        sys.exit(1)
    finally:
        stop(daemon)
        stop(bus)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
