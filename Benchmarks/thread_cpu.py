#!/usr/bin/env python3
"""Samples the processor time of every thread of the named processes, every 0.5 s, from /proc, and writes
a line per thread that ran: `HH:MM:SS.d PID PROCESS TID THREAD MS`. It found which of attendantd's threads
was busy while voice waited for the CXone chat in the fault campaign's drops (Benchmarks/README.md, "What
voice waited on"): run it beside fault_campaign.py, then sum by time or thread with awk.

    python3 Benchmarks/thread_cpu.py OUT attendantd attendant-sim &

The campaign's relay (python3 ... --relay) is sampled too, as "relay". Stop it with a signal.
"""
import os
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    names = set(sys.argv[2:])
    ticks = os.sysconf("SC_CLK_TCK")
    previous = {}
    with open(sys.argv[1], "w") as out:
        while True:
            now = time.time()
            stamp = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 10)}"
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        process = f.read().strip()
                    if process not in names:
                        with open(f"/proc/{pid}/cmdline", "rb") as f:
                            if not (process.startswith("python") and b"--relay" in f.read()):
                                continue
                        process = "relay"
                    for tid in os.listdir(f"/proc/{pid}/task"):
                        with open(f"/proc/{pid}/task/{tid}/stat") as f:
                            stat = f.read()
                        thread = stat[stat.index("(") + 1:stat.rindex(")")].replace(" ", "_")
                        fields = stat[stat.rindex(")") + 2:].split()
                        used = (int(fields[11]) + int(fields[12])) * 1000 // ticks  # utime + stime, ms
                        ran = used - previous.get((pid, tid), used)
                        previous[(pid, tid)] = used
                        if ran > 0:
                            out.write(f"{stamp} {pid} {process} {tid} {thread} {ran}\n")
                except (OSError, ValueError):
                    pass  # the process or thread ended meanwhile
            out.flush()
            time.sleep(0.5)


if __name__ == "__main__":
    main()
