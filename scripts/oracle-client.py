#!/usr/bin/env python3
"""Client of the persistent Java oracle (`paimon-oracle.jar serve`, started by scripts/with-oracle.sh).

Usage: oracle-client.py SOCKET CMD ARGS...   (run by scripts/java-oracle.sh, not by hand)

Sends the arguments (each followed by a NUL byte), then copies the reply's stdout and stderr frames
to this process's stdout and stderr and exits with the command's exit code. The protocol is described
in interop/java/src/main/java/org/paimonrs/oracle/Serve.java.

Exit code 75 (EX_TEMPFAIL) with nothing sent means "not served, run the JVM yourself": the socket is
gone, or the call might name a relative path while this process's working directory differs from the
server's (the repository root: a JVM cannot change its directory per request).
"""

import os
import socket
import struct
import sys

NOT_SERVED = 75

# Commands whose positional arguments include paths they create: a relative one does not exist yet,
# so it cannot be told from a plain word below.
WRITERS = {
    "write-fixtures",
    "write-expected",
    "write-planning-table",
    "write-bench-tables",
    "prepare-messages",
    # its list file holds paths
    "dump-tables",
}
# Commands that live until their own stdin closes (a server the caller stops by closing the pipe):
# a shared JVM has no stdin per call, so each runs in a JVM of its own.
OWN_JVM = {"rest-server"}
# Options whose value is never a path (filters may hold '/'); any other option's value is checked.
NOT_PATH_OPTIONS = {"--filter", "--select", "--option"}


def may_name_relative_path(args):
    """True when some argument could be a path relative to the working directory."""
    cmd, rest = args[0], args[1:]
    prev = None
    for a in rest:
        is_value = prev in NOT_PATH_OPTIONS
        prev = a
        if a.startswith("/") or a.startswith("-") or is_value:
            continue
        if a.isdigit():
            continue
        if cmd in WRITERS or "/" in a or os.path.exists(a):
            return True
    return False


def read_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("paimon-oracle server closed the connection mid-reply")
        buf += chunk
    return bytes(buf)


def main():
    path, args = sys.argv[1], sys.argv[2:]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not args or args[0] in OWN_JVM or (os.path.realpath(os.getcwd()) != os.path.realpath(root)
                    and may_name_relative_path(args)):
        return NOT_SERVED
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        return NOT_SERVED
    request = b"".join(os.fsencode(a) + b"\0" for a in args)
    sock.sendall(request)
    sock.shutdown(socket.SHUT_WR)
    out, err = sys.stdout.buffer, sys.stderr.buffer
    while True:
        kind, length = struct.unpack(">cI", read_exact(sock, 5))
        payload = read_exact(sock, length)
        if kind == b"o":
            out.write(payload)
        elif kind == b"e":
            out.flush()
            err.write(payload)
            err.flush()
        elif kind == b"x":
            out.flush()
            (rc,) = struct.unpack(">i", payload)
            return rc
        else:
            raise ValueError(f"paimon-oracle server sent an unknown frame kind {kind!r}")


if __name__ == "__main__":
    sys.exit(main())
