"""What a run checks before it touches anything: the corpus, its layout, the DuckDB file, the judges and their keys.

Every check is cheap (no corpus is parsed, no Dagster is loaded) and names the
flag or the environment variable at fault in one line, so ``cojudge
materialize`` refuses a bad invocation in a second or two instead of emptying
tables or failing after minutes. The corpus check itself, :func:`corpus_input_problem`
(core/ingest/corpus_input.py), also guards the ingest assets of a run launched from the Dagster UI.
This is the command's layer: nothing under core/, judges/ or defs/ imports it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cojudge_assets.core.ingest.corpus_input import RAW_INPUTS, corpus_input_problem, raw_input_present

__all__ = ["RAW_INPUTS", "corpus_input_problem", "raw_input_present"]  # the corpus checks, kept where they were


class PreflightError(ValueError):
    """A bad invocation, in one line naming the flag or variable at fault."""


@dataclass(frozen=True)
class Flag:
    """How the user set a setting: the flag (or variable) to name in a message, and its value."""

    name: str
    value: str


def known_layouts() -> tuple[str, ...]:
    """The corpus layouts (core/constants.py LAYOUTS, which core/ingest/corpus.py reads by)."""
    from cojudge_assets.core.constants import LAYOUTS

    return tuple(LAYOUTS)


def check_layout(layout: Flag, layouts: Iterable[str]) -> str:
    """The layout, if it is one of ``layouts`` (core/ingest/corpus.py LAYOUTS)."""
    known = tuple(layouts)
    if layout.value not in known:
        raise PreflightError(
            f"{layout.name} {layout.value!r}: unknown corpus layout (expected one of {', '.join(known)})"
        )
    return layout.value


def check_corpus(corpus: Flag) -> Path:
    """The corpus folder, resolved: it exists and is a readable folder."""
    path = Path(corpus.value).expanduser().resolve()
    if not path.exists():
        raise PreflightError(f"{corpus.name} {corpus.value}: no such folder ({path})")
    if not path.is_dir():
        raise PreflightError(f"{corpus.name} {corpus.value}: not a folder ({path})")
    if not os.access(path, os.R_OK | os.X_OK):
        raise PreflightError(f"{corpus.name} {corpus.value}: folder not readable by this user ({path})")
    return path


def check_duckdb(database: Flag) -> tuple[Path, Path | None]:
    """The DuckDB file, resolved, and the folder to create for it (None when it exists): the folder must exist or
    be creatable (its nearest existing ancestor a writable folder), and an existing file must be read-writable."""
    path = Path(database.value).expanduser().resolve()
    if path.is_dir():
        raise PreflightError(f"{database.name} {database.value}: is a folder; expected a DuckDB file path")
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            raise PreflightError(f"{database.name} {database.value}: file not writable by this user ({path})")
        return path, None
    folder = path.parent
    ancestor = folder
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise PreflightError(
            f"{database.name} {database.value}: cannot create folder {folder} ({ancestor} is a file, not a folder)"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise PreflightError(f"{database.name} {database.value}: folder {ancestor} not writable by this user")
    return path, (None if folder.is_dir() else folder)


def _writable(folder: Path) -> bool:
    """Whether this process can create a file in ``folder``, found by creating and removing one (``os.access``
    says yes to root everywhere, /proc included)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".cojudge-preflight-", dir=folder)
    except OSError:
        return False
    os.close(fd)
    os.unlink(name)
    return True


def check_home(home: Flag) -> tuple[Path, Path | None]:
    """DAGSTER_HOME, resolved, and the folder to create (None when it exists); an existing one must be writable."""
    path = Path(home.value).expanduser().resolve()
    if path.exists():
        if not path.is_dir():
            raise PreflightError(f"{home.name}={home.value}: not a folder ({path})")
        if not _writable(path):
            raise PreflightError(f"{home.name}={home.value}: folder not writable by this user ({path})")
        return path, None
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir() or not _writable(ancestor):
        raise PreflightError(
            f"{home.name}={home.value}: cannot create the folder ({ancestor} is not a writable folder)"
        )
    return path, path


def missing_keys(judges: Iterable, environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(judge, variable) for every judge whose ``api_key_env`` names a variable unset or blank in ``environ``
    (the judge's own ``api_key``, judges/client.py, reads it)."""
    return [(spec.name, spec.api_key_env) for spec in judges if spec.api_key(environ) == ""]


PROBE_TIMEOUT_S = 3.0  # a server on the same network answers a TCP connect in milliseconds


def _endpoint(api_base: str) -> tuple[str, int, str] | str:
    """(host, port, what to print: scheme://host:port, never a user or password) of ``api_base``, or why not."""
    from urllib.parse import urlsplit

    try:
        url = urlsplit(api_base)
        port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    except ValueError as exc:
        return f"not a URL ({exc})"
    if url.scheme not in ("http", "https") or not url.hostname or port is None:
        return "not an http(s) URL with a host"
    shown = f"{url.scheme}://{url.hostname}:{port}"
    return url.hostname, port, shown


def _probe(api_base: str, timeout_s: float) -> str | None:
    """None if a TCP connection to ``api_base``'s host and port opens within ``timeout_s``, else what happened."""
    import socket

    endpoint = _endpoint(api_base)
    if isinstance(endpoint, str):
        return endpoint
    host, port, shown = endpoint
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"{shown}: DNS: the name {host} does not resolve ({exc.strerror})"
    last = ""
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as sock:
            sock.settimeout(timeout_s)
            try:
                sock.connect(address)
                return None
            except ConnectionRefusedError:
                last = "connection refused (nothing listens there)"
            except TimeoutError:
                last = f"timed out after {timeout_s:g} s"
            except OSError as exc:
                last = exc.strerror or type(exc).__name__
    return f"{shown}: {last}"


def unreachable_judges(judges: Iterable, timeout_s: float = PROBE_TIMEOUT_S) -> list[str]:
    """One line per judge (of ``judges``, those that will run) whose ``api_base`` does not accept a TCP connection
    within ``timeout_s``: refused, timed out, or a name that does not resolve. The judges are probed at once (a
    thread each); a judge without ``api_base`` (a provider's default endpoint) or local (``cojudge/``) is not."""
    from concurrent.futures import ThreadPoolExecutor

    probed = [s for s in judges if s.api_base and not s.model.startswith("cojudge/")]
    if not probed:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(probed))) as pool:
        results = list(pool.map(lambda spec: _probe(spec.api_base, timeout_s), probed))
    return [
        f"judge {spec.name}: api_base does not answer: {result} (start the server, fix api_base in the judges file, "
        "or pass --no-probe to skip this check)"
        for spec, result in zip(probed, results)
        if result is not None
    ]


def one_line(text: str) -> str:
    """A message folded onto one line (a YAML error spans several)."""
    return " ".join(str(text).split())


def stored_rows(database: Path, table: str) -> int | None:
    """Rows of ``main.<table>`` in an existing DuckDB file, read-only (None: no file, no such table, or the file is
    open in another writing process)."""
    import duckdb

    if not database.is_file():
        return None
    try:
        conn = duckdb.connect(str(database), read_only=True)
    except duckdb.Error:
        return None
    try:
        found = conn.execute(
            "select count(*) from information_schema.tables where table_schema = 'main' and table_name = ?", [table]
        ).fetchall()[0][0]
        return int(conn.execute(f'select count(*) from main."{table}"').fetchall()[0][0]) if found else None
    finally:
        conn.close()
