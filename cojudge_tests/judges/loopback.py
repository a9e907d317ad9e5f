"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests only.

Each request pops the next behaviour from a queue (the last one repeats):
``("ok", text)``, ``("status", code, retry_after)``, ``("sleep", seconds, text)``,
``("model", name, text)``, ``("truncated", text)`` (half the announced body, then the connection closes),
``("drop",)`` (the request read, the connection closed without an answer); ``answer(body) -> text``, when set,
makes the text of an ``ok`` step from the request (the batch tests' answers that depend on the request). Every
request body is recorded, and the most
requests ever in flight at once (``max_in_flight``). ``delay_s`` delays every
answer (the throughput benchmark's fixed latency).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 refuses connections at high concurrency


class LoopbackServer:
    def __init__(self, model: str = "loopback-model-1", delay_s: float = 0.0):
        self.model, self.delay_s = model, delay_s
        self.in_flight = self.max_in_flight = 0
        self.script: list[tuple] = [("ok", "{}")]
        self.answer = None  # optional: body -> the text of an "ok" answer
        self.requests: list[dict] = []
        self.log: list[tuple[float, float, str]] = []  # (arrived, answered, model) of every request, in wall time
        self.headers_seen: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as providers serve

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):  # noqa: N802
                arrived = time.time()
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer()
                finally:
                    with server._lock:
                        server.in_flight -= 1
                        server.log.append((arrived, time.time(), str(getattr(self, "model_asked", ""))))

            def _answer(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                self.model_asked = body.get("model", "")
                if server.delay_s:
                    time.sleep(server.delay_s)
                with server._lock:
                    server.requests.append(body)
                    server.headers_seen.append(dict(self.headers))
                    step = server.script.pop(0) if len(server.script) > 1 else server.script[0]
                kind = step[0]
                if kind == "drop":  # the request read, then the connection closed with no answer
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if kind == "status":
                    payload = json.dumps({"error": {"message": f"scripted {step[1]}", "type": "scripted"}}).encode()
                    self.send_response(step[1])
                    if step[2] is not None:
                        self.send_header("Retry-After", str(step[2]))
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                text, model = step[-1], server.model
                if kind == "ok" and server.answer is not None:
                    text = server.answer(body)
                if kind == "sleep":
                    time.sleep(step[1])
                if kind == "model":
                    model = step[1]
                payload = json.dumps(
                    {
                        "id": "chatcmpl-loopback",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": model,
                        "system_fingerprint": "fp_loopback",
                        "choices": [
                            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    }
                ).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if kind == "truncated":  # half the announced body, then the connection closes
                        self.wfile.write(payload[: len(payload) // 2])
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def settle(self, quiet_s: float = 1.0, timeout_s: float = 60.0) -> int:
        """Wait until no request is being answered and none has come for ``quiet_s``; return the number recorded.

        A client killed with a request on the wire still reaches the server: the request is read, answered into
        a closed socket and recorded up to ``delay_s`` (and a thread switch) after the kill. A test that counts
        the requests of a killed run counts them after this."""
        deadline = time.time() + timeout_s
        seen, quiet_since = -1, time.time()
        while time.time() < deadline:
            with self._lock:
                busy, count = self.in_flight, len(self.log)
            if busy or count != seen:
                seen, quiet_since = count, time.time()
            elif time.time() - quiet_since >= quiet_s:
                return len(self.requests)
            time.sleep(0.02)
        raise TimeoutError(f"the loopback server was still receiving requests after {timeout_s} s")

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
