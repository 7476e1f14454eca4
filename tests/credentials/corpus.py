"""The shared secret-scanning corpus of tests/data/secrets/: every case a file, labelled positive or negative.

Every secret here is FAKE: drawn from a seeded random generator in the shape of a real one (its prefix, length
and alphabet), never issued by any provider, and useless anywhere. The corpus is generated rather than written
literally so that a reader sees how each case is built; the files in tests/data/secrets/ are this module's
output, committed so that any tool can be pointed at them (``detect-secrets scan tests/data/secrets``), and
``test_corpus.py`` checks that they are what this module writes.

Positives are the shapes teams leak (issue 21): each case names the secrets a scan must report, exactly (the
characters a redaction must remove). Negatives are ordinary text that looks like a secret to a careless rule.

Regenerate with ``python -m tests.credentials.corpus``; ``python -m tests.credentials.corpus --table`` prints the
comparison with detect-secrets 1.5.0 that docs/security.md shows (``test_corpus.py`` holds the two equal).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from pathlib import Path
from typing import Any

import attrs

from agentbeats_spec import Issue

CORPUS = Path(__file__).resolve().parents[1] / "data" / "secrets"
MANIFEST = "cases.json"

_random = random.Random("agentbeats-spec fake secrets, issue 21")
_ALNUM = string.ascii_letters + string.digits


def _draw(alphabet: str, length: int) -> str:
    return "".join(_random.choice(alphabet) for _ in range(length))


def alnum(length: int) -> str:
    return _draw(_ALNUM, length)


def b64(length: int) -> str:
    return _draw(_ALNUM + "+/", length)


def urlsafe(length: int) -> str:
    return _draw(_ALNUM + "-_", length)


def _pem_body(lines: int) -> str:
    return "\n".join(b64(64) for _ in range(lines)) + "\n" + b64(20) + "=="


@attrs.frozen
class Case:
    """One file of the corpus: its name under positive/ or negative/, what it holds, and the secrets in it."""

    name: str
    label: str  # "positive" or "negative"
    what: str
    content: str
    secrets: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"{self.label}/{self.name}"


def _observation(*texts: str) -> str:
    """A tool observation in an ACTF trajectory, as a run writes it."""
    steps = [
        {"step_id": index, "source": "tool", "observation": text, "tool_name": "shell"}
        for index, text in enumerate(texts, 1)
    ]
    return json.dumps({"schema_version": "ACTF_v1.0", "steps": steps}, indent=2) + "\n"


def _positives() -> list[Case]:
    cases = []

    def case(name: str, what: str, content: str, *secrets: str) -> None:
        cases.append(Case(name, "positive", what, content, secrets))

    pgp = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{_pem_body(6)}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----"
    case("pgp-private-key.asc", "a PGP private key block in a text file", pgp + "\n", pgp)
    case("pgp-private-key-observation.json", "a PGP private key block a tool printed, body and all",
         _observation(f"$ gpg --export-secret-keys --armor\n{pgp}\n"), pgp)  # fmt: skip
    for kind in ("OPENSSH", "EC", "ENCRYPTED", "DSA"):
        header = f"-----BEGIN {kind} PRIVATE KEY-----"
        block = f"{header}\n{_pem_body(4)}\n-----END {kind} PRIVATE KEY-----"
        case(f"{kind.lower()}-private-key.json", f"a private key ({kind}) in a tool observation",
             _observation(f"cat ~/.ssh/id\n{block}\n"), block)  # fmt: skip
    pkcs8 = f"-----BEGIN PRIVATE KEY-----\n{_pem_body(8)}\n-----END PRIVATE KEY-----".replace("\n", "\r\n")
    case("private-key.pem", "a PKCS#8 private key file (CRLF line ends)", pkcs8 + "\r\n", pkcs8)
    webhook = f"https://hooks.slack.com/services/T{alnum(8).upper()}/B{alnum(10).upper()}/{alnum(24)}"
    case("slack-webhook.json", "a Slack incoming webhook URL in a tool observation",
         _observation(f"curl -X POST -d '{{\"text\": \"done\"}}' {webhook}"), webhook)  # fmt: skip
    xapp = f"xapp-1-A{alnum(10).upper()}-{_draw(string.digits, 13)}-{_draw('0123456789abcdef', 64)}"
    case("slack-app-token.log", "a Slack app-level token in a log", f"INFO socket mode: connecting with {xapp}\n",
         xapp)  # fmt: skip
    token = _draw("0123456789abcdef", 40)
    case("url-empty-user.log", "a token as the password of a URL with no user name",
         f"$ git clone https://:{token}@git.example.com/team/repo.git\nCloning into 'repo'...\n", token)  # fmt: skip
    account_key = b64(86) + "=="
    case("azure-connection-string.env", "an Azure storage connection string's AccountKey",
         "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=fakeacct;"
         f"AccountKey={account_key};EndpointSuffix=core.windows.net\n", account_key)  # fmt: skip
    signature = b64(43).replace("+", "%2B").replace("/", "%2F") + "%3D"
    sas = (f"https://fakeacct.blob.core.windows.net/results/run.tar?sv=2022-11-02&ss=b&srt=o&sp=r"
           f"&se=2026-12-01T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={signature}")  # fmt: skip
    case("azure-sas.json", "an Azure shared access signature (sig=) in a tool observation",
         _observation(f"uploading to {sas}"), signature)  # fmt: skip
    key_id, secret_key = "AKIA" + _draw(string.ascii_uppercase + "234567", 16), b64(40)
    case("aws-credentials.ini", "an AWS credentials file: the key id and the secret access key",
         f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret_key}\nregion = eu-west-1\n",
         key_id, secret_key)  # fmt: skip
    env_secret = b64(40)
    case("aws-env.sh", "an AWS secret access key exported in a shell",
         f"#!/bin/sh\nexport AWS_SECRET_ACCESS_KEY={env_secret}\naws s3 ls\n", env_secret)  # fmt: skip
    session_id, session_secret = "ASIA" + _draw(string.ascii_uppercase + "234567", 16), b64(40)
    sts = json.dumps({"Credentials": {"AccessKeyId": session_id, "SecretAccessKey": session_secret,
                                      "Expiration": "2026-12-01T00:00:00Z"}}, indent=4)  # fmt: skip
    case("aws-sts-observation.json", "aws sts output printed by a tool: key id and SecretAccessKey",
         _observation(f"$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/ci\n{sts}"),
         session_id, session_secret)  # fmt: skip
    gitlab = "glpat-" + urlsafe(20)
    case("gitlab-token.log", "a GitLab personal access token", f"using PRIVATE-TOKEN {gitlab} for the API\n",
         gitlab)  # fmt: skip
    sendgrid = f"SG.{urlsafe(22)}.{urlsafe(43)}"
    case("sendgrid.json", "a SendGrid API key in a tool observation",
         _observation(f"mail provider configured: key {sendgrid}"), sendgrid)  # fmt: skip
    npm = "npm_" + alnum(36)
    case("npmrc.txt", "an npm token in an .npmrc", f"//registry.npmjs.org/:_authToken={npm}\n", npm)
    pypi = "pypi-AgEIcHlwaS5vcmc" + urlsafe(70)
    case("pypirc.txt", "a PyPI upload token in a .pypirc",
         f"[pypi]\n  username = __token__\n  password = {pypi}\n", pypi)  # fmt: skip
    gocspx = "GOCSPX-" + urlsafe(28)
    client = {"installed": {"client_id": "123456789012-fake.apps.googleusercontent.com", "client_secret": gocspx}}
    case("google-client-secret.json", "a Google OAuth client secret (GOCSPX-)", json.dumps(client, indent=2) + "\n",
         gocspx)  # fmt: skip
    printed = "GOCSPX-" + urlsafe(28)
    case("google-client-secret-observation.json", "a Google OAuth client secret a tool printed",
         _observation(f"$ gcloud auth print-client\nclient id 1234-fake.apps.googleusercontent.com, secret {printed}"),
         printed)  # fmt: skip
    ya29 = "ya29." + urlsafe(120)
    case("google-access-token.log", "a Google OAuth access token (ya29.)",
         f"> GET /drive/v3/files HTTP/1.1\n> Authorization: Bearer {ya29}\n", ya29)  # fmt: skip
    google = "AIza" + urlsafe(35)
    case("google-api-key-observation.json", "a Google API key in a tool observation",
         _observation(f"fetching https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={google}",
                      f"GOOGLE_MAPS_KEY_{google} was rejected"), google, google)  # fmt: skip
    live, restricted = "sk_live_" + alnum(24), "rk_live_" + alnum(24)
    case("stripe-keys.log", "a Stripe live secret key and a restricted key",
         f"stripe.api_key set to {live}\nrestricted key: {restricted}\n", live, restricted)  # fmt: skip
    whsec = "whsec_" + alnum(32)
    case("stripe-webhook.env", "a Stripe webhook signing secret", f"STRIPE_WEBHOOK_SECRET={whsec}\n", whsec)
    basic = base64.b64encode(f"ci-bot:{alnum(18)}".encode()).decode()
    case("basic-auth.log", "an HTTP Basic Authorization header",
         f"> POST /upload HTTP/1.1\n> Authorization: Basic {basic}\n> Content-Length: 12\n", basic)  # fmt: skip
    netrc_one, netrc_two = alnum(20), alnum(24)
    case("netrc.txt", "a .netrc: an entry on one line and one over several lines",
         f"machine api.example.com login bot password {netrc_one}\nmachine git.example.com\n  login ci\n"
         f"  password {netrc_two}\n", netrc_one, netrc_two)  # fmt: skip
    db_password = alnum(16)
    case("export-db-password.json", "export DB_PASSWORD=... in a tool observation",
         _observation(f"$ export DB_PASSWORD={db_password}\n$ psql -h db -U app"), db_password)  # fmt: skip
    quoted = "S3cret-" + alnum(10)
    case("dotenv.env", "credential-like names assigned in a .env file, quoted and not",
         f"APP_NAME=demo\nDATABASE_PASSWORD=\"{quoted}\"\nMAX_TOKENS=1024\n", quoted)  # fmt: skip
    docker = base64.b64encode(f"ci-bot:{alnum(20)}".encode()).decode()
    config = {"auths": {"registry.example.com": {"auth": docker}}, "credsStore": ""}
    case("docker-config.json", "a Docker config.json auth (base64 user:password) under auths",
         json.dumps(config, indent=2) + "\n", docker)  # fmt: skip
    case("docker-config-observation.json", "a Docker config.json a tool printed",
         _observation("$ cat ~/.docker/config.json\n" + json.dumps(config, indent=1)), docker)  # fmt: skip
    openai = "sk-proj-" + urlsafe(48)
    anthropic = "sk-ant-api03-" + urlsafe(40)
    github = "ghp_" + alnum(36)
    hf = "hf_" + alnum(34)
    case("provider-keys.json", "OpenAI, Anthropic, GitHub and Hugging Face keys in observations",
         _observation(f"OPENAI key {openai}", f"key: {anthropic}", f"git push https://x-access-token:{github}@github.com",
                      f"HF_HOME=/tmp hf login {hf}"), openai, anthropic, github, hf)  # fmt: skip
    jwt = "eyJhbGciOiJIUzI1NiJ9." + base64.urlsafe_b64encode(b'{"sub":"fake-user"}').decode().rstrip("=") + "."
    jwt += urlsafe(43)
    case("jwt.log", "a JSON Web Token in a log", f"session cookie={jwt}; Path=/\n", jwt)
    password = alnum(14)
    case("url-password.log", "a password in a database URL", f"connecting to postgres://app:{password}@db:5432/app\n",
         password)  # fmt: skip
    bearer = urlsafe(40)
    case("bearer.json", "a bearer token in a header a tool echoed",
         _observation(f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com"), bearer)  # fmt: skip
    return cases


def _negatives() -> list[Case]:
    cases = []

    def case(name: str, what: str, content: str) -> None:
        cases.append(Case(name, "negative", what, content))

    spinner = (
        '<div class="sk-fading-circle"><div class="sk-circle1 sk-circle"></div></div>\n'
        '<div class="sk-folding-cube"><div class="sk-cube-container"></div></div>\n'
    )
    case("css-spinner.json", "CSS class names of a spinner library (sk-fading-circle)",
         _observation("$ curl -s https://example.com/loading.html\n" + spinner))  # fmt: skip
    case(
        "bearer-prose.json",
        "Bearer followed by English words",
        _observation(
            "The API expects a Bearer token in the Authorization header.",
            "I am the Bearer of bad news: the tests failed.",
            "Use Bearer authentication with the header Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
        ),
    )
    case("url-references.log", "URL passwords that are references or the word password",
         "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app\n"
         "see https://user:password@example.com/docs for the format\n"
         "redis://default:$REDIS_PASSWORD@cache:6379/0\n"
         "amqp://guest:<password>@broker:5672/\n")  # fmt: skip
    case("shell-references.sh", "credential names assigned references, placeholders and file names",
         "#!/bin/sh\nexport DB_PASSWORD=\"${DB_PASSWORD:-}\"\nexport API_KEY=$API_KEY_FROM_VAULT\n"
         "export GITHUB_TOKEN=$(cat /run/secrets/token)\nPASSWORD_FILE=/run/secrets/db\nTOKEN=********\n"
         "MAX_TOKENS=4096\n")  # fmt: skip
    digests = "\n".join(f"{_draw('0123456789abcdef', 40)} refs/heads/branch-{index}" for index in range(3))
    case("hashes.json", "commit ids, sha256 digests and a UUID in a tool observation",
         _observation(f"$ git ls-remote origin\n{digests}",
                      f"sha256:{_draw('0123456789abcdef', 64)}  image.tar",
                      "request id 3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b"))  # fmt: skip
    case("prose.txt", "prose about passwords, tokens and keys",
         "Enter the password for the user when asked.\nThe token limit is max_tokens=1024 and eos_token=</s>.\n"
         "password reset links expire after one hour\nA private key must never be committed.\n")  # fmt: skip
    case(
        "netrc-placeholder.txt",
        "a .netrc documented with placeholders",
        "machine api.example.com login bot password ${NETRC_PASSWORD}\n  password <your password>\n",
    )
    case("basic-not-credentials.log", "Authorization: Basic with a value that is no user:password",
         "Authorization: Basic realm\nBasic configuration loaded from /etc/app.conf\n")  # fmt: skip
    case(
        "python-code.json",
        "code that passes credentials by name, holding none",
        _observation(
            "client = OpenAI(api_key=api_key)\nconn = connect(user=user, password=getpass())\n"
            'token=os.environ["GITHUB_TOKEN"]\n    secret=secret_value,\nif password == "":\n'
        ),
    )
    case("config.json", "ordinary settings named like credentials but not credentials",
         json.dumps({"eos_token": "</s>", "max_tokens": 512, "sort_key": "name", "api_key": "${OPENAI_API_KEY}",
                     "auth": "oauth", "password": "********"}, indent=2) + "\n")  # fmt: skip
    return cases


def cases() -> list[Case]:
    """Every case, positives first; the same on every call (the generator is seeded anew)."""
    global _random
    _random = random.Random("agentbeats-spec fake secrets, issue 21")
    return [*_positives(), *_negatives()]


def manifest(all_cases: list[Case]) -> dict[str, Any]:
    return {
        "note": "Every secret in this corpus is FAKE, generated by tests/credentials/corpus.py.",
        "cases": [
            {"path": case.path, "label": case.label, "what": case.what, "secrets": list(case.secrets)}
            for case in all_cases
        ],
    }


def files() -> dict[str, str]:
    """Every file of the corpus, by its path under tests/data/secrets/."""
    all_cases = cases()
    written = {case.path: case.content for case in all_cases}
    written[MANIFEST] = json.dumps(manifest(all_cases), indent=2) + "\n"
    return written


def secret_lines(case: Case, content: str) -> list[set[int]]:
    """For each secret of a case, the lines of the file that hold its beginning (as written: escaped in JSON)."""
    lines = content.splitlines()
    found = []
    for secret in case.secrets:
        probes = {secret[:12], json.dumps(secret)[1:13]}
        found.append({number for number, line in enumerate(lines, 1) if any(probe in line for probe in probes)})
    return found


def detect_secrets_findings(path: Path) -> list[tuple[int, str]]:
    """(line, type) of what detect-secrets, with its default plugins and filters, reports in one file."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        collection = SecretsCollection()
        collection.scan_file(str(path))
        return sorted({(secret.line_number, secret.type) for _, secret in collection})


