"""Free ports on 127.0.0.1 for the voice benchmarks' peers (kamailio, baresip)."""

import socket


def free_port(extra_tcp=False):
    """A port free on 127.0.0.1 for UDP and TCP alike (and TCP on the next one with extra_tcp), or None."""
    for _ in range(200):
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        port = udp.getsockname()[1]
        sockets = [udp]
        try:
            for p in [port] + ([port + 1] if extra_tcp else []):
                tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sockets.append(tcp)
                tcp.bind(("127.0.0.1", p))
            return port
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    return None
