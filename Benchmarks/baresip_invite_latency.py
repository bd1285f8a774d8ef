#!/usr/bin/env python3
"""The reference figures of attendant-invite-latency, taken from Debian's baresip (DESIGN.md section 8).

Starts baresip with the voice fixture's headless configuration (Tests/Fixtures/voice/baresip-config) and
one account that does not register, connects to its ctrl_tcp, and sends it INVITEs (with an SDP offer)
one at a time from a UDP socket on 127.0.0.1, as attendant-invite-latency does to the SIPVoice channel.
Per call, both figures run from the moment the INVITE's sendto() returned:

- to the CALL_INCOMING event arriving on the ctrl_tcp connection (baresip's incoming-call event, seen
  from outside: it includes baresip's JSON encoding and the loopback TCP hop, so it is an upper bound of
  the event inside baresip);
- to the 180 Ringing arriving at the caller's socket.

Each call is then hung up over ctrl_tcp (baresip answers the INVITE with a final error response), which
is acknowledged before the next INVITE. Median, p90, p99, max after the warm-up calls.

Usage: Benchmarks/baresip_invite_latency.py [calls] [pause-ms]
  (default 2000 calls back to back; 100 warm-up calls come first; pause-ms waits between calls)
It reports figures; it asserts nothing.
"""
import json, math, os, secrets, select, shutil, signal, socket, subprocess, sys, tempfile, time

import loopback_ports

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "voice")
WARM_UP = 100


def free_port(extra_tcp=False):
    port = loopback_ports.free_port(extra_tcp)
    if port is None:
        sys.exit("found no free UDP and TCP port on 127.0.0.1")
    return port


class Control:
    """baresip's ctrl_tcp: netstring-framed JSON."""

    def __init__(self, port):
        deadline = time.monotonic() + 20
        while True:
            try:
                self.socket = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"cannot connect to baresip's ctrl_tcp on 127.0.0.1:{port}")
                time.sleep(0.05)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        self.pending = b""

    def send(self, command, params=None):
        body = json.dumps({"command": command, "params": params, "token": secrets.token_hex(4)}).encode()
        self.socket.sendall(str(len(body)).encode() + b":" + body + b",")

    def read(self):
        """The messages that arrived (call when the socket is readable)."""
        data = self.socket.recv(65536)
        # baresip writes an event in more than one segment without TCP_NODELAY: Nagle holds the rest until
        # this side ACKs, so ACK at once instead of after the 40 ms delayed-ACK timer.
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        if not data:
            sys.exit("baresip closed its ctrl_tcp connection")
        self.pending += data
        messages = []
        while b":" in self.pending:
            length, rest = self.pending.split(b":", 1)
            if len(rest) < int(length) + 1:
                break
            messages.append(json.loads(rest[:int(length)]))
            self.pending = rest[int(length) + 1:]
        return messages


def invite(number, target, port):
    branch, tag, call_id = "z9hG4bK" + secrets.token_hex(10), secrets.token_hex(6), secrets.token_hex(12) + "@127.0.0.1"
    sdp = ("v=0\r\no=caller {n} 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
           "m=audio {rtp} RTP/AVP 0 8 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:8 PCMA/8000\r\n"
           "a=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n").format(n=number, rtp=20000 + 2 * (number % 10000))
    head = (f"INVITE {target} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:{port};branch={branch}\r\nMax-Forwards: 70\r\n"
            f"From: \"Caller {number}\" <sip:caller{number}@127.0.0.1>;tag={tag}\r\nTo: <{target}>\r\n"
            f"Call-ID: {call_id}\r\nCSeq: 1 INVITE\r\nContact: <sip:caller{number}@127.0.0.1:{port}>\r\n"
            f"Content-Type: application/sdp\r\nContent-Length: {len(sdp)}\r\n\r\n")
    return (head + sdp).encode(), {"target": target, "branch": branch, "tag": tag, "call_id": call_id, "port": port}


