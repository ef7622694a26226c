"""Headless Chromium driven over the DevTools protocol through a pipe: no npm, no websocket package.

Chromium started with `--remote-debugging-pipe` reads protocol commands (JSON, each ended by a NUL
byte) on its file descriptor 3 and writes replies and events on 4. This is the smallest client that
opens pages in their own tabs, evaluates JavaScript, clicks with the mouse and takes screenshots:

    with Browser() as browser:
        tab = browser.open("file:///tmp/f.html")
        tab.click("#step")
        tab.js("document.getElementById('count').textContent")
        tab.js("document.title", frame="iframe.webview >> .backprop-studio-stepper iframe")  # a frame in a frame

`Browser()` raises `NoBrowser` (the tests skip, saying why) when Chromium is not installed.
Flags: headless, no sandbox (CI runs as root), no GPU, nothing fetched in the background.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
         "--hide-scrollbars", "--remote-debugging-pipe",
         "--disable-site-isolation-trials", "--disable-features=site-per-process,IsolateOrigins"]  # fmt: skip
# (a sandboxed srcdoc frame then stays in the page's process, where Runtime announces its context)


class NoBrowser(RuntimeError):
    """No Chromium here (Debian's `chromium` package; .ci/run installs it)."""


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or stopped answering."""


def chromium_path() -> str:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise NoBrowser("no Chromium on this machine (apt-get install chromium; .ci/run does it where it can)")


class Browser:
    def __init__(self, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="bps-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds() -> None:  # in the child: the pipe ends as descriptors 3 (commands) and 4 (replies)
            commands, replies = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(commands, 3)  # out of the way first: either end may itself be 3 or 4
            os.dup2(replies, 4)

        self.process = subprocess.Popen(
            [chromium_path(), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4, to_child_r, from_child_w),
            preexec_fn=fds,
        )  # fmt: skip (fds 3 and 4 are kept open past the child's close of the others, which runs after fds())
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []

    # -- the protocol -----------------------------------------------------------------

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self, deadline: float) -> dict:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise BrowserError("the browser stopped answering")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url: str, width: int = 1200, height: int = 800) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        tab.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})  # fmt: skip
        tab.send("Page.enable")
        tab.send("Runtime.enable")  # each frame's context is announced (Tab.js(..., frame=...))
        tab.send("Page.navigate", {"url": url})
        tab.wait("document.readyState === 'complete'")
        return tab

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Tab:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session

    def send(self, method: str, params: dict | None = None) -> dict:
        return self.browser.send(method, params, self.session)

    def js(self, expression: str, frame: str | None = None):
        """The value of a JavaScript expression (awaited if it is a promise). frame: a CSS selector of an
        <iframe> whose document the expression runs in (a sandboxed srcdoc page has an origin of its own,
        out of the page's reach: the expression runs in the frame's own context)."""
        params = {"expression": expression, "awaitPromise": True, "returnByValue": True}
        if frame is not None:
            params["contextId"] = self._context(frame)
        result = self.send("Runtime.evaluate", params)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails'].get('exception', {})}")
        return result["result"].get("value")

    def _context(self, selector: str) -> int:
        """The JavaScript context of the document in the <iframe> at `selector`; frames in frames as
        "outer selector >> inner selector" (each looked up in the document of the frame before it)."""
        frame_id = self._frame_id(selector)
        for event in reversed(self.browser.events):
            if event.get("method") == "Runtime.executionContextCreated" and event.get("sessionId") == self.session:
                context = event["params"]["context"]
                aux = context.get("auxData", {})
                if aux.get("frameId") == frame_id and aux.get("isDefault"):
                    return context["id"]
        raise BrowserError(f"the frame {selector} has no document yet")

    def _frame_id(self, selector: str) -> str:
        tree = self.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        nodes: dict[int, dict] = {}
        todo = [tree]
        while todo:  # every node of every frame's document, by its id
            node = todo.pop()
            nodes[node["nodeId"]] = node
            todo.extend(node.get("children", ()))
            if "contentDocument" in node:
                todo.append(node["contentDocument"])
        document, frame_id = tree["nodeId"], None
        for part in selector.split(" >> "):
            found = self.send("DOM.querySelector", {"nodeId": document, "selector": part})["nodeId"]
            if not found or found not in nodes:
                raise BrowserError(f"no {part} in {selector}")
            frame_id = nodes[found].get("frameId")
            inner = nodes[found].get("contentDocument")
            if frame_id is None or inner is None:
                raise BrowserError(f"{part} in {selector} is not a frame with a document yet")
            document = inner["nodeId"]
        assert frame_id is not None
        return frame_id

    def wait(self, condition: str, timeout: float = 60.0, frame: str | None = None) -> None:
        """Until a JavaScript condition is true (polled: a browser event, not a fixed sleep)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.js(condition, frame):
                    return
            except BrowserError:
                pass
            if time.monotonic() > deadline:
                raise BrowserError(f"not true after {timeout} s: {condition}")
            time.sleep(0.05)

    def click(self, selector: str, frame: str | None = None) -> None:
        """A real mouse click (pressed and released) at the middle of the element, scrolled into view."""
        if frame is not None:
            parts = frame.split(" >> ")
            for depth, part in enumerate(parts):
                self.js(f"document.querySelector({json.dumps(part)}).scrollIntoView({{block: 'center'}})",
                        " >> ".join(parts[:depth]) or None)  # fmt: skip
        self.js(f"document.querySelector({json.dumps(selector)}).scrollIntoView({{block: 'nearest'}})", frame)
        where = f"document.querySelector({json.dumps(selector)}).getBoundingClientRect()"
        box = self.js(f"(function(){{const r = {where}; return [r.left, r.top, r.width, r.height];}})()", frame)
        x, y = box[0] + box[2] / 2, box[1] + box[3] / 2
        if frame is not None:  # each frame's own place in the one around it, inside its border
            parts = frame.split(" >> ")
            for depth, part in enumerate(parts):
                fr = self.js(
                    f"(function(){{const f = document.querySelector({json.dumps(part)}), r = f.getBoundingClientRect();"
                    "return [r.left + f.clientLeft, r.top + f.clientTop];})()",
                    " >> ".join(parts[:depth]) or None,
                )
                x, y = x + fr[0], y + fr[1]
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def screenshot(self, path: str) -> bytes:
        data = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data
