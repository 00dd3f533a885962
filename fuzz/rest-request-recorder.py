"""Records the REST requests a client sends, for the `rest_request` fuzz target's seeds.

    python3 fuzz/rest-request-recorder.py PORT UPSTREAM_HOST:PORT LOG

Listens on 127.0.0.1:PORT, forwards every request unchanged to UPSTREAM (a `paimon serve`)
and its answer back, and appends one JSON line per request to LOG: client (User-Agent),
method, path (with the query), body, status. The `pypaimon-*` and `java-*` seeds under
fuzz/seeds/rest_request/ are requests recorded this way (see fuzz/README.md).
"""
import http.client, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, UPSTREAM, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lock = threading.Lock()

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def handle_one(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        host, port = UPSTREAM.split(":")
        c = http.client.HTTPConnection(host, int(port), timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
        c.request(self.command, self.path, body=body or None, headers=headers)
        r = c.getresponse()
        data = r.read()
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"client": self.headers.get("User-Agent", ""), "method": self.command,
                                "path": self.path, "body": body.decode("utf-8", "replace"),
                                "status": r.status}) + "\n")
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = do_DELETE = do_PUT = do_HEAD = handle_one
    def log_message(self, *a): pass

ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
