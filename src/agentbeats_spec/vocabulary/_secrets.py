"""The one vocabulary of credentials: names, shapes, placeholders, references and environment variables, and the
one search for credential shapes in a string, by which the scan finds them and every message masks them.

Two readers decide by it. The scan (``_scan``, and ``redact``, which removes exactly what the scan finds) is ours:
a finding must be worth a person's time. The AgentCompass 1.0.1 writer's redaction (``records._persisted``, which
``write_task`` reproduces byte for byte) is not ours: its rules are those of ``runtime/config/loader.py`` and
``utils/redaction.py`` in that release, and change only with it. Each fact is stated here once; where the two
decide differently on purpose, the vocabulary has two entries, named for their reader (``SCAN_…``, ``WRITER_…``),
with the reason beside them.

It sits below every message builder (``_text``, the readers, the schema's and the rules' messages), so that any
message quoting a value from a file masks a secret in it (``masked``) as the scan's own finding does; it imports
nothing of the package.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

# What a secret becomes, in the writer's files and in a redacted copy alike.
PLACEHOLDER = "********"

# Members named so hold what was measured: the writer copies them verbatim, the scan reports what they hold and
# redaction leaves it as it is.
EVALUATION_FACTS = frozenset({"metrics", "ground_truth", "final_answer"})

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def normalized(name: str) -> str:
    """A member name as credential names are compared (by both, as the writer does): lower case, every run of
    other characters one ``_``."""
    return _SEPARATORS.sub("_", name.strip().lower()).strip("_")


# --- names ---------------------------------------------------------------------------------------------------------

# The scan's names: fewer than the writer masks. Names such as eos_token or sort_key hold no secret (the writer
# masks them for their _token and _key suffixes); a real token under any name is still found by its shape.
SCAN_NAMES = frozenset(
    {
        "api_key", "apikey", "access_key", "secret", "secret_key", "client_secret", "token", "access_token",
        "refresh_token", "auth_token", "id_token", "session_token", "password", "passwd", "authorization",
        "proxy_authorization", "cookie", "set_cookie", "private_key", "credential", "aksk", "jwt",
        "secretaccesskey", "identitytoken",
    }
)  # fmt: skip
SCAN_SUFFIXES = (
    "_api_key", "_apikey", "_access_key", "_secret_key", "_private_key", "_client_secret", "_password", "_passwd",
    "_access_token", "_auth_token", "_refresh_token", "_session_token",
)  # fmt: skip

# The writer's names (loader.py: _SENSITIVE_EXACT_KEYS, _SENSITIVE_SUFFIXES, _NON_SENSITIVE_EXACT_KEYS). Broader by
# suffix (_key, _token: eos_token, sort_key), narrower by name (no secret, no credential): the writer's choice.
WRITER_NAMES = frozenset(
    {"aksk", "token_id", "authorization", "cookie", "jwt", "password", "proxy_authorization", "set_cookie", "token"}
)
WRITER_SUFFIXES = ("_key", "_secret", "_token", "_jwt", "_password")
# wrap_api_key is one of the writer's model settings (a boolean), not a key; the scan needs no such exception, as it
# reports strings only.
WRITER_NOT_NAMES = frozenset({"wrap_api_key"})
# Members whose every value the writer masks, whatever their names (loader.py: _SENSITIVE_CONTAINER_KEYS): the scan
# reports what is in them by name and shape only, as a header or an environment may hold ordinary values.
WRITER_CONTAINERS = frozenset(
    {
        "auth", "authentication", "credentials", "headers", "env", "env_variables", "run_env_variables",
        "evaluation_env_variables", "evaluation_environment_env_variables",
    }
)  # fmt: skip


def is_credential_name_for_scan(name: str) -> bool:
    """Whether a string under this name is reported (and so redacted by ``redact``) unless it is a placeholder."""
    key = normalized(name)
    return key in SCAN_NAMES or key.endswith(SCAN_SUFFIXES)


def is_basic_credentials_member(name: str, value: str) -> bool:
    """Whether a member is a Docker-style ``auth``: base64 of ``user:password`` (``auths`` in config.json)."""
    return normalized(name) == "auth" and _base64_credentials(value)


def is_credential_name_for_writer(name: str) -> bool:
    """Whether the AgentCompass writer masks the value of a member of this name (``eos_token`` included)."""
    key = normalized(name)
    return key not in WRITER_NOT_NAMES and (key in WRITER_NAMES or key.endswith(WRITER_SUFFIXES))


def is_writer_container(name: str) -> bool:
    """Whether the AgentCompass writer masks every value inside a member of this name."""
    return normalized(name) in WRITER_CONTAINERS


# --- values that are no secret -------------------------------------------------------------------------------------

# A value naming where a secret comes from ("${OPENAI_API_KEY}") is not the secret; both compare it with the value
# stripped of white space (loader.py: _ENV_REF_RE).
REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def is_reference(value: str) -> bool:
    return REFERENCE.fullmatch(value.strip()) is not None


def is_placeholder(value: Any) -> bool:
    """For the scan, nothing to hide: empty, already masked (only ``*``), or a reference."""
    if value is None or value == "":
        return True
    if not isinstance(value, str):
        return False
    return set(value.strip()) <= {"*"} or is_reference(value)


def is_kept_by_writer(value: Any) -> bool:
    """For the writer, only ``null``, ``""`` and a reference stay (loader.py: redact_secret_value).

    It masks ``"**"`` and ``"  "`` anew, which the scan takes for placeholders: masking a mask changes nothing a
    person could use, so the scan does not report one.
    """
    return value is None or value == "" or (isinstance(value, str) and is_reference(value))


# --- shapes --------------------------------------------------------------------------------------------------------

# An sk- key, as the writer masks it in free text (utils/redaction.py). The scan reports the same shape, but only
# when it looks random (below): a CSS class such as sk-fading-circle is words, and the writer, which may hide more
# than is reported, masks it all the same.
SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{12,}\b")


def looks_random(secret: str) -> bool:
    """Whether a token looks generated rather than written: a digit in it, or both cases of letters.

    A random base62 token has neither with a probability of 2 in a million at 16 characters (the shortest bearer
    token reported), under 1 in 10^14 at 40; words ("Bearer authentication", "sk-fading-circle") and placeholders
    ("Bearer YOUR_TOKEN_HERE") have neither.
    """
    return any(c.isdigit() for c in secret) or (any(c.islower() for c in secret) and any(c.isupper() for c in secret))


def _base64_credentials(secret: str) -> bool:
    """Whether a base64 string decodes to ``user:password`` (HTTP Basic credentials, a Docker ``auth``)."""
    try:
        decoded = base64.b64decode(secret + "=" * (-len(secret) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    _user, colon, password = decoded.partition(":")
    return bool(colon) and bool(password) and decoded.isprintable()


# A password that names where the password comes from, or says there is one: no secret.
_NOT_A_PASSWORD = re.compile(
    r"(?i)\$\{[^}]*\}|\$\(?[A-Za-z_][A-Za-z0-9_]*\)?|%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^}]*\}\}|<[^>]*>|\[[^\]]*\]"
    r"|(?:your[_-]?)?(?:password|passwd|pass|pwd|secret|token|xxx+|\.\.\.)"
)


def _a_password(match: re.Match[str], secret: str) -> bool:
    return _NOT_A_PASSWORD.fullmatch(secret) is None and not is_placeholder(secret)


def _random(match: re.Match[str], secret: str) -> bool:
    return looks_random(secret)


def _basic(match: re.Match[str], secret: str) -> bool:
    return _base64_credentials(secret)


def _credential_assignment(match: re.Match[str], secret: str) -> bool:
    name = match.group("name")
    bare = match.start("bare") >= 0
    if bare and match.group("export") is None and not name.isupper():
        return False
    return is_credential_name_for_scan(name) and _a_password(match, secret)


class Shape(NamedTuple):
    """A well-known credential shape: what it is (for messages), its pattern, the groups that may hold the secret
    (the first that took part in the match is it; 0: the whole match), the ``type`` a ``.secrets.baseline`` entry
    names it by (detect-secrets' own name where it has one), and a test on the secret found, if any."""

    what: str
    pattern: re.Pattern[str]
    groups: tuple[int, ...]
    baseline_type: str
    accepts: Callable[[re.Match[str], str], bool] | None = None
    # Text of which each match holds one, lower-cased: a string without any of them is not searched for the shape.
    needs: tuple[str, ...] = ()


# The scan's shapes, each with the group that is the secret itself (a bearer token without "Bearer", a URL's
# password alone). On the same start, the shape listed first wins (sk-ant- before sk-).
_SHAPES: tuple[Shape, ...] = (
    Shape("an Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), (0,), "Anthropic API Key"),
    Shape("an OpenAI API key", SK_KEY, (0,), "OpenAI Token", _random),
    Shape(
        "a GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        (0,),
        "GitHub Token",
    ),
    Shape("a GitLab token", re.compile(r"\bgl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,}"), (0,), "GitLab Token"),
    Shape("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), (0,), "AWS Access Key"),
    # A secret access key is 40 characters of base64, which many hashes are too: it is reported next to a name
    # that says what it is (AWS_SECRET_ACCESS_KEY=, aws_secret_access_key = in ~/.aws/credentials, the
    # SecretAccessKey member aws sts prints).
    Shape(
        "an AWS secret access key",
        re.compile(
            r"(?i)(?:\baws[A-Za-z0-9_.-]{0,20}?(?:secret|sk)[A-Za-z0-9_.-]{0,20}?|\bsecret_?access_?key)"
            r"[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        (1,),
        "AWS Access Key",
    ),
    # Preceded by anything (key_AIza…, a key glued to a word): 39 characters that begin so are a key.
    Shape("a Google API key", re.compile(r"AIza[0-9A-Za-z_-]{35}"), (0,), "Google API Key"),
    Shape("a Google OAuth client secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{28}"), (0,), "Google OAuth Secret"),
    Shape("a Google OAuth access token", re.compile(r"\bya29\.[A-Za-z0-9_-]{20,}"), (0,), "Google OAuth Token"),
    Shape(
        "a Slack webhook URL",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}"),
        (0,),
        "Slack Token",
    ),
    Shape("a Slack token", re.compile(r"\b(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{10,}"), (0,), "Slack Token"),
    Shape("a Stripe secret key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}"), (0,), "Stripe Access Key"),
    Shape("a Stripe webhook secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}"), (0,), "Stripe Webhook Secret"),
    Shape("a Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), (0,), "Hugging Face Token"),
    Shape("a SendGrid API key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}"), (0,), "SendGrid API Key"),
    Shape("an npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), (0,), "NPM tokens"),
    Shape("a PyPI token", re.compile(r"\bpypi-Ag[A-Za-z0-9_-]{50,}"), (0,), "PyPI Token"),
    Shape(
        "an Azure storage account key",
        re.compile(r"\bAccountKey=([A-Za-z0-9+/]{40,}={0,2})"),
        (1,),
        "Azure Storage Account access key",
    ),
    Shape(
        "an Azure shared access signature",
        re.compile(r"(?<=[?&;])sig=([A-Za-z0-9%+/=]{20,})"),
        (1,),
        "Azure Storage Shared Access Signature",
    ),
    # The writer masks whatever follows "Bearer"; the scan wants a token: its length and the look of a generated
    # string, so prose ("Bearer token", "Bearer authentication") and placeholders are no finding.
    Shape("a bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})"), (1,), "Bearer Token", _random),
    Shape(
        "HTTP Basic credentials",
        re.compile(r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+([A-Za-z0-9+/]{4,}={0,2})"),
        (1,),
        "Basic Auth Credentials",
        _basic,
    ),
    # A private key with its body and end line when the string holds them (a key a tool printed), else the line
    # that begins it: every -----BEGIN … PRIVATE KEY----- (RSA, EC, DSA, OPENSSH, ENCRYPTED, none) and the PGP
    # PRIVATE KEY BLOCK, the SSH2 (---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----) and PuTTY forms. The body stops at
    # the first "-----", so that a search costs time linear in the text.
    Shape(
        "a private key block",
        re.compile(
            r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----(?:[^-]*(?:-(?!----)[^-]*)*-----END \1-----)?"
            r"|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----|PuTTY-User-Key-File-[0-9]+:"
        ),
        (0,),
        "Private Key",
    ),
    # A Docker config.json printed as text: {"auths": {"registry": {"auth": base64 of user:password}}}.
    Shape(
        "a Docker registry auth",
        re.compile(r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{4,}={0,2})\""),
        (1,),
        "Basic Auth Credentials",
        _basic,
    ),
    Shape(
        "a JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        (0,),
        "JSON Web Token",
    ),
    # Any scheme (of 32 characters at most, so that a search costs time linear in the text), a user name or none
    # (https://:TOKEN@host), a password of three characters or more; not one already masked (only "*"), a
    # reference (${DB_PASSWORD}, $DB_PASSWORD, {{ password }}) or a word standing for one (password, <password>).
    # The writer masks http(s) URLs only, user name included.
    Shape(
        "a URL with a password",
        re.compile(r"\b[a-z][a-z0-9+.-]{0,31}://[^\s/:@\"']*:([^\s/@\"']{3,})@"),
        (1,),
        "Basic Auth Credentials",
        _a_password,
    ),
    # A .netrc entry: "machine HOST login USER password SECRET" on a line, or a line of its own saying
    # "password SECRET" (the entry written over several lines).
    Shape(
        "a .netrc password",
        re.compile(
            r"(?im)(?:\b(?:machine\s+\S+|default)(?:\s+login\s+\S+)?\s+password|^[ \t]*password)[ \t]+(\S+)"
            r"(?=[ \t]*$|\s+(?:account|macdef|machine|default|login)\b)"
        ),
        (1,),
        "Secret Keyword",
        _a_password,
    ),
    # A shell (or .env) assignment of a credential-like name, as the scan's names are (DB_PASSWORD, API_KEY,
    # GITHUB_TOKEN): "export DB_PASSWORD=…", "DB_PASSWORD='…' ./run", "set TOKEN=…". A value written bare is one
    # only after export (or set, declare -x) or under a name in capitals, as environment variables are named: in
    # code, api_key=api_key and password=getpass() are no secrets, while a quoted literal always is one.
    Shape(
        "a credential assigned in a shell",
        re.compile(
            r"(?m)(?:^|(?<=[\s;&|(]))(?P<export>(?:export|set|declare\s+-x)\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)="
            r"(?:\"([^\"\n]{3,})\"|'([^'\n]{3,})'|(?P<bare>[^\s\"'`;&|()<>\[\]{},]{3,})(?=[\s;&|)]|$))"
        ),
        (3, 4, 5),
        "Secret Keyword",
        _credential_assignment,
    ),
)
# The words every scan name (SCAN_NAMES, SCAN_SUFFIXES) ends in.
_NAME_ENDINGS = ("key", "secret", "token", "password", "passwd", "authorization", "cookie", "credential", "aksk", "jwt")
# What each shape's matches hold (lower-cased): a string is searched only for the shapes whose text it holds, so
# that a scan costs a few substring searches on most strings.
_NEEDS: dict[str, tuple[str, ...]] = {
    "an Anthropic API key": ("sk-ant-",),
    "an OpenAI API key": ("sk-",),
    "a GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "a GitLab token": ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-"),
    "an AWS access key id": ("akia", "asia"),
    "an AWS secret access key": ("aws", "secret"),
    "a Google API key": ("aiza",),
    "a Google OAuth client secret": ("gocspx-",),
    "a Google OAuth access token": ("ya29.",),
    "a Slack webhook URL": ("hooks.slack.com/",),
    "a Slack token": ("xox", "xapp-"),
    "a Stripe secret key": ("_live_",),
    "a Stripe webhook secret": ("whsec_",),
    "a Hugging Face token": ("hf_",),
    "a SendGrid API key": ("sg.",),
    "an npm token": ("npm_",),
    "a PyPI token": ("pypi-",),
    "an Azure storage account key": ("accountkey=",),
    "an Azure shared access signature": ("sig=",),
    "a bearer token": ("bearer",),
    "HTTP Basic credentials": ("authorization",),
    "a private key block": ("private key", "putty-user-key-file-"),
    "a Docker registry auth": ('"auth"',),
    "a JSON Web Token": ("eyj",),
    "a URL with a password": ("://",),
    "a .netrc password": ("password",),
    # Every scan name ends in one of these words (DB_PASSWORD=, API_KEY=, GITHUB_TOKEN=, SECRETACCESSKEY=).
    "a credential assigned in a shell": tuple(f"{word}=" for word in _NAME_ENDINGS),
}
SCAN_SHAPES: tuple[Shape, ...] = tuple(shape._replace(needs=_NEEDS[shape.what]) for shape in _SHAPES)
# Shorter strings and lines are not searched by the scan: no shape fits in fewer characters (JWT=abc).
SCAN_SHORTEST = 7
# Whether a (lower-cased) text holds what any shape needs: one search where most texts hold none.
_ANY_NEEDED = re.compile("|".join(sorted({re.escape(needed) for shape in SCAN_SHAPES for needed in shape.needs})))

