#!/usr/bin/env python3
"""Start-up and idle-memory benchmark for attendantd (DESIGN.md section 8).

Measures, over several runs of the release build with two Loopback channels:
- the time from process start (just before exec) to READY=1 on a notify socket this script owns;
- resident memory (VmRSS) and private memory (Private_Clean + Private_Dirty) one second after READY=1.

Usage: Benchmarks/startup.py [--runs N] [--binary PATH] [--keep-state]
  (default: .build-release/release/attendantd; each run starts with a new state database, as a first
  start does; --keep-state keeps one across the runs, as a restart finds it, after one run not counted)
It reports figures; it asserts nothing.
"""
import argparse, os, signal, socket, statistics, subprocess, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONFIG = """
[[channel]]
name = "one"
plugin = "loopback"

[[channel]]
name = "two"
plugin = "loopback"
"""

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

def run_once(binary, state=None):
    with tempfile.TemporaryDirectory() as scratch:
        config = os.path.join(scratch, "attendant.toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        notify_path = os.path.join(scratch, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify_path)
        sock.settimeout(30)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path, XDG_RUNTIME_DIR=scratch + "/run",
                   XDG_STATE_HOME=(state or scratch) + "/state")
        env.pop("WATCHDOG_USEC", None)
        start = time.monotonic()
        proc = subprocess.Popen([binary, "--config", config], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                message = sock.recv(4096).decode()
                if "READY=1" in message:
                    ready = time.monotonic() - start
                    break
            time.sleep(1)
            rss, private = memory(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
            sock.close()
        return ready * 1000, rss, private

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--keep-state", action="store_true", help="one state database for every run (a restart), not a new one each time")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/attendantd"))
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"{args.binary} is not there: build it first with `swift build -c release --scratch-path .build-release`")
    with tempfile.TemporaryDirectory() as kept:
        state = kept if args.keep_state else None
        if state:
            run_once(args.binary, state)
        results = [run_once(args.binary, state) for _ in range(args.runs)]
    ready = sorted(r[0] for r in results)
    print(f"runs: {args.runs}, two Loopback channels, {'state database kept across runs' if args.keep_state else 'a new state database each run'}, {args.binary}")
    print(f"start -> READY=1: median {statistics.median(ready):.1f} ms, min {ready[0]:.1f} ms, max {ready[-1]:.1f} ms")
    print(f"resident memory after start: median {statistics.median(r[1] for r in results):.1f} MiB RSS, "
          f"{statistics.median(r[2] for r in results):.1f} MiB private")

if __name__ == "__main__":
    main()
