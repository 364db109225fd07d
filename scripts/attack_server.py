#!/usr/bin/env python3
"""attack_server.py: lesson 11's poem_server against hostile clients, measured.

Starts build/release/lessons/11_server/poem_server on a free port of this machine
(loopback only) and runs each attack of docs/robustness.md's table in turn. The
attackers connect from 127.0.0.2 to 127.0.0.41 (all of 127.0.0.0/8 is this
machine), so that the limit per address is told from the limit of all; during
each attack a normal request (a poem of 8 characters, not streamed) is sent from
127.0.0.1 every 0.25 s. The table gives the slowest of them, how many failed, the
server's resident memory at its highest against its idle size, and what the
attackers got. The floods run --flood seconds each; one more server, started with
--max-connections 50, takes the last flood. Every attack is bounded and ends by
itself; the whole run takes about five minutes.

  python3 scripts/attack_server.py [--server PATH] [--connections 500] [--flood 20] [--after 60]
"""
import argparse
import json
import os
import re
import resource
import select
import socket
import struct
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


ATTACKERS = 40  # addresses 127.0.0.2 to 127.0.0.41


def attacker(i):
    """The address attacker connection i comes from."""
    return f"127.0.0.{2 + i % ATTACKERS}"


def connect(port, i=None):
    """A connection from attacker address i, or from 127.0.0.1 (a normal client)
    without one (blocking, with a 30 s limit)."""
    source = "127.0.0.1" if i is None else attacker(i)
    return socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))


def connect_now(port, i):
    """A connection from attacker address i that does not wait to be taken."""
    s = socket.socket()
    s.setblocking(False)
    s.bind((attacker(i), 0))
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return s


def tcp_state(s):
    """The kernel's TCP state of s (8: CLOSE_WAIT, the server has closed it)."""
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]


def read_status(s):
    """The status of the first answer on s: '' if the server closed it without one,
    'open' if it neither answered nor closed within 30 s."""
    s.settimeout(30)
    data = b""
    try:
        while b"\r\n" not in data:
            got = s.recv(4096)
            if not got:
                break
            data += got
    except socket.timeout:
        return "open"
    except OSError:
        pass
    return data.split(b" ")[1].decode() if data.startswith(b"HTTP/1.1 ") else ""


def read_to_the_end(s):
    """Every byte s gives until the server closes it; then closes s."""
    data = b""
    while True:
        got = s.recv(65536)
        if not got:
            break
        data += got
    s.close()
    return data


def exchange(port, request):
    """Sends a whole request on a new connection; returns every byte of the answer."""
    s = connect(port)
    s.sendall(request)
    return read_to_the_end(s)


