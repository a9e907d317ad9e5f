"""The scrubber: each kind of secret and each e-mail form is caught; prose and code are left alone.

The secrets below are shaped like real ones and are not real (AWS's documentation examples, jwt.io's
sample token, made-up characters elsewhere).
"""

from __future__ import annotations

import pytest

from cojudge_assets.core.ingest.scrub import PLACEHOLDER, harvest_identities, scrub, scrub_secrets

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2M"
    "jM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u"

# (kind, text containing the secret, the secret itself: must be gone, placeholder expected)
SECRETS = [
    ("jwt", f"my token is {JWT} ok", JWT, "[secret:jwt]"),
    ("jwt after Bearer", f"curl -H 'X: 1' Bearer {JWT}", JWT, "Bearer [secret:jwt]"),
    (
        "jwt without signature",
        "alg none: eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        "[secret:jwt]",
    ),
    (
        "jwt with a spaced header",
        "ewogICJhbGciOiAiSFMyNTYiCn0.eyJzdWIiOiJ4eXoifQ.c2lnbmF0dXJlMTIz",
        "c2lnbmF0dXJlMTIz",
        "[secret:jwt]",
    ),
    ("authorization header", f'-H "Authorization: Bearer {JWT}"', JWT, "Authorization: Bearer [secret:jwt]"),
    (
        "authorization opaque",
        "Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543abc",
        "8f14e45fceea167a5a36dedd4bea2543abc",
        "Authorization: Bearer [secret:authorization]",
    ),
    (
        "authorization basic",
        "authorization: Basic dXNlcjpwYXNzd29yZDEyMw==",
        "dXNlcjpwYXNzd29yZDEyMw==",
        "authorization: Basic [secret:authorization]",
    ),
    (
        "authorization basic short",
        "Authorization: Basic dXNlcjpwYXNz",
        "dXNlcjpwYXNz",
        "Authorization: Basic [secret:authorization]",
    ),
    (
        "authorization in a dict",
        "headers = {'Authorization': 'token 0123456789abcdef0123'}",
        "0123456789abcdef0123",
        "'Authorization': 'token [secret:authorization]'",
    ),
    (
        "authorization digest",
        'Authorization: Digest username="ada", response="6629fae49393a05397450978507c4ef1"\nnext line',
        "6629fae4939",
        "Authorization: Digest [secret:authorization]\nnext line",
    ),
    ("bearer opaque", "use Bearer ya2x9Gh6Kd83Jd02mQpZ7 here", "ya2x9Gh6Kd83Jd02mQpZ7", "Bearer [secret:bearer] here"),
    (
        "openai project",
        "key sk-proj-8J0J5gxx1A15sqxHY6JhHnRK2EQ46E7SHZxvrYsx.",
        "sk-proj-8J0J5",
        "key [secret:openai].",
    ),
    (
        "openai legacy",
        "OPENAI 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",
        "3rgJYYEYozeC",
        "OPENAI [secret:openai]",
    ),
    ("openai service account", "sk-svcacct-AbCdEfGhIjKlMnOpQrStUv0123", "AbCdEfGhIjKl", "[secret:openai]"),
    ("anthropic", "sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE-dC_bA", "Zx9yW8vU7", "[secret:anthropic]"),
    ("github classic", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c", "[secret:github]"),
    ("github oauth", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c", "[secret:github]"),
    (
        "github fine-grained",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123",
        "11ABCDEFG0123",
        "[secret:github]",
    ),
    ("slack bot", "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx", "1234567890-0987", "[secret:slack]"),
    ("slack user", "xoxp-1234567890-0987654321-1122334455-abcdef0123456789", "1122334455", "[secret:slack]"),
    ("slack legacy", "xoxs-1234567890-abcdefghij", "1234567890-abc", "[secret:slack]"),
    ("aws access key", "id AKIAIOSFODNN7EXAMPLE in config", "AKIAIOSFODNN7EXAMPLE", "id [secret:aws-access-key] in"),
    (
        "aws secret key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI",
        "aws_secret_access_key = [secret:aws-secret-key]",
    ),
    (
        "aws configure prompt",
        "AWS Secret Access Key [None]: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI",
        "AWS Secret Access Key [None]: [secret:aws-secret-key]",
    ),
    ("google", "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "SyDdI0hCZtE6", "[secret:google]"),
    ("huggingface", "HF: hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "AbCdEfGhIjKl", "HF: [secret:huggingface]"),
    ("stripe secret", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWD", "[secret:stripe]"),
    ("stripe publishable", "pk_live_51H8abcDEFghiJKLmnoPQRstu", "51H8abcDEF", "[secret:stripe]"),
    ("stripe test", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWD", "[secret:stripe]"),
    ("generic api_key", "api_key=9a8b7c6d5e4f3a2b1c0d", "9a8b7c6d5e4f", "api_key=[secret:credential]"),
    ("generic env", "export MY_SERVICE_API_KEY=Xy7dk29dkLq0", "Xy7dk29dkLq0", "MY_SERVICE_API_KEY=[secret:credential]"),
    ("generic token yaml", "token: 1f2e3d4c5b6a7988", "1f2e3d4c5b6a7988", "token: [secret:credential]"),
    ("generic json", '{"client_secret": "q9W8e7R6t5Y4"}', "q9W8e7R6t5Y4", '"client_secret": "[secret:credential]"'),
    ("generic quoted", "password = 'correcthorse'", "correcthorse", "password = '[secret:credential]'"),
    ("generic password symbol", "password: hunter!two", "hunter!two", "password: [secret:credential]"),
    (
        "url credentials",
        "postgres://admin:s3cr3tpw@db.example.net/app",
        "s3cr3tpw",
        "postgres://[secret:url-credentials]@db.example.net/app",
    ),
    ("gitlab", "glpat-AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIjKl", "[secret:gitlab]"),
    (
        "slack webhook",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "T00000000/B0",
        "hooks.slack.com/services/[secret:slack]",
    ),
]

PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY[::-1]}\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(("kind", "text", "secret", "expected"), SECRETS, ids=[s[0] for s in SECRETS])
def test_each_kind_of_secret_is_replaced_by_its_typed_placeholder(kind, text, secret, expected):
    clean = scrub(text)
    assert secret not in clean, kind
    assert expected in clean, (kind, clean)


@pytest.mark.parametrize(
    "header",
    [
        "RSA PRIVATE KEY",
        "PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "EC PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ],
)
def test_private_key_blocks_go_whole(header):
    block = PEM.replace("RSA PRIVATE KEY", header)
    clean = scrub(f"my key:\n{block}\nwhy does ssh fail?")
    assert clean == "my key:\n[secret:private-key]\nwhy does ssh fail?"


def test_a_private_key_pasted_without_its_end_line_goes_to_its_last_base64_line():
    clean = scrub(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\nand then it broke")
    assert PEM_BODY[:20] not in clean and clean == "[secret:private-key]\nand then it broke"


EMAILS = [
    "ada.lovelace@example.org",
    "ada (at) example (dot) org",
    "ada(at)example(dot)org",
    "ada [at] example [dot] com",
    "ada [ at ] cs [ dot ] uni [ dot ] edu",
    "ada {at} example {dot} io",
    "ada <at> example <dot> net",
    "ada AT example DOT com",
    "ada at example dot com",
    "ada.lovelace at mail dot example dot ac dot uk",
    "ada dot lovelace (at) example (dot) org",
    "ada (at) example.org",
    "ada @ example.org",
    "ada@example (dot) org",
]


@pytest.mark.parametrize("address", EMAILS)
def test_each_email_form_is_replaced(address):
    assert scrub(f"write to {address} please.") == "write to [email] please."


KEPT = [
    "look at example.com for the docs",
    "the dot product at index i is what you want",
    "I looked at it dot by dot",
    "we meet at noon; at least try DP",
    "Bearer of bad news: the greedy fails",
    "Authorization: required for every endpoint",
    "The secret: sort first, then two pointers.",
    "the token: identifier, then a paren",
    "the password is never stored",
    "sk-learn and scikit-learn are the same thing",
    "use risk-free-rate-in-percent as the name",
    "tokens are split by spaces",
    "A @ B.T is the matrix product",
    "result = weights @ self.inputs",
    "see https://example.com/a.b.c and io.github.user",
    "com.example.project.Main is the class",
    "sha256 5d41402abc4b2a76b9719d911017c592ad5e8a2f9c1b3d4e5f60718293a4b5c6 matches",
]

CODE = [
    "int sk = 0;\nlong long ans = 1000000007;",
    "String token = st.nextToken();\nint n = Integer.parseInt(token);",
    'char *token = strtok(line, " ");\nwhile (token != NULL) token = strtok(NULL, " ");',
    "token = input().split()\npassword = input('pw: ')",
    "tokens = line.split()\nMAX_TOKEN = 1000000007",
    'const string SECRET = "abc";',
    'h = "5d41402abc4b2a76b9719d911017c592"  # md5 of hello',
    '@Override\npublic String toString() { return a + "@" + b; }',
    '@app.route("/")\ndef index():\n    return x @ w.T',
    "std::vector<int> a(n); for (auto &x : a) std::cin >> x;",
    'access_token = get_access_token(client)\napi_key = os.environ["OPENAI_API_KEY"]',
    'headers = {"Authorization": f"Bearer {api_key}"}',
    "int id = 100000; // at most 10^5 ids",
    "System.out.println(aVeryLongVariable.anotherLongField.third);",
    "mytoken = a1b2c3d4e5f6; risky-sk-a1b2c3d4e5f6g7h8i9j0k1; path.eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig12345",
]


@pytest.mark.parametrize("text", KEPT + CODE)
def test_prose_and_code_are_kept_as_they_are(text):
    assert scrub(text) == text


@pytest.mark.parametrize("text", [s[1] for s in SECRETS] + EMAILS + [PEM])
def test_scrubbing_twice_changes_nothing(text):
    once = scrub(text)
    assert scrub(once) == once
    assert PLACEHOLDER.search(once)


def test_everything_in_one_message():
    message = "\n".join([s[1] for s in SECRETS] + [PEM] + EMAILS)
    clean = scrub(message)
    for _, _, secret, _ in SECRETS:
        assert secret not in clean
    assert PEM_BODY[:20] not in clean and "@" not in clean.replace("[secret:url-credentials]@", "")
    assert clean.count("[email]") == len(EMAILS)


def test_names_and_ids_are_still_found_across_messages():
    first = "Hi, I'm Mara Lindqvist, student no. 2023123456, mail mara (at) uni (dot) edu"
    later = "Lindqvist again; my id 2023123456; Bearer 9f8e7d6c5b4a39281706"
    clean = scrub(first + "\n" + later, harvest_identities([first, later]))
    for leaked in ("Mara", "Lindqvist", "2023123456", "mara (at)", "9f8e7d6c5b4a"):
        assert leaked not in clean
    assert clean.startswith("Hi, I'm [name], student no. [id], mail [email]")


def test_scrub_secrets_leaves_names_to_scrub():
    assert scrub_secrets("I'm Ada Byron, ada@example.org") == "I'm Ada Byron, [email]"


def test_an_address_split_over_many_at_forms_is_found_once_each():
    text = " and ".join(f"user{i} (at) host{i} (dot) org" for i in range(50))
    assert scrub(text) == " and ".join(["[email]"] * 50)
