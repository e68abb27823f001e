"""A small headless-Chromium driver over the DevTools protocol (for the report's browser test).

Starts the system `chromium` with a throw-away profile and a DevTools port on loopback, opens
one page, records console messages, uncaught exceptions, log entries (CSP violations, failed
loads) and every network request, and can evaluate JavaScript and take screenshots.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]


def find_chromium() -> str | None:
    """The system Chromium, or None."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, executable: str, profile: Path, *, width: int = 1280, height: int = 900):
        self.profile = profile
        profile.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.events: list[dict[str, Any]] = []
        self._next = 0
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if self.process.poll() is not None:
                err = (
                    self.process.stderr.read().decode(errors="replace")
                    if self.process.stderr
                    else ""
                )
                raise RuntimeError(f"chromium exited with {self.process.returncode}: {err[-2000:]}")
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port within 30 s")
            time.sleep(0.05)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        page = next(t for t in targets if t.get("type") == "page")
        self._connection = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        self.ws: ClientConnection = self._connection.__enter__()
        for domain in ("Runtime", "Page", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    # -- protocol --------------------------------------------------------------------------
    def call(self, method: str, timeout: float = 60, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events seen meanwhile are recorded)."""
        self._next += 1
        ident = self._next
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, event: str, timeout: float = 60) -> dict[str, Any]:
        """Wait for an event (recording everything else)."""
        for seen in self.events:
            if seen["method"] == event:
                return seen
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if "method" in message:
                self.events.append(message)
                if message["method"] == event:
                    return message

    # -- page ------------------------------------------------------------------------------
    def open(self, url: str, timeout: float = 60) -> None:
        """Navigate and wait for the load event."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired", timeout=timeout)

    def evaluate(self, expression: str, timeout: float = 60) -> Any:
        """Evaluate JavaScript in the page (promises awaited) and return the value."""
        result = self.call(
            "Runtime.evaluate",
            timeout=timeout,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and error log entries so far."""
        out = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "assert",
                "warning",
            ):
                text = " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params["args"]
                )
                out.append(f"console.{params['type']}: {text}")
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                exc = details.get("exception", {}).get("description") or details.get("text")
                out.append(f"uncaught: {exc}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                out.append(f"log {params['entry']['level']}: {params['entry']['text']}")
        return out

    def requests(self) -> list[str]:
        """URLs of every request the page made so far."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def screenshot(
        self, path: Path, *, full_page: bool = True, top: int = 0, max_height: int = 0
    ) -> Path:
        """Save a PNG of the page (the whole page, or `max_height` pixels from `top`)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            metrics = self.call("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            height = int(size["height"]) - top
            if max_height:
                height = min(height, max_height)
            params["clip"] = {
                "x": 0,
                "y": top,
                "width": int(size["width"]),
                "height": height,
                "scale": 1,
            }
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Close the connection and stop Chromium."""
        connection = getattr(self, "_connection", None)
        if connection is not None:
            connection.__exit__(None, None, None)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # python tests/report/cdp_browser.py report.html shot.png [height]
    import sys
    import tempfile

    exe = find_chromium()
    if exe is None:
        raise SystemExit("Chromium is not installed")
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    with tempfile.TemporaryDirectory() as folder, Browser(exe, Path(folder) / "p") as browser:
        browser.open(source.resolve().as_uri())
        browser.evaluate("new Promise(r => setTimeout(r, 1000))")
        browser.screenshot(target, max_height=int(sys.argv[3]) if len(sys.argv) > 3 else 0)
        for problem in browser.problems():
            sys.stderr.write(problem + "\n")
