"""A real ``canopy serve`` for the client's tests: a temporary SQLite file with a pro and a free
account made by ``canopy init --json``, the server on a free loopback port, stopped (and its files
removed) by ``stop``.

Node >= 22.19 runs the CLI: ``CANOPY_NODE`` when set, else the repository's own Node (installed
under node_modules by ``npm ci`` at the repository root), else ``node`` on the PATH.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "packages" / "server" / "bin" / "canopy.js"
SERVING = re.compile(r"serving (http://[0-9.]+:[0-9]+)")


def find_node() -> str:
    """The Node binary to run the CLI with; raises with what to do when there is none >= 22.19."""
    candidates: List[Optional[str]] = [
        os.environ.get("CANOPY_NODE"),
        str(REPO / "node_modules" / ".bin" / "node"),
        shutil.which("node"),
    ]
    for node in candidates:
        if not node or not os.path.exists(node):
            continue
        version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
        match = re.match(r"v(\d+)\.(\d+)", version)
        if match and (int(match.group(1)), int(match.group(2))) >= (22, 19):
            return node
    raise RuntimeError(
        "Node >= 22.19 was not found: run `npm ci` at the repository root (it installs Node under "
        "node_modules), or set CANOPY_NODE to a Node >= 22.19 binary"
    )


class CanopyServe:
    """``canopy serve --allow-insecure-webhooks`` with a pro account (``token``) and a free one
    (``free_token``); ``url`` is the server's origin (no ``/v1``)."""

    def __init__(self) -> None:
        if not CLI.exists():
            raise RuntimeError(f"{CLI} is missing: run the tests inside the Canopy repository")
        self.node = find_node()
        self.dir = tempfile.mkdtemp(prefix="canopy-python-")
        db = os.path.join(self.dir, "canopy.db")
        try:
            self.token = self._init(db, "python-pro@example.com", "pro")
            self.free_token = self._init(db, "python-free@example.com", "free")
            self.process = subprocess.Popen(
                [self.node, str(CLI), "serve", "--db", db, "--port", "0", "--host", "127.0.0.1", "--allow-insecure-webhooks"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "CANOPY_GEOMETRY_WORKERS": "1"},
            )
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        self.stderr: List[str] = []
        lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.reader = threading.Thread(target=self._read_stderr, args=(lines,), daemon=True)
        self.reader.start()
        while True:
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                self.stop()
                raise RuntimeError("canopy serve did not print `serving http://…` within 60 s:\n" + "".join(self.stderr)) from None
            if line is None:
                self.stop()
                raise RuntimeError("canopy serve exited before serving:\n" + "".join(self.stderr))
            match = SERVING.search(line)
            if match:
                self.url = match.group(1)
                return

    def _init(self, db: str, email: str, plan: str) -> str:
        out = subprocess.run(
            [self.node, str(CLI), "init", "--json", "--db", db, "--email", email, "--plan", plan, "--account-name", f"Python {plan}"],
            capture_output=True, text=True, check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"canopy init failed ({out.returncode}): {out.stderr}")
        result: Dict[str, Any] = json.loads(out.stdout)
        return str(result["api_key"])

    def _read_stderr(self, lines: "queue.Queue[Optional[str]]") -> None:
        stream = self.process.stderr
        if stream is not None:
            for line in stream:
                self.stderr.append(line)
                lines.put(line)
        lines.put(None)

    def stop(self) -> None:
        """Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its files."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=10)
        if self.process.stderr is not None:
            self.process.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)