def sha1(secret: str) -> str:
    """What a finding names its secret by in a .secrets.baseline (its printed fingerprint is keyed: see _keys)."""
    return hashlib.sha1(secret.encode("utf-8")).hexdigest()


def secret_hash(issue: Issue) -> str:
    assert issue.secret_id is not None
    return issue.secret_id[1]


def verdict(case: Case, secrets_found: int, flagged: list[str]) -> str:
    """One cell of the comparison: a positive found, partly found or missed; a negative clean or flagged."""
    if case.label == "negative":
        return "clean" if not flagged else "**flagged**: " + ", ".join(flagged)
    if secrets_found == len(case.secrets):
        return "found"
    return "**missed**" if secrets_found == 0 else f"**{secrets_found} of {len(case.secrets)}**"


def comparison(folder: Path = CORPUS) -> str:
    """The table docs/security.md shows: each case, and what agentbeats-spec and detect-secrets 1.5.0 make of it."""
    from agentbeats_spec import scan

    rows = ["| case | what it holds | agentbeats-spec | detect-secrets 1.5.0 |", "| --- | --- | --- | --- |"]
    totals = {"ours": [0, 0], "theirs": [0, 0]}  # positives found, negatives flagged
    for case in cases():
        path = folder / case.path
        issues = [issue for issue in scan(path) if issue.code == "security.secret"]
        wanted = [sha1(secret) for secret in case.secrets]
        reported = [secret_hash(issue) for issue in issues]
        ours = sum(min(wanted.count(f), reported.count(f)) for f in set(wanted))
        theirs_found = detect_secrets_findings(path)
        lines = {line for line, _ in theirs_found}
        theirs = sum(1 for where in secret_lines(case, path.read_text(encoding="utf-8")) if where & lines)
        ours_cell = verdict(case, ours, [f"line {issue.line}" for issue in issues])
        theirs_cell = verdict(case, theirs, [f"{kind} (line {line})" for line, kind in theirs_found])
        for who, cell in (("ours", ours_cell), ("theirs", theirs_cell)):
            totals[who][case.label == "negative"] += cell in ("found",) or cell.startswith("**flagged")
        rows.append(f"| `{case.path}` | {case.what} | {ours_cell} | {theirs_cell} |")
    positives = sum(case.label == "positive" for case in cases())
    negatives = len(cases()) - positives
    rows.append(
        f"| **total** | {positives} positives, {negatives} negatives "
        f"| {totals['ours'][0]} found, {totals['ours'][1]} flagged "
        f"| {totals['theirs'][0]} found, {totals['theirs'][1]} flagged |"
    )
    return "\n".join(rows) + "\n"


def write(folder: Path = CORPUS) -> None:
    for relative, content in files().items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--table"]:
        print(comparison(), end="")
    else:
        write()
