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

Each kind of secret is looked for only in a text that holds its literal hint
(``sk-``, ``ghp_``, ``bearer``, ...), and no pattern rescans a run of characters
once per character, so the time is linear in the text and small for chat text
without secrets.

What is kept on purpose: strings that are only "high entropy" (hex digests,
base64 test data, hashes in code) with no known prefix and no name saying they
are secret; they cannot be told from code and data the judges must read.
Phone numbers are not looked for. Pattern-based scrubbing cannot promise to find
a name that is never introduced; the tests cover what it does find.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"\[(?:secret:[a-z-]+|email|name|id)\]")

# Scrubbing stays linear in the text on any input: a pattern that could start anywhere in a run of characters
# starts only where the run starts (EMAIL's lookbehind), so a long run is scanned once, not once per character.
EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

# top-level domains that make "name at domain dot com" (or "name @ domain.com") an address
KNOWN_TLDS = frozenset(
    """
com org net edu gov mil int info biz name pro io ai co dev app me tv tech xyz online site email mail cloud
uk ac de fr nl be lu ch at it es pt ie se no dk fi is pl cz sk hu ro bg gr tr ru ua by lt lv ee si hr rs
us ca mx br ar cl pe uy au nz jp kr cn hk tw sg my th vn id ph in pk za ng ke eg il ir sa ae eu
""".split()
)
# for "name at domain dot tld" spelled out in words: no label may be a common word, no tld may be an English word
_PROSE_WORDS = frozenset(
    "a an i it its this that these those the you we they he she them us me my each every any "
    "some one all which what where there here".split()
)
_WORD_TLDS = KNOWN_TLDS - frozenset(
    "at be by in is it me my no us id tv pro name info email mail online site app dev tech cloud int".split()
)

_LABEL = r"[A-Za-z0-9_%+-]+"
_DOT = r"(?:[ \t]*[(\[{<][ \t]*dot[ \t]*[)\]}>][ \t]*|[ \t]+dot[ \t]+|\.)"  # never across lines
# An obfuscated address is found from its "at" ((at), [at], {at}, <at>, " at ", "@"): the domain is read forward
# from it and the local part backward, so the search costs one scan for the at-forms, not one per word.
_AT_FORM = re.compile(r"[(\[{<][ \t]*[aA][tT][ \t]*[)\]}>]|[ \t][aA][tT][ \t]|@")
_DOMAIN = re.compile(rf"[ \t]*(?P<domain>{_LABEL}(?:{_DOT}{_LABEL}){{1,5}})(?![\w-])", re.IGNORECASE)
# the local part, matched on the reversed text before the at-form (so the match starts where the local part ends)
_TOD = r"(?:[ \t]*[)\]}>][ \t]*tod[ \t]*[(\[{<][ \t]*|[ \t]+tod[ \t]+|\.)"
_LOCAL_REVERSED = re.compile(rf"[ \t]*(?P<local>{_LABEL}(?:{_TOD}{_LABEL}){{0,4}})(?![\w.%+-])", re.IGNORECASE)
_LOCAL_WINDOW = 256
_DOT_SPLIT = re.compile(rf"({_DOT})", re.IGNORECASE)


def _obfuscated_address(local: str, at: str, domain: str) -> bool:
    """Whether ``local``, the at-form ``at`` and ``domain`` are clearly an address (see the module docstring)."""
    at = at.strip().lower()
    pieces = _DOT_SPLIT.split(domain)
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
    labels = [p.lower() for p in _DOT_SPLIT.split(local)[::2] + pieces[::2]]
    if any(label in _PROSE_WORDS for label in labels):
        return False
    return bracketed or ("dot" in dots and tld.lower() in _WORD_TLDS)


def scrub_obfuscated_emails(text: str) -> str:
    """Each obfuscated e-mail address (see the module docstring) replaced by ``[email]``."""
    pieces, last = [], 0
    for at in _AT_FORM.finditer(text):
        if at.start() < last:
            continue
        domain = _DOMAIN.match(text, at.end())
        if not domain:
            continue
        before = text[max(last, at.start() - _LOCAL_WINDOW) : at.start()][::-1]
        local = _LOCAL_REVERSED.match(before)
        if local and _obfuscated_address(local.group("local")[::-1], at.group(), domain.group("domain")):
            pieces += [text[last : at.start() - local.end()], "[email]"]
            last = domain.end()
    return "".join(pieces) + text[last:] if pieces else text


