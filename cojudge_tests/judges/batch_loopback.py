"""A scripted OpenAI-compatible *batch* server on 127.0.0.1 (``/v1/files`` and ``/v1/batches``), for tests only.

It implements what litellm's ``create_file``, ``create_batch``, ``retrieve_batch``, ``list_batches``,
``cancel_batch`` and ``file_content`` call (the OpenAI SDK underneath), and counts what it receives: files
uploaded, batches created, request lines, and the prompt tokens of every line (cl100k_base over the messages'
text alone, not litellm's ``token_counter`` with its per-message overheads).

A batch walks ``validating`` -> ``in_progress`` -> ``finalizing`` -> ``completed``, one step per poll. When it
completes, every line is answered by ``answer(body) -> text`` (a JSON judge answer by default) and the output file
lists the results in an order of their own (reversed: never the input order). Scenarios, set on
``server.scenario`` before the batch is created:

* ``"completed"``: every line answered;
* ``"line_errors"``: the lines whose custom_id is in ``server.error_ids`` go to the error file (a 500 each);
* ``"expired"``: only the first ``server.partial`` lines are answered, the batch ``expired``, the rest in the
  error file as ``batch_expired``;
* ``"cancelled"``: the batch is cancelled while in progress (or when ``cancel_batch`` is called): the first
  ``server.partial`` lines answered, status ``cancelled``;
* ``"failed"``: validation fails (``status: failed``, ``errors``), no output file.

``server.hold``: while true, a batch goes no further than ``in_progress`` however often it is polled (a provider
that takes the night); set it false and the next poll walks it on.
``server.busy_polls``: the first that many polls of each batch answer 429 with ``Retry-After: server.retry_after``;
``server.poll_times`` records when each poll arrived, so a test can see the wait was honoured.
``server.malformed_line``: if set, that text replaces the second output line of a batch with two or more answers (a
damaged output file: that request has no result). ``server.chat_requests``: the synchronous requests
(``/v1/chat/completions``, answered by ``answer`` too): the re-asks of invalid answers and error lines.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GOOD = json.dumps({"p_accept": 0.7, "s_algo": 4, "s_robust": 3, "rationale": "fine"})
STEPS = ("validating", "in_progress", "finalizing")


def _tokens(messages: list[dict]) -> int:
    # litellm's bundled cl100k_base (tiktoken would download o200k_base): the encoding only, not token_counter
    from litellm.litellm_core_utils.default_encoding import encoding

    return sum(len(encoding.encode(str(m.get("content") or ""))) for m in messages)


class BatchLoopbackServer:
    def __init__(self, model: str = "loopback-model-1", answer: Callable[[dict], str] | None = None):
        self.model = model
        self.answer = answer or (lambda body: GOOD)
        self.scenario = "completed"
        self.scenarios: list[str] = []  # if given, the scenario of each next batch created (then ``scenario``)
        self.error_ids: set[str] = set()
        self.partial = 1
        self.hold = False
        self.busy_polls = 0
        self.retry_after = 0
        self.malformed_line: str | None = None
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.creates = 0  # POST /v1/batches received
        self.uploads = 0  # POST /v1/files received
        self.lines = 0  # request lines in the uploaded batch files
        self.custom_ids: list[str] = []  # every custom_id received, in upload order (duplicates kept)
        self.prompt_tokens = 0  # cl100k_base over the text of every received message
        self.polls: dict[str, int] = {}
        self.poll_times: list[float] = []
        self.downloads: list[str] = []
        self.chat_requests: list[dict] = []  # synchronous requests (/v1/chat/completions): the re-asks
        self._lock = threading.Lock()
        self._next = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, payload: bytes | dict, headers: dict | None = None, kind="application/json"):
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length", 0)))

            def do_POST(self):  # noqa: N802
                body = self._body()
                with server._lock:
                    if self.path.rstrip("/") == "/v1/files":
                        self._send(200, server._upload(self.headers.get("Content-Type", ""), body))
                    elif self.path.rstrip("/") == "/v1/batches":
                        self._send(200, server._create(json.loads(body or b"{}")))
                    elif self.path.rstrip("/") == "/v1/chat/completions":  # the synchronous re-asks
                        request = json.loads(body or b"{}")
                        server.chat_requests.append(request)
                        self._send(200, json.loads(server._answer_line("sync", request))["response"]["body"])
                    elif m := re.fullmatch(r"/v1/batches/([^/]+)/cancel", self.path):
                        self._send(*server._cancel(m.group(1)))
                    else:
                        self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_GET(self):  # noqa: N802
                with server._lock:
                    path = self.path.split("?")[0].rstrip("/")
                    if m := re.fullmatch(r"/v1/batches/([^/]+)", path):
                        self._send(*server._poll(m.group(1)))
                    elif path == "/v1/batches":
                        data = [dict(b["object"]) for b in reversed(server.batches.values())]
                        self._send(200, {"object": "list", "data": data, "has_more": False})
                    elif m := re.fullmatch(r"/v1/files/([^/]+)/content", path):
                        server.downloads.append(m.group(1))
                        if m.group(1) in server.files:
                            self._send(200, server.files[m.group(1)], kind="application/octet-stream")
                        else:
                            self._send(404, {"error": {"message": f"no file {m.group(1)}"}})
                    else:
                        self._send(404, {"error": {"message": f"no route {self.path}"}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # --- the routes (called under the lock) ---------------------------------------------------------------------

    def _id(self, prefix: str) -> str:
        self._next += 1
        return f"{prefix}-{self._next:04d}"

    def _upload(self, content_type: str, body: bytes) -> dict:
        """A multipart upload: the part named ``file`` is the JSONL."""
        boundary = content_type.split("boundary=")[-1].strip('"').encode()
        content = b""
        for part in body.split(b"--" + boundary):
            head, _, data = part.partition(b"\r\n\r\n")
            if b'name="file"' in head:
                content = data.rsplit(b"\r\n", 1)[0]
        file_id = self._id("file")
        self.files[file_id] = content
        self.uploads += 1
        for line in content.decode().splitlines():
            if line.strip():
                request = json.loads(line)
                self.lines += 1
                self.custom_ids.append(request["custom_id"])
                self.prompt_tokens += _tokens(request["body"]["messages"])
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": "batch.jsonl",
            "purpose": "batch",
            "status": "processed",
        }

    def _create(self, body: dict) -> dict:
        self.creates += 1
        batch_id = self._id("batch")
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode().splitlines() if line.strip()]
        obj = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint", "/v1/chat/completions"),
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window", "24h"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        scenario = self.scenarios.pop(0) if self.scenarios else self.scenario
        self.batches[batch_id] = {"object": obj, "lines": lines, "scenario": scenario, "step": 0}
        self.polls[batch_id] = 0
        return dict(obj)

    def _poll(self, batch_id: str) -> tuple:
        self.poll_times.append(time.monotonic())
        if batch_id not in self.batches:
            return 404, {"error": {"message": f"no batch {batch_id}"}}
        self.polls[batch_id] += 1
        if self.polls[batch_id] <= self.busy_polls:
            return 429, {"error": {"message": "slow down"}}, {"Retry-After": str(self.retry_after)}
        batch = self.batches[batch_id]
        obj = batch["object"]
        if obj["status"] in STEPS:
            self._advance(batch)
        return 200, dict(obj)

    def _cancel(self, batch_id: str) -> tuple:
        if batch_id not in self.batches:
            return 404, {"error": {"message": f"no batch {batch_id}"}}
        batch = self.batches[batch_id]
        if batch["object"]["status"] in STEPS:
            batch["scenario"] = "cancelled"
            self._finish(batch, "cancelled", answered=self.partial)
        return 200, dict(batch["object"])

    def _advance(self, batch: dict) -> None:
        obj, scenario = batch["object"], batch["scenario"]
        if scenario == "failed":
            obj["status"] = "failed"
            obj["errors"] = {"object": "list", "data": [{"code": "invalid_file", "message": "scripted failure"}]}
            return
        step = STEPS.index(obj["status"]) + 1
        if self.hold and step > STEPS.index("in_progress"):
            return
        if scenario in ("expired", "cancelled") and step == 2:
            self._finish(batch, scenario, answered=self.partial)
        elif step < len(STEPS):
            obj["status"] = STEPS[step]
        else:
            self._finish(batch, "completed", answered=len(batch["lines"]))

    def _finish(self, batch: dict, status: str, answered: int) -> None:
        obj, lines = batch["object"], batch["lines"]
        out, errors = [], []
        for i, line in enumerate(lines):
            custom_id = line["custom_id"]
            if i >= answered:
                if status == "expired":
                    errors.append(self._error_line(custom_id, "batch_expired", "not completed in the window"))
                continue
            if custom_id in self.error_ids:
                errors.append(self._error_line(custom_id, "server_error", "scripted line error", status=500))
                continue
            out.append(self._answer_line(custom_id, line["body"]))
        out.reverse()  # results in an order of their own, as providers return them
        if len(out) > 1 and self.malformed_line is not None:
            out[1] = self.malformed_line  # that line's answer is lost: its request has no result
        if out:
            obj["output_file_id"] = self._id("file")
            self.files[obj["output_file_id"]] = ("\n".join(out) + "\n").encode()
        if errors:
            obj["error_file_id"] = self._id("file")
            self.files[obj["error_file_id"]] = ("\n".join(errors) + "\n").encode()
        obj["status"] = status
        obj["request_counts"] = {"total": len(lines), "completed": len(out), "failed": len(errors)}

    def _answer_line(self, custom_id: str, body: dict) -> str:
        completion = {
            "id": f"chatcmpl-{custom_id[:8]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "system_fingerprint": "fp_loopback_batch",
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": self.answer(body)}}
            ],
            "usage": {"prompt_tokens": _tokens(body["messages"]), "completion_tokens": 20, "total_tokens": 0},
        }
        response = {"status_code": 200, "request_id": f"req-{custom_id[:8]}", "body": completion}
        return json.dumps({"id": self._id("line"), "custom_id": custom_id, "response": response, "error": None})

    def _error_line(self, custom_id: str, code: str, message: str, status: int | None = None) -> str:
        response = (
            {"status_code": status, "request_id": "", "body": {"error": {"message": message}}} if status else None
        )
        error = None if status else {"code": code, "message": message}
        return json.dumps({"id": self._id("line"), "custom_id": custom_id, "response": response, "error": error})

    def finish_all(self) -> None:
        """End every running batch now, as its scenario says (a batch that completed overnight)."""
        with self._lock:
            self.hold = False
            for batch in self.batches.values():
                while batch["object"]["status"] in STEPS:
                    self._advance(batch)

    # ------------------------------------------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