# The writer's masking of free text (issue messages, execution_diagnostics; utils/redaction.py), in its order:
# broader than the scan (any "key=value" secret, any bearer token), as a writer may hide more than is reported.
WRITER_TEXT_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?i)(bearer\s+)[^\s\"'<>]+"), r"\1" + PLACEHOLDER),
    (
        re.compile(r"(?i)((?:api[_-]?key|token|secret|password|credential)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,}]+"),
        r"\1" + PLACEHOLDER,
    ),
    (re.compile(r"(https?://)[^\s/@:]+:[^\s/@]+@"), r"\1" + PLACEHOLDER + "@"),
    (SK_KEY, PLACEHOLDER),
)

# --- the search and the mask ---------------------------------------------------------------------------------------

# Below this length a secret's exact length is not shown: with a keyed fingerprint, the length is what would narrow a
# guess at a short password (longer secrets are keys and tokens, whose length their shape already says).
SHOWN_LENGTH_FROM = 32


def mask(secret: str) -> str:
    """Enough to recognise a secret, never enough to use it: its first characters (from 12 characters) and its
    length (exactly from ``SHOWN_LENGTH_FROM`` characters, else only that it is shorter)."""
    shown = secret[:4] if len(secret) >= 12 else ""
    long = len(secret) >= SHOWN_LENGTH_FROM
    length = f"{len(secret)} characters" if long else f"under {SHOWN_LENGTH_FROM} characters"
    return f"{shown}…({length})"