def _b64_json_object(segment: str) -> bool:
    try:
        decoded = base64.urlsafe_b64decode(segment.rstrip("=") + "=" * (-len(segment.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return False
    return decoded.lstrip()[:1] == b"{"


def _jwt(match: re.Match) -> bool:
    if match.start() > 0 and match.string[match.start() - 1] == ".":  # a segment of something longer
        return False
    first = match.group("secret").split(".")[0]
    return first.startswith("eyJ") or _b64_json_object(first)


def _generated(value: str) -> bool:
    """Looks generated rather than written: letters and digits mixed (a key, a token, a password)."""
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def _credential(match: re.Match) -> bool:
    value, start = match.group("secret"), match.start()
    if start > 0 and match.string[start - 1].isalnum():  # "mytoken = ..." names something else
        return False
    if match.group("quote"):
        return True
    if match.group("name").lower() in ("password", "passwd", "pwd"):
        return _generated(value) or any(c in "!@#$%^&*?" for c in value)
    return _generated(value)


def _bearer(match: re.Match) -> bool:
    value = match.group("secret")
    return _generated(value) or (
        len(value) >= 24 and any(c.isupper() for c in value) and any(c.islower() for c in value)
    )


def _word_start(match: re.Match) -> bool:
    """The match is not the tail of a longer word (``xsk-...``, ``my-ghp_...``)."""
    return match.start() == 0 or not (
        match.string[match.start() - 1].isalnum() or match.string[match.start() - 1] in "_-"
    )


@dataclass(frozen=True)
class SecretPattern:
    """A kind of secret: the pattern finds it; group ``secret`` (else the whole match) is replaced.

    ``hints``: lower-case strings of which one is in any text the pattern can match; a text with none of them is
    not searched (most chat text holds no secret, and a substring test costs far less than a regex scan).
    Patterns begin with their literal prefix rather than a lookbehind, so the regex engine can jump to it;
    ``word_start`` then asks, per match, that the prefix begins a word.
    """

    kind: str
    pattern: re.Pattern
    hints: tuple[str, ...]
    accept: Callable[[re.Match], bool] | None = None
    word_start: bool = True

    def sub(self, text: str, lowered: str) -> str:
        if not any(hint in lowered for hint in self.hints):
            return text

        def replace(match: re.Match) -> str:
            if (self.word_start and not _word_start(match)) or (self.accept is not None and not self.accept(match)):
                return match.group(0)
            if "secret" not in self.pattern.groupindex:
                return f"[secret:{self.kind}]"
            start, end = match.span("secret")
            whole = match.group(0)
            return whole[: start - match.start()] + f"[secret:{self.kind}]" + whole[end - match.start() :]

        return self.pattern.sub(replace, text)


_NOT_PLACEHOLDER = r"(?!\[(?:secret|email|name|id)\b)"
_CREDENTIAL_NAME = (
    r"api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|secret|token|"
    r"access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|password|passwd|pwd"
)

PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK|)-----")
PEM_END = re.compile(r"-----END ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK|)-----")
PEM_TAIL = re.compile(r"(?:\r?\n[\w-]+:[^\n]*)*(?:\r?\n[A-Za-z0-9+/=]{8,})*")  # headers, then base64 lines


def scrub_private_keys(text: str) -> str:
    """Each PEM private key block, BEGIN to its END line (or to its last base64 line if the END line is missing),
    replaced by ``[secret:private-key]``. The END lines are found once, so the time is linear in the text."""
    if "PRIVATE KEY" not in text:
        return text
    ends: dict[tuple[str, ...], list[int]] = {}
    for end in PEM_END.finditer(text):
        ends.setdefault(end.group(1, 2), []).append(end.end())
    pieces, last = [], 0
    for begin in PEM_BEGIN.finditer(text):
        if begin.start() < last:  # inside a block already replaced
            continue
        candidates = ends.get(begin.group(1, 2), [])
        i = bisect.bisect_left(candidates, begin.end())
        if i < len(candidates):
            stop = candidates[i]
        else:
            tail = PEM_TAIL.match(text, begin.end())
            assert tail is not None  # every part of PEM_TAIL is optional: it always matches
            stop = tail.end()
        pieces += [text[last : begin.start()], "[secret:private-key]"]
        last = stop
    return "".join(pieces) + text[last:]


def _openai(match: re.Match) -> bool:
    plain = match.group("plain")
    return not plain or any(c.isdigit() for c in plain)


# In order: the kinds with a recognisable shape first, then the ones found by what names them.
SECRETS: tuple[SecretPattern, ...] = (
    # the base64 of a JSON object begins with "e" ("{" is 0x7B), so every JWT does
    SecretPattern(
        "jwt",
        re.compile(
            r"(?P<secret>e[A-Za-z0-9_-]{7,}={0,2}(?:\.[A-Za-z0-9_-]{8,}={0,2})(?:\.[A-Za-z0-9_-]*={0,2}){0,3})"
            r"(?![\w-])"
        ),
        ("e",),
        _jwt,
    ),
    SecretPattern("anthropic", re.compile(r"sk-ant-[A-Za-z0-9_-]{16,}"), ("sk-ant-",)),
    SecretPattern("stripe", re.compile(r"[spr]k_(?:live|test)_[A-Za-z0-9]{16,}"), ("k_live_", "k_test_")),
    SecretPattern(
        "openai",
        re.compile(
            r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{16,}|"
            r"(?P<plain>[A-Za-z0-9_-]{20,}))"
        ),
        ("sk-",),
        _openai,
    ),
    SecretPattern(
        "github",
        re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    SecretPattern("gitlab", re.compile(r"glpat-[A-Za-z0-9_-]{20,}"), ("glpat-",)),
    SecretPattern("slack", re.compile(r"(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}"), ("xox", "xapp-")),
    SecretPattern(
        "slack",
        re.compile(r"(?<=hooks\.slack\.com/services/)[A-Za-z0-9/]{20,}"),
        ("hooks.slack.com/services/",),
        word_start=False,
    ),
    SecretPattern(
        "aws-access-key", re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), ("akia", "asia", "abia", "acca")
    ),
    SecretPattern("google", re.compile(r"AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,}"), ("aiza", "ya29.")),
    SecretPattern("huggingface", re.compile(r"hf_[A-Za-z0-9]{30,}"), ("hf_",)),
    SecretPattern("npm", re.compile(r"npm_[A-Za-z0-9]{36}\b"), ("npm_",)),
    SecretPattern("pypi", re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"), ("pypi-",)),
    SecretPattern(
        "aws-secret-key",
        re.compile(
            r"(?i)aws[_ ]?secret[_ ]?access[_ ]?key[\"']?\s*(?:\[[^\]\n]*\])?\s*(?:[:=]|=>)\s*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secret",),
        word_start=False,
    ),
    SecretPattern(
        "authorization",
        re.compile(  # Digest and AWS4 credentials run to the end of the line
            r"(?i)Authorization[\"']?\s*[:=]\s*[\"']?(?:Digest|AWS4-HMAC-SHA256)\s+"
            r"(?P<secret>" + _NOT_PLACEHOLDER + r"[^\r\n]+)"
        ),
        ("authorization",),
    ),
    SecretPattern(
        "authorization",
        re.compile(
            r"(?i)Authorization[\"']?\s*[:=]\s*[\"']?(?P<scheme>(?:Bearer|Basic|Token|Bot|ApiKey|Key)\s+)?"
            r"(?P<secret>" + _NOT_PLACEHOLDER + r"[^\s\"',;]{8,}+)"
        ),
        ("authorization",),
        lambda m: bool(m.group("scheme")) or _bearer(m),
    ),  # after a scheme, whatever it is
    SecretPattern(
        "bearer",
        re.compile(r"Bearer\s+(?P<secret>" + _NOT_PLACEHOLDER + r"[A-Za-z0-9._~+/=-]{8,}+)"),
        ("bearer",),
        _bearer,
    ),
    # the name may end a longer one (OPENAI_API_KEY, client-secret): only a letter or digit before it is refused
    SecretPattern(
        "credential",
        re.compile(
            r"(?i)(?P<name>" + _CREDENTIAL_NAME + r")[\"']?\s*(?::|=>|=)\s*(?P<quote>[\"'`])?"
            r"(?P<secret>" + _NOT_PLACEHOLDER + r"(?(quote)[^\s\"'`]{6,}(?=[\"'`])|[A-Za-z0-9_\-./+=~!@#$%^&*?]{6,}+))"
        ),
        ("key", "secret", "token", "passw", "pwd"),
        _credential,
        word_start=False,
    ),
    SecretPattern(
        "url-credentials",
        re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://(?P<secret>[^\s:/@\[\]]+:[^\s@/\[\]]+)(?=@)"),
        ("://",),
        word_start=False,
    ),
)
ID_CUE = re.compile(
    r"(?i)\b(?:student\s*(?:no\.?|number|id|#)|matric(?:ulation)?\s*(?:no\.?|number)?|"
    r"\bid\b\s*(?:no\.?)?)\s*[:#]?\s*([A-Z]?\d{5,12})"
)
NAME_CUE = re.compile(
    r"(?:\bI'm|\bI am|\b[Mm]y name is|\bName:|\bsubmit as)\s+"
    r"([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?){1,2})"
)
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
    text = scrub_private_keys(text)
    lowered = text.lower()
    for secret in SECRETS:
        text = secret.sub(text, lowered)
    if "@" in text:
        text = EMAIL.sub("[email]", text)
    return scrub_obfuscated_emails(text)


def scrub(text: str, identities: Identities | None = None) -> str:
    """``text`` with personal data and secrets replaced by placeholders.

    >>> scrub("I'm Ada Byron (ada@example.org), key sk-proj-abcdefghijklmnopqrstu")
    "I'm [name] ([email]), key [secret:openai]"
    """
    identities = identities or harvest_identities([text])
    text = scrub_secrets(text)
    # one pass each, longest first: a full name goes before its parts
    if identities.ids:
        text = re.sub(_alternation(identities.ids), "[id]", text)
    if identities.names:
        text = re.sub(_alternation(identities.names), "[name]", text)
        text = re.sub(r"\[name\](?:\s+\[name\])+", "[name]", text)
    return text


def _alternation(words: set[str]) -> str:
    return r"\b(?:" + "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w))) + r")\b"