def header(message, name):
    for line in message.split("\r\n")[1:]:
        if line.lower().startswith(name.lower() + ":"):
            return line.split(":", 1)[1].strip()
    return None


def ack(call, response):
    return (f"ACK {call['target']} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:{call['port']};branch={call['branch']}\r\n"
            f"Max-Forwards: 70\r\nFrom: <sip:caller@127.0.0.1>;tag={call['tag']}\r\nTo: {header(response, 'To')}\r\n"
            f"Call-ID: {call['call_id']}\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n").encode()


def report(title, samples, warm_up=WARM_UP):
    ordered = sorted(samples)
    def percentile(p):
        return ordered[min(len(ordered) - 1, math.ceil(len(ordered) * p) - 1)]
    print(f"{title}, {len(ordered)} calls (after {warm_up} warm-up):")
    print(f"  median {percentile(0.5):.3f} ms   p90 {percentile(0.9):.3f} ms   p99 {percentile(0.99):.3f} ms   "
          f"max {ordered[-1]:.3f} ms")


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    pause = int(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0
    scratch = tempfile.mkdtemp(prefix="attendant-baresip-latency-")
    sip_port, control_port = free_port(extra_tcp=True), free_port()
    with open(os.path.join(FIXTURES, "baresip-config")) as f:
        config = f.read().replace("SIP_PORT", str(sip_port)).replace("CTRL_PORT", str(control_port))
    with open(os.path.join(scratch, "config"), "w") as f:
        f.write(config)
    with open(os.path.join(scratch, "accounts"), "w") as f:
        f.write("<sip:bob@127.0.0.1>;regint=0\n")
    log = open(os.path.join(scratch, "baresip.log"), "w")
    baresip = subprocess.Popen(["baresip", "-f", scratch], env=dict(os.environ, HOME=scratch),
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        control = Control(control_port)
        caller = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        caller.bind(("127.0.0.1", 0))
        port = caller.getsockname()[1]
        target = f"sip:bob@127.0.0.1:{sip_port}"
        to_event, to_ringing = [], []
        for number in range(WARM_UP + calls):
            message, call = invite(number, target, port)
            caller.sendto(message, ("127.0.0.1", sip_port))
            sent = time.monotonic_ns()
            event = ringing = final = None
            while final is None:
                readable, _, _ = select.select([caller, control.socket], [], [], 5)
                now = time.monotonic_ns()
                if not readable:
                    sys.exit(f"call {number}: baresip stayed silent for 5 s (180: {ringing is not None}, event: {event is not None})")
                if control.socket in readable:
                    for m in control.read():
                        if m.get("event") and m.get("type") == "CALL_INCOMING" and event is None:
                            event = now
                            control.send("hangup")
                if caller in readable:
                    response = caller.recv(65536).decode(errors="replace")
                    if header(response, "Call-ID") != call["call_id"]:
                        continue
                    status = int(response.split(" ", 2)[1])
                    if status == 180 and ringing is None:
                        ringing = now
                    elif status >= 300:
                        caller.sendto(ack(call, response), ("127.0.0.1", sip_port))
                        final = status
            if event is None or ringing is None:
                sys.exit(f"call {number}: ended with {final} before both the 180 and CALL_INCOMING were seen")
            # Let baresip's CALL_CLOSED go by before the next call.
            while select.select([control.socket], [], [], 0.005)[0]:
                control.read()
            if number >= WARM_UP:
                to_event.append((event - sent) / 1e6)
                to_ringing.append((ringing - sent) / 1e6)
            if pause:
                time.sleep(pause)
        if pause:
            print(f"({pause * 1000:.0f} ms between calls)")
        report("baresip: INVITE sent → CALL_INCOMING on ctrl_tcp (UDP)", to_event)
        report("baresip: INVITE sent → 180 Ringing received (UDP)", to_ringing)
    finally:
        baresip.send_signal(signal.SIGTERM)
        try:
            baresip.wait(timeout=10)
        except subprocess.TimeoutExpired:
            baresip.kill()
        log.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