def masked(text: str, named: str | None = None) -> str:
    """The text with every credential shape in it replaced by its mask: the one masking of values that messages
    quote (a ``status`` or a member name holding a token), whatever builds the message. ``named``: the value of a
    credential member (a secret by its name, whatever its shape), masked where the text quotes it (``'hunter2'``,
    whole or cut short as ``_text.quote`` cuts it)."""
    if named is not None and not is_placeholder(named):
        text = _quotes_masked(text, named)
    spans = shape_matches(text)
    if not spans:
        return text
    parts, last = [], 0
    for start, end, _ in spans:
        parts += [text[last:start], mask(text[start:end])]
        last = end
    return "".join([*parts, text[last:]])


def _quotes_masked(text: str, value: str) -> str:
    """The text with every quote of ``value`` as ``repr`` writes it (whole, or its first characters then ``…``)
    replaced by the quoted mask. Only quotes are looked for, so a short value is never masked inside other words."""
    quoted = repr(value)
    mark, body = quoted[0], quoted[1:-1]
    parts, last, start = [], 0, text.find(mark)
    while start >= 0:
        inner = start + 1
        cut = text.find("…" + mark, inner, inner + len(body) + 1)
        if text.startswith(body + mark, inner):
            end = inner + len(body) + 1
        elif cut - inner >= min(3, len(body)) and body.startswith(text[inner:cut]):
            end = cut + 2
        else:
            start = text.find(mark, start + 1)
            continue
        parts += [text[last:start], repr(mask(value))]
        last = end
        start = text.find(mark, end)
    return "".join([*parts, text[last:]]) if parts else text


