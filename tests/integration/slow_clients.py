#!/usr/bin/python3
"""slow_clients.py - slow HTTP clients against the dashboard (test_web_hostile.sh, issue 23).

Usage: slow_clients.py PORT ADDRS PER_ADDR CROWD_ADDR CROWD SECONDS

Opens PER_ADDR connections from each of ADDRS loopback source addresses (comma
separated, e.g. 127.0.0.2,...) and CROWD more from CROWD_ADDR, each sending a request
line and then one header line every 2 s, never the end of the headers, for at most
SECONDS. Meanwhile, from 127.0.0.1, a normal GET /api/runs every second. Prints one
JSON object: the normal requests' statuses and times, how many slow connections the
server refused at once (closed within 1 s) per source, and how long the others lived
until the server closed them (or null when still open at the end).
Everything is closed at exit; nothing runs past SECONDS + 5.
"""
import json
import socket
import sys
import time


def normal_get(port):
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                  b"Connection: close\r\n\r\n" % port)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        data = b""
    finally:
        s.close()
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, time.monotonic() - t0


def main():
    port = int(sys.argv[1])
    addrs = [a for a in sys.argv[2].split(",") if a]
    per_addr, crowd_addr, crowd = int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    seconds = float(sys.argv[6])
    conns = []  # [socket or None, source, opened, closed_at]
    start = time.monotonic()
    for src in [a for a in addrs for _ in range(per_addr)] + [crowd_addr] * crowd:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((src, 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
            s.setblocking(False)
            conns.append([s, src, time.monotonic(), None])
        except OSError:
            s.close()
            conns.append([None, src, time.monotonic(), time.monotonic()])
    normal = []
    next_trickle = time.monotonic() + 2
    next_normal = time.monotonic() + 1
    while time.monotonic() - start < seconds:
        now = time.monotonic()
        for c in conns:
            if c[0] is None:
                continue
            try:
                if not c[0].recv(4096):
                    raise ConnectionResetError
            except BlockingIOError:
                pass
            except OSError:
                c[0].close()
                c[0], c[3] = None, now
        if now >= next_trickle:
            next_trickle = now + 2
            for c in conns:
                if c[0] is None:
                    continue
                try:
                    c[0].send(b"X-Slow: 1\r\n")
                except BlockingIOError:
                    pass
                except OSError:
                    c[0].close()
                    c[0], c[3] = None, now
        if now >= next_normal and len(normal) < 5:
            next_normal = now + 1
            normal.append(normal_get(port))
        if all(c[0] is None for c in conns) and len(normal) >= 5:
            break
        time.sleep(0.05)
    refused, lived = {}, []
    for c in conns:
        if c[3] is not None and c[3] - c[2] < 1.0:
            refused[c[1]] = refused.get(c[1], 0) + 1
        else:
            lived.append(None if c[3] is None else round(c[3] - c[2], 2))
        if c[0] is not None:
            c[0].close()
    print(json.dumps({
        "normal_status": [n[0] for n in normal],
        "normal_s": [round(n[1], 3) for n in normal],
        "refused": refused,
        "lived_s": lived,
    }))


if __name__ == "__main__":
    main()
