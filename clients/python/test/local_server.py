"""A scripted local HTTP server (a real socket, not Canopy) for the client's tests: the handler
class answers, this runs it on a free loopback port in a thread."""

from __future__ import annotations

import http.server
import threading
from typing import Type


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A handler that logs nothing and answers JSON bytes with their length."""

    def send_json(self, status: int, raw: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: object) -> None:
        pass


class LocalServer:
    """Serves ``handler`` on 127.0.0.1 (a free port) until ``close``."""

    def __init__(self, handler: Type[http.server.BaseHTTPRequestHandler], path: str = "") -> None:
        self.path = path
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{self.path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