def shape_matches(
    text: str, allowed: Callable[[str], bool] | None = None, only: int | None = None
) -> list[tuple[int, int, int]]:
    """Every credential shape in a string, as (start, end, rank of its shape in ``SCAN_SHAPES``), sorted.

    Matches do not overlap (on the same start, the shape listed first wins). The search is repeated on the text
    with the secrets found blanked out, until it finds nothing new: masking one secret can expose another (a
    ``\\b`` before ``sk-`` once the key glued to it is gone), and every secret a redacted copy would still show
    is found here, from the start. ``allowed``: whether a secret is allowed (left in place, not reported);
    ``only``: the rank of the one shape to search for.
    """
    if len(text) < SCAN_SHORTEST:
        return []
    lowered = text.lower()
    if _ANY_NEEDED.search(lowered) is None:
        return []  # the common case: one search, not one per shape (a member name, a short value)
    shapes = [
        rank
        for rank, shape in enumerate(SCAN_SHAPES)
        if (only is None or rank == only) and any(needed in lowered for needed in shape.needs)
    ]
    if not shapes:
        return []  # the common case, at the cost of a few substring searches
    found: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int]] = set()
    work = text
    while True:
        candidates = sorted(_candidates(work, shapes))
        fresh: list[tuple[int, int, int]] = []
        last_end = -1
        for start, rank, end in candidates:
            if start < last_end or set(work[start:end]) <= {"*"}:
                continue
            last_end = end  # a secret left in place (allowed) still hides what overlaps it
            if (start, end) not in seen:
                fresh.append((start, end, rank))
        if not fresh:
            return sorted(found)
        pieces, last = [], 0
        for start, end, rank in fresh:  # in order, without overlaps
            seen.add((start, end))
            if allowed is not None and allowed(text[start:end]):
                continue
            found.append((start, end, rank))
            pieces += [work[last:start], "*" * (end - start)]
            last = end
        work = "".join([*pieces, work[last:]])


def _candidates(text: str, shapes: list[int]) -> Iterator[tuple[int, int, int]]:
    """(start, rank, end) of every match of the shapes (by rank) that its test accepts, the secret's group alone."""
    for rank in shapes:
        shape = SCAN_SHAPES[rank]
        for match in shape.pattern.finditer(text):
            group = next((group for group in shape.groups if match.start(group) >= 0), None)
            if group is None:
                continue
            start, end = match.span(group)
            if shape.accepts is None or shape.accepts(match, text[start:end]):
                yield start, rank, end


# --- environment variables -----------------------------------------------------------------------------------------

# The environment variables whose values the writer (and the v2 reader) masks in free text: named like a
# credential, their value WRITER_ENVIRONMENT_SHORTEST characters or more (utils/redaction.py). The scan never reads
# the environment: it judges files, wherever they were written.
WRITER_ENVIRONMENT_NAME = re.compile(r"(?:API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
WRITER_ENVIRONMENT_SHORTEST = 8