def post(port, body):
    """POST /v1/completions of body; returns (status, seconds)."""
    payload = json.dumps(body).encode()
    start = time.monotonic()
    data = exchange(port, b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    status = data.split(b" ")[1].decode() if data.startswith(b"HTTP/1.1 ") else ""
    return status, time.monotonic() - start


def flood(port, head, pieces, half_close=False, tail=b""):
    """Sends `head`, then `pieces` until they run out or the server stops taking them,
    then `tail` (and with half_close says it is done sending); returns the answer's
    status and how many pieces went out."""
    s = connect(port, 0)
    s.sendall(head)
    sent = 0
    try:
        for piece in pieces:
            s.sendall(piece)
            sent += 1
        s.sendall(tail)
        if half_close:
            s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    status = read_status(s)
    s.close()
    return status, sent


def drip(conns, piece, steps):
    """Sends piece(i) on every connection each 0.5 s, `steps` times (a connection the
    server closed is skipped); then closes them and returns the status each was answered."""
    for i in range(steps):
        for s in conns:
            try:
                s.send(piece(i))
            except OSError:
                pass
        time.sleep(0.5)
    statuses = [read_status(s) for s in conns]
    for s in conns:
        s.close()
    return statuses


class Probe:
    """A normal request every 0.25 s while an attack runs; the slowest answer."""

    def __init__(self, port, pid):
        self.port, self.pid = port, pid
        self.slowest, self.failed, self.sent, self.peak = 0.0, 0, 0, rss_mb(pid)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            self.sent += 1
            try:
                status, seconds = post(self.port, {"prompt": "春风", "max_tokens": 8})
                self.failed += status != "200"
                self.slowest = max(self.slowest, seconds)
            except OSError:
                self.failed += 1
            self.peak = max(self.peak, rss_mb(self.pid))
            self.stop.wait(0.25)

    def end(self):
        self.stop.set()
        self.thread.join()
        return self.slowest, self.failed, self.peak


def attack_slow_heads(port, n):
    conns = [connect(port, i) for i in range(n)]
    head = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n"
    # a byte each 0.5 s from each, for 14 s at most: the server ends them first
    statuses = drip(conns, lambda i: head[i:i + 1], min(len(head), 28))
    return f"{statuses.count('')} of {n} closed at the deadline, without an answer"


def attack_idle(port, n):
    conns = [connect(port, i) for i in range(n)]
    time.sleep(6)
    closed = 0
    for s in conns:
        s.settimeout(10)
        try:
            closed += s.recv(1) == b""
        except OSError:
            closed += 1
        s.close()
    return f"{closed} of {n} closed by the server at its deadline"


def attack_chunked(port, count=4, megabytes=32):
    answers = []

    def one():
        head = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
        status, chunks = flood(port, head, (chunk for _ in range(megabytes * 16)), tail=b"0\r\n\r\n")
        answers.append((status, chunks * len(chunk)))

    threads = [threading.Thread(target=one) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    most = max(sent for _, sent in answers) / 2**20
    return (f"{sum(a == '413' for a, _ in answers)} of {count} answered 413 at their end "
            f"({most:.1f} MB sent each; past 1 MB read and dropped)")


def attack_headers(port, count=200000):
    headers = (b"X-%d: %s\r\n" % (i, b"y" * 90) for i in range(count))
    status, sent = flood(port, b"GET /v1/models HTTP/1.1\r\nHost: x\r\n", headers)
    return f"{status} after {sent} headers sent"


def attack_lengthless(port, megabytes=64):
    block = b"x" * 2**20
    status, _ = flood(port, b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n\r\n",
                      (block for _ in range(megabytes)), half_close=True)
    return f"{status or 'no answer'}"


def attack_drip_body(port, n=50):
    conns = [connect(port, i) for i in range(n)]
    for s in conns:
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
    statuses = drip(conns, lambda i: b" ", 24)  # a byte each 0.5 s from each, for 12 s at most
    return f"{statuses.count('')} of {n} closed at the deadline, without an answer"


def attack_leaving(port):
    """Four clients asking 8 poems each that reset before their answer; the poems should stop."""
    def cut():
        return metric(port, "tang_poems_cut_total", missing=0.0)

    before = cut()
    for i in range(4):
        payload = json.dumps({"prompt": "春风", "max_tokens": 120, "n": 8, "seed": i}).encode()
        s = connect(port, i)
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
                  + str(len(payload)).encode() + b"\r\n\r\n" + payload)
        time.sleep(0.01)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()  # a reset
    time.sleep(1)
    return f"{cut() - before:.0f} of 32 poems stopped early (the rest had ended)"


def metric(port, name, missing=float("nan")):
    """The value of one line of /metrics (`missing` when it has none)."""
    data = exchange(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    for line in data.decode(errors="replace").splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return missing


def attack_streams(port, n=280, wait=12):
    """n streams at once; each reads its first event, then half reset and half stop
    reading (the server cuts those at --timeout); after `wait` s, every poem should
    have ended and every block be back."""
    payload = json.dumps({"prompt": "春风", "max_tokens": 120, "stream": True}).encode()
    request = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
               + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    conns = [connect(port, i) for i in range(n)]
    for s in conns:
        s.sendall(request)
    statuses = [read_status(s) for s in conns]
    for i, s in enumerate(conns):
        if i % 2 == 0:  # a reset
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
    time.sleep(wait)
    for s in conns[1::2]:
        s.close()
    time.sleep(0.5)
    open_texts, in_use = metric(port, "tang_open_texts"), metric(port, 'tang_blocks{state="in_use"}')
    return (f"{statuses.count('200')} streamed ({statuses.count('503')} answered 503), half reset, "
            f"half stopped reading: {open_texts:.0f} poems open and {in_use:.0f} blocks in use "
            f"{wait} s later")


class Flood:
    """n connections from the attacker addresses, each reopened as soon as the server
    closes it, for `seconds`: idle ones send nothing; with `every`, each asks
    GET /v1/models every `every` seconds and reads its answers (kept alive);
    with `stream`, each sends that request and never reads (refilled when the
    server closes it). Counts what the server closed and the answers read."""

    def __init__(self, port, n, seconds, every=0.0, stream=b""):
        self.port, self.every, self.stream = port, every, stream
        self.closed = self.answers = self.opened = 0
        self.conns = [self.open(i) for i in range(n)]
        self.sent = [time.monotonic() - every + (i % 100) * every / 100 for i in range(n)]
        end = time.monotonic() + seconds
        poller = select.poll()
        index = {s.fileno(): i for i, s in enumerate(self.conns)}
        for s in self.conns:
            if not stream:  # a stream's unread answer would wake the poll at once
                poller.register(s, select.POLLIN)
        last_check = 0.0
        while time.monotonic() < end:
            events = poller.poll(50)
            if stream:
                time.sleep(0.05)
            now = time.monotonic()
            for fd, _ in events:
                i = index.get(fd)
                if i is None or self.stream:
                    continue
                try:
                    got = self.conns[i].recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    got = b""
                if got:
                    self.answers += got.count(b"HTTP/1.1 200")
                    continue
                poller.unregister(fd)
                del index[fd]
                self.reopen(i, poller, index)
            if self.stream and now - last_check > 0.2:  # never read: look at the state
                last_check = now
                for i, s in enumerate(self.conns):
                    try:
                        state = tcp_state(s)
                    except OSError:
                        state = 8
                    if state == 8:
                        del index[s.fileno()]
                        self.reopen(i, poller, index)
            if self.every:
                for i, s in enumerate(self.conns):
                    if now - self.sent[i] >= self.every:
                        self.sent[i] = now
                        try:
                            s.send(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
                        except OSError:
                            pass
        for s in self.conns:
            s.close()

    def open(self, i):
        self.opened += 1
        s = connect_now(self.port, i)
        if self.stream:
            s.setblocking(True)
            s.settimeout(5)
            try:
                s.sendall(self.stream)
            except OSError:
                pass
        return s

    def reopen(self, i, poller, index):
        self.closed += 1
        self.conns[i].close()
        self.conns[i] = self.open(i)
        self.sent[i] = time.monotonic() - self.every + (i % 100) * self.every / 100 if self.every else 0
        if not self.stream:
            poller.register(self.conns[i], select.POLLIN)
        index[self.conns[i].fileno()] = i


def attack_idle_flood(port, n, seconds):
    f = Flood(port, n, seconds)
    return f"{f.closed} closed by the server and reopened, in {seconds} s"


def attack_kept_alive(port, n, seconds, every=8.0):
    f = Flood(port, n, seconds, every=every)
    return f"{f.answers} answered; {f.closed} closed by the server and reopened, in {seconds} s"


def attack_unread_streams(port, n, seconds):
    payload = json.dumps({"prompt": "春风", "max_tokens": 120, "stream": True}).encode()
    request = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
               + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    cut = metric(port, "tang_poems_cut_total", missing=0.0)
    poems = metric(port, "tang_poems_total", missing=0.0)
    f = Flood(port, n, seconds, stream=request)
    time.sleep(1)
    return (f"{f.opened} sent, none read: {metric(port, 'tang_poems_total') - poems:.0f} poems written, "
            f"{metric(port, 'tang_poems_cut_total') - cut:.0f} cut; {f.closed} closed by the server")


FRAMING = [
    (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"5\r\nhello\r\n0\r\n\r\n"),
    b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
    b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length : 40\r\n\r\n",
    b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n{}",
    b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    b"GET /v1/models HTTP/1.1\r\n\r\n",
    b"GET /v1/models HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n",
    b"GET /v1/models HTTP/1.1\nHost: x\n\n",
]
LIBRARY_FRAMING = [
    b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n",
    (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;"
     + b"a" * 2**20 + b"\r\nhello\r\n0\r\n\r\n"),
]
HIDDEN = b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"


def framed(port, request):
    """(status, heads, closed, hidden answered) of request with a request hidden after it."""
    s = connect(port, 0)
    s.settimeout(3)
    s.sendall(request + HIDDEN)
    data, closed = b"", False
    try:
        while True:
            got = s.recv(65536)
            if not got:
                closed = True
                break
            data += got
    except OSError:
        pass
    s.close()
    status = data.split(b" ")[1].decode() if data.startswith(b"HTTP/1.1 ") else "none"
    return status, len(re.findall(rb"HTTP/1\.1 \d{3} ", data)), closed, b'"object":"list"' in data


def attack_framing(port, requests):
    answers = [framed(port, r) for r in requests]
    statuses = sorted({a[0] for a in answers})
    return (f"{len(answers)} answered {'/'.join(statuses)}: {sum(a[1] == 1 for a in answers)} with one head, "
            f"{sum(a[2] for a in answers)} closed, {sum(a[3] for a in answers)} hidden requests answered")


def attack_half_close(port):
    payload = json.dumps({"prompt": "春风", "max_tokens": 60, "seed": 11, "temperature": 1.0, "top_k": 0}).encode()
    s = connect(port, 0)
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
              + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    s.shutdown(socket.SHUT_WR)
    data = read_to_the_end(s)
    body = json.loads(data[data.rfind(b"\r\n\r\n") + 4:])
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", data)
    return (f"{', then '.join(s.decode() for s in statuses)}: {len(body['choices'][0]['text'])} "
            f"characters, finish_reason {body['choices'][0]['finish_reason']}")


def long_requests(port):
    """Time to first character of a fresh stream, idle and under eight long streams."""
    def first_char():  # a poem of one character: its answer is its first character
        return post(port, {"prompt": "春风", "max_tokens": 1})[1]

    idle = sorted(first_char() for _ in range(5))[2]
    stop = threading.Event()

    def long_one(i):
        while not stop.is_set():
            post(port, {"prompt": "", "max_tokens": 127, "seed": i, "stream": True})

    threads = [threading.Thread(target=long_one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    time.sleep(1)
    busy = sorted(first_char() for _ in range(5))[2]
    stop.set()
    for t in threads:
        t.join()
    return idle, busy


def row(name, attack, port, pid, idle):
    """Runs one attack under the probe and prints its row."""
    probe = Probe(port, pid)
    result = attack()
    slowest, failed, peak = probe.end()
    print(f"| {name} | {result} | {slowest:.3f} s | {failed} of {probe.sent} | "
          f"{peak:.0f} MB ({peak / idle:.2f}x idle) |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.path.join(ROOT, "build/release/lessons/11_server/poem_server"))
    parser.add_argument("--connections", type=int, default=500)
    parser.add_argument("--flood", type=int, default=20, help="seconds each flood lasts")
    parser.add_argument("--only", default="", help="run only the attacks whose row holds this text")
    parser.add_argument("--after", type=int, default=60, help="seconds to wait before the last memory reading")
    args = parser.parse_args()
    files = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (files[1], files[1]))  # 4,500 connections and more
    if not os.access(args.server, os.X_OK):
        sys.exit(f"attack_server.py: no poem_server at {args.server}: build first (scripts/test.sh)")
    proc = subprocess.Popen([args.server, "--port", "0", "--timeout", "10"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        port = int(line.rsplit(":", 1)[1].strip().strip("/"))
        post(port, {"prompt": "春风", "max_tokens": 8})  # warm: pages mapped, threads made
        time.sleep(0.5)
        idle = rss_mb(proc.pid)
        print(f"poem_server idle: {idle:.0f} MB resident; a normal request every 0.25 s during each attack\n")
        print("| attack | what the attackers got | slowest normal answer | normal failed | peak memory |")
        print("|---|---|---|---|---|")
        n = args.connections
        attacks = [
            (f"{n} connections sending their heads a byte each 0.5 s", lambda: attack_slow_heads(port, n)),
            (f"{n} idle connections", lambda: attack_idle(port, n)),
            ("four 32 MB chunked bodies at once", lambda: attack_chunked(port)),
            ("200,000 headers of 100 bytes (20 MB)", lambda: attack_headers(port)),
            ("a 64 MB POST with no length, then a half-close", lambda: attack_lengthless(port)),
            ("50 bodies dripped a byte each 0.5 s", lambda: attack_drip_body(port)),
            ("four non-streamed clients (8 poems each) resetting after 10 ms", lambda: attack_leaving(port)),
            ("280 streams at once, then half reset and half stop reading", lambda: attack_streams(port)),
            ("4,500 idle connections (limit 1,000), reopened as they close",
             lambda: attack_idle_flood(port, 4500, args.flood)),
            ("1,010 kept-alive connections, each a GET every 8 s",
             lambda: attack_kept_alive(port, 1010, args.flood)),
            ("264 streams that never read, refilled as they end",
             lambda: attack_unread_streams(port, 264, args.flood)),
            ("ambiguous framing: CL and TE, two CLs, `CL :`, TE identity, TE gzip, no Host, two Hosts, "
             "a NUL, bare LFs (each with a request hidden after it)", lambda: attack_framing(port, FRAMING)),
            ("what the library refuses itself: `Content-Length: 1x`, a chunk extension of 1 MB",
             lambda: attack_framing(port, LIBRARY_FRAMING)),
            ("a client that half-closes after sending its request", lambda: attack_half_close(port)),
        ]
        for name, attack in attacks:
            if args.only in name:
                row(name, attack, port, proc.pid, idle)
        small = None if args.only not in "--max-connections 50" else subprocess.Popen([args.server, "--port", "0", "--max-connections", "50"],
                                 stdout=subprocess.PIPE, text=True)
        try:
            small_port = small and int(small.stdout.readline().rsplit(":", 1)[1].strip().strip("/"))
            if small:
                row("`--max-connections 50`, 50 kept-alive connections, each a GET every 8 s",
                    lambda: attack_kept_alive(small_port, 50, args.flood), small_port, small.pid,
                    rss_mb(small.pid))
        finally:
            if small:
                small.terminate()
                small.wait(timeout=30)
        idle_first, busy_first = long_requests(port)
        print(f"\nfirst character of a fresh request: idle {1000 * idle_first:.1f} ms, under eight "
              f"streams of 127 characters {1000 * busy_first:.1f} ms ({busy_first / idle_first:.2f}x)")
        time.sleep(args.after)
        after = rss_mb(proc.pid)
        print(f"resident {args.after} s after the last attack: {after:.0f} MB ({after / idle:.2f}x idle)")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
