"""Removing personal data and secrets from chat-log text before it is stored or sent.

It applies to chat-log text only (``prompt_logs``, ``participant_context``), never
to the contest code of an attempt, which judges must see as submitted. Every
match becomes a typed placeholder; a placeholder is never matched again, so
scrubbing scrubbed text changes nothing.

Secrets -> ``[secret:<kind>]`` (the text that names the secret, such as
``Authorization: Bearer`` or ``OPENAI_API_KEY=``, is kept before the placeholder):

* ``private-key``: PEM private key blocks (RSA, EC, DSA, OPENSSH, ENCRYPTED,
  PGP ... ``-----BEGIN ... PRIVATE KEY-----`` to its END line, or to the last
  base64 line of a paste that lost its END line);
* ``jwt``: three (or two, or five) base64url segments joined by dots whose first
  segment is a JSON object (``eyJ...``), with or without ``Bearer``;
* key prefixes: ``anthropic`` (``sk-ant-``), ``openai`` (``sk-proj-``,
  ``sk-svcacct-``, ``sk-admin-``, ``sk-`` + 20 characters with a digit),
  ``stripe`` (``sk_live_``, ``pk_live_``, ``rk_live_``, and ``_test_``),
  ``github`` (``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``, ``github_pat_``),
  ``gitlab`` (``glpat-``), ``slack`` (``xoxa-``/``xoxb-``/``xoxp-``/``xoxr-``/``xoxs-``/``xoxo-``,
  ``xapp-``, hooks.slack.com webhook paths), ``aws-access-key`` (``AKIA``/``ASIA``
  + 16), ``google`` (``AIza`` + 30, OAuth ``ya29.``), ``huggingface`` (``hf_``
  + 30), ``npm`` (``npm_`` + 36), ``pypi`` (``pypi-AgEIcHlwaS5vcmc...``);
* ``aws-secret-key``: the 40-character value after ``aws_secret_access_key``
  (also as ``AWS Secret Access Key [None]:``, the prompt of ``aws configure``);
* ``authorization``: the value of an ``Authorization:`` header (after its
  scheme, Bearer/Basic/Token/Bot/ApiKey; the whole rest of the line for Digest
  and AWS4-HMAC-SHA256);
* ``bearer``: a ``Bearer`` token that is not a JWT;
* ``credential``: the value assigned to a name ending in api_key, apikey,
  access_key, secret_key, client_secret, secret, token, access_token,
  auth_token, refresh_token, private_key, password, passwd or pwd (``=``,
  ``:``, ``=>``, JSON or YAML), when quoted (6+ characters, no space) or, unquoted,
  when it looks generated (letters and digits, or a password with a symbol);
* ``url-credentials``: ``user:password@`` in a URL.

E-mail addresses -> ``[email]``: plain (``ada@example.org``) and obfuscated:
``ada (at) example (dot) org``, ``ada [at] example [dot] org``, ``{at}``/``<at>``,
``ada(at)example(dot)org`` without spaces, ``ada @ example.org`` with spaces,
and ``ada at example dot org`` where both words are spelled out and the last
part is a known top-level domain (so "look at example.com" and "the dot product
at index" stay).

People: student and other id numbers introduced by a cue ("student no.",
"matric", "id") -> ``[id]``, and the same numbers wherever else they appear;
people's names introduced by a cue ("I'm ...", "my name is ...", "Name: ...",
"submit as ...") -> ``[name]``, and each part of those names wherever else it
appears as a word. Names are harvested from all of a participant's logs first
(:func:`harvest_identities`), so a name mentioned once in an introduction is
removed from every later message too.

What is kept on purpose: strings that are only "high entropy" (hex digests,
base64 test data, hashes in code) with no known prefix and no name saying they
are secret; they cannot be told from code and data the judges must read.
Phone numbers are not looked for. Pattern-based scrubbing cannot promise to find
a name that is never introduced; the tests cover what it does find.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"\[(?:secret:[a-z-]+|email|name|id)\]")

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

# top-level domains that make "name at domain dot com" (or "name @ domain.com") an address
KNOWN_TLDS = frozenset("""
com org net edu gov mil int info biz name pro io ai co dev app me tv tech xyz online site email mail cloud
uk ac de fr nl be lu ch at it es pt ie se no dk fi is pl cz sk hu ro bg gr tr ru ua by lt lv ee si hr rs
us ca mx br ar cl pe uy au nz jp kr cn hk tw sg my th vn id ph in pk za ng ke eg il ir sa ae eu
""".split())
# for "name at domain dot tld" spelled out in words: no label may be a common word, no tld may be an English word
_PROSE_WORDS = frozenset("a an i it its this that these those the you we they he she them us me my each every any "
                         "some one all which what where there here".split())
_WORD_TLDS = KNOWN_TLDS - frozenset("at be by in is it me my no us id tv pro name info email mail online site app "
                                    "dev tech cloud int".split())

_LABEL = r"[A-Za-z0-9_%+-]+"
_AT = r"(?P<at>[ \t]*[(\[{<][ \t]*at[ \t]*[)\]}>][ \t]*|[ \t]+at[ \t]+|[ \t]*@[ \t]*)"  # never across lines
_DOT = r"(?:[ \t]*[(\[{<][ \t]*dot[ \t]*[)\]}>][ \t]*|[ \t]+dot[ \t]+|\.)"
OBFUSCATED_EMAIL = re.compile(
    rf"(?<![\w.%+-])(?P<local>{_LABEL}(?:{_DOT}{_LABEL})*){_AT}(?P<domain>{_LABEL}(?:{_DOT}{_LABEL})+)(?![\w-])",
    re.IGNORECASE)
_DOT_SPLIT = re.compile(rf"({_DOT})", re.IGNORECASE)


def _obfuscated_address(match: re.Match) -> bool:
    """Whether a match of :data:`OBFUSCATED_EMAIL` is clearly an address (see the module docstring)."""
    at = match.group("at").strip().lower()
    pieces = _DOT_SPLIT.split(match.group("domain"))
    tld, dots = pieces[-1], [d.strip().lower() for d in pieces[1::2]]
    if not (tld.isalpha() and len(tld) >= 2):
        return False
    bracketed = any(d not in (".", "dot") for d in dots)
    spelled = bracketed or "dot" in dots
    known = tld.lower() in KNOWN_TLDS
    if at not in ("@", "at"):  # (at), [at], {at}, <at>
        return True
    if at == "@":
        return spelled or known
    labels = [p.lower() for p in _DOT_SPLIT.split(match.group("local"))[::2] + pieces[::2]]
    if any(label in _PROSE_WORDS for label in labels):
        return False
    return bracketed or ("dot" in dots and tld.lower() in _WORD_TLDS)


def _b64_json_object(segment: str) -> bool:
    try:
        decoded = base64.urlsafe_b64decode(segment.rstrip("=") + "=" * (-len(segment.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return False
    return decoded.lstrip()[:1] == b"{"


def _jwt(match: re.Match) -> bool:
    first = match.group("secret").split(".")[0]
    return first.startswith("eyJ") or _b64_json_object(first)


def _generated(value: str) -> bool:
    """Looks generated rather than written: letters and digits mixed (a key, a token, a password)."""
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def _credential(match: re.Match) -> bool:
    value = match.group("secret")
    if match.group("quote"):
        return True
    if match.group("name").lower().rsplit("_", 1)[-1] in ("password", "passwd", "pwd"):
        return _generated(value) or any(c in "!@#$%^&*?" for c in value)
    return _generated(value)


def _bearer(match: re.Match) -> bool:
    value = match.group("secret")
    return _generated(value) or (len(value) >= 24 and any(c.isupper() for c in value)
                                 and any(c.islower() for c in value))


@dataclass(frozen=True)
class SecretPattern:
    """A kind of secret: the pattern finds it; group ``secret`` (else the whole match) is replaced."""

    kind: str
    pattern: re.Pattern
    accept: Callable[[re.Match], bool] | None = None

    def sub(self, text: str) -> str:
        def replace(match: re.Match) -> str:
            if self.accept is not None and not self.accept(match):
                return match.group(0)
            if "secret" not in self.pattern.groupindex:
                return f"[secret:{self.kind}]"
            start, end = match.span("secret")
            whole = match.group(0)
            return whole[: start - match.start()] + f"[secret:{self.kind}]" + whole[end - match.start():]

        return self.pattern.sub(replace, text)


_NOT_PLACEHOLDER = r"(?!\[(?:secret|email|name|id)\b)"
_CREDENTIAL_NAME = (r"(?:[A-Za-z0-9_]*[_-])?(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|"
                    r"secret|token|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|"
                    r"password|passwd|pwd)")

# In order: the kinds with a recognisable shape first, then the ones found by what names them.
SECRETS: tuple[SecretPattern, ...] = (
    SecretPattern("private-key", re.compile(
        r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK|)-----"
        r"(?:.*?-----END \1PRIVATE KEY\2-----|(?:\r?\n[\w-]+:[^\n]*)*(?:\r?\n[A-Za-z0-9+/=]{8,})*)", re.DOTALL)),
    SecretPattern("jwt", re.compile(
        r"(?<![\w.-])(?P<secret>[A-Za-z0-9_-]{8,}={0,2}(?:\.[A-Za-z0-9_-]{8,}={0,2})(?:\.[A-Za-z0-9_-]*={0,2}){0,3})"
        r"(?![\w-])"), _jwt),
    SecretPattern("anthropic", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}")),
    SecretPattern("stripe", re.compile(r"\b[spr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    SecretPattern("openai", re.compile(r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{16,}|"
                                       r"\bsk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}")),
    SecretPattern("github", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}")),
    SecretPattern("gitlab", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    SecretPattern("slack", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}|"
                                      r"(?<=hooks\.slack\.com/services/)[A-Za-z0-9/]{20,}")),
    SecretPattern("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    SecretPattern("google", re.compile(r"\bAIza[0-9A-Za-z_-]{30,}|\bya29\.[0-9A-Za-z_-]{20,}")),
    SecretPattern("huggingface", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    SecretPattern("npm", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    SecretPattern("pypi", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}")),
    SecretPattern("aws-secret-key", re.compile(
        r"(?i)aws[_ ]?secret[_ ]?access[_ ]?key[\"']?\s*(?:\[[^\]\n]*\])?\s*(?:[:=]|=>)\s*[\"']?"
        r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])")),
    SecretPattern("authorization", re.compile(  # Digest and AWS4 credentials run to the end of the line
        r"(?i)\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:Digest|AWS4-HMAC-SHA256)\s+"
        r"(?P<secret>" + _NOT_PLACEHOLDER + r"[^\r\n]+)")),
    SecretPattern("authorization", re.compile(
        r"(?i)\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:(?:Bearer|Basic|Token|Bot|ApiKey|Key)\s+)?"
        r"(?P<secret>" + _NOT_PLACEHOLDER + r"[^\s\"',;]{8,}+)"), _bearer),
    SecretPattern("bearer", re.compile(r"\bBearer\s+(?P<secret>" + _NOT_PLACEHOLDER + r"[A-Za-z0-9._~+/=-]{8,}+)"),
                  _bearer),
    SecretPattern("credential", re.compile(
        r"(?i)(?<![\w-])(?P<name>" + _CREDENTIAL_NAME + r")[\"']?\s*(?::|=>|=)\s*(?P<quote>[\"'`])?"
        r"(?P<secret>" + _NOT_PLACEHOLDER + r"(?(quote)[^\s\"'`]{6,}(?=[\"'`])|[A-Za-z0-9_\-./+=~!@#$%^&*?]{6,}+))"),
        _credential),
    SecretPattern("url-credentials", re.compile(
        r"\b[A-Za-z][A-Za-z0-9+.-]*://(?P<secret>[^\s:/@\[\]]+:[^\s@/\[\]]+)(?=@)")),
)
ID_CUE = re.compile(r"(?i)\b(?:student\s*(?:no\.?|number|id|#)|matric(?:ulation)?\s*(?:no\.?|number)?|"
                    r"\bid\b\s*(?:no\.?)?)\s*[:#]?\s*([A-Z]?\d{5,12})")
NAME_CUE = re.compile(r"(?:\bI'm|\bI am|\b[Mm]y name is|\bName:|\bsubmit as)\s+"
                      r"([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?){1,2})")
NOT_NAMES = {"In", "The", "Working", "Trying", "Using", "Stuck", "Done", "Back", "Here", "Not", "Still", "Going"}


@dataclass
class Identities:
    names: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)


def harvest_identities(texts: list[str]) -> Identities:
    """Names and id numbers introduced anywhere in ``texts``."""
    found = Identities()
    for text in texts:
        for match in NAME_CUE.finditer(text):
            parts = match.group(1).split()
            if parts[0] not in NOT_NAMES:
                found.names.add(match.group(1))
                found.names.update(p for p in parts if len(p) > 2)
        for match in ID_CUE.finditer(text):
            found.ids.add(match.group(1))
    return found


def scrub_secrets(text: str) -> str:
    """``text`` with every secret and e-mail address replaced by its placeholder (no names or ids).

    >>> scrub_secrets("curl -H 'Authorization: Bearer abc123def456ghi' mail j.doe (at) uni (dot) edu")
    "curl -H 'Authorization: Bearer [secret:authorization]' mail [email]"
    """
    for secret in SECRETS:
        text = secret.sub(text)
    text = EMAIL.sub("[email]", text)
    return OBFUSCATED_EMAIL.sub(lambda m: "[email]" if _obfuscated_address(m) else m.group(0), text)


def scrub(text: str, identities: Identities | None = None) -> str:
    """``text`` with personal data and secrets replaced by placeholders.

    >>> scrub("I'm Ada Byron (ada@example.org), key sk-proj-abcdefghijklmnopqrstu")
    "I'm [name] ([email]), key [secret:openai]"
    """
    identities = identities or harvest_identities([text])
    text = scrub_secrets(text)
    for number in sorted(identities.ids, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(number)}\b", "[id]", text)
    for name in sorted(identities.names, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}\b", "[name]", text)
    text = re.sub(r"\[name\](?:\s+\[name\])+", "[name]", text)
    return text
