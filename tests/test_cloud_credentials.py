"""Credentials of the clouds (issue 16 §5): AWS pairs, GCP service accounts, PEM keys, Azure keys, JWTs."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner import api
from scanner.catalog import Catalog
from scanner.detectors.content import ContentDetector
from scanner.fileview.view import FileView
from scanner.kinds.credentials import CredentialEvidence
from scanner.model import FileMeta
from scanner.options import ScanOptions
from scanner.render import RENDERERS, render
from scanner.targets import Walker
from scanner.targets.base import FileEntry
from tests.conftest import REPO, ScanFn, write

DATA = REPO / "tests/data/credentials"


def sha(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def by_sha(doc: dict) -> dict[str, dict]:
    return {c["sha256"]: c for c in doc["credentials"]}


def _tree(root: Path) -> None:
    write(root, "/home/dev/.aws/credentials", (DATA / "aws.credentials").read_bytes())
    write(root, "/home/dev/.aws/config", (DATA / "aws.config").read_bytes())
    write(root, "/home/dev/bin/aws-bedrock.sh", (DATA / "aws-bedrock.sh").read_bytes())
    write(root, "/srv/k8s/ai-router.configmap.yaml", (DATA / "ai-router.configmap.yaml").read_bytes())
    write(root, "/srv/secrets/litellm.sops.json", (DATA / "litellm.sops.json").read_bytes())
    write(root, "/srv/agent/.env", (DATA / "azure.env").read_bytes())


def test_aws_secret_keys_are_found_paired_and_placeholders_left_out(tmp_path: Path, scan_dir: ScanFn) -> None:
    _tree(tmp_path)
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    for key_id, secret, line in [
        ("AKIAZ2FAKE7KEYQ2ID3A", "Zq3FAKEsecret/Key+Value0123456789abcdXYZ", 4),
        ("ASIAZ2FAKE7KEYQ2ID3B", "Zq3FAKEsecret/Key+Value0123456789abcdZWQ", 8),
    ]:
        entry = creds[sha(secret)]
        assert (entry["type"], entry["vendor"], entry["route"]) == ("aws-secret-access-key", "aws", "bedrock")
        assert entry["redacted"] == "…" + secret[-4:]
        assert entry["paired_with"] == sha(key_id)  # the id of its own profile, not the other one
        assert [(x["path"], x["line"]) for x in entry["locations"]] == [("/home/dev/.aws/credentials", line)]
        assert creds[sha(key_id)]["type"].startswith("aws-")
    shown = {c["redacted"] for c in doc["credentials"]}
    assert not any("EXAMPLE" in s or "your" in s for s in shown)
    assert sha("AKIAIOSFODNN7EXAMPLE") not in creds and sha("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") not in creds
    # The real samples: a Bedrock API key (a fake of the real format), ENV_* references and sops ENC[...] are
    # no secrets, nor the `sk-...` and `xxxx` placeholders.
    paths = {x["path"] for c in doc["credentials"] for x in c["locations"]}
    assert not paths & {"/srv/k8s/ai-router.configmap.yaml", "/srv/secrets/litellm.sops.json"}
    assert {c["type"] for c in doc["credentials"] if "/home/dev/bin/aws-bedrock.sh" in
            {x["path"] for x in c["locations"]}} == {"aws-bedrock-api-key"}


def test_azure_key_in_env_has_vendor_and_route(tmp_path: Path, scan_dir: ScanFn) -> None:
    _tree(tmp_path)
    write(tmp_path, "/etc/proxy/keys/azure.key", "0a1b2c3d4e5f60718293a4b5c6d7e8f9\n")
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    env = creds[sha("7c1e4f2a9b8d3e6f0a5b4c3d2e1f0a9b")]
    assert (env["type"], env["vendor"], env["route"], env["redacted"]) == (
        "azure-openai-api-key", "microsoft", "azure", "…0a9b"
    )
    keyfile = creds[sha("0a1b2c3d4e5f60718293a4b5c6d7e8f9")]
    assert (keyfile["vendor"], keyfile.get("route")) == ("microsoft", "azure")
    assert not [c for c in doc["credentials"] if c["redacted"] in ("…", "sk-…")]


def test_a_key_file_named_with_txt_is_read_unless_its_place_is_docs(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/dev/.config/mistral_api_key.txt", "Zq3xW8vB2nM5kL7pR9tY4uI6oA1sD0fG\n")
    write(tmp_path, "/srv/app/examples/api_key.txt", "Hh3xW8vB2nM5kL7pR9tY4uI6oA1sD0fQ\n")
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    assert creds[sha("Zq3xW8vB2nM5kL7pR9tY4uI6oA1sD0fG")]["vendor"] == "mistral"
    assert sha("Hh3xW8vB2nM5kL7pR9tY4uI6oA1sD0fQ") not in creds  # an example's key is documentation


@pytest.fixture
def pem(tmp_path: Path) -> str:
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl")
    out = subprocess.run(
        ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        check=True, capture_output=True, text=True,
    ).stdout
    return out.strip()


def test_gcp_service_account_and_pem_keys(tmp_path: Path, scan_dir: ScanFn, pem: str) -> None:
    escaped = pem.replace("\n", "\\n") + "\\n"
    account = (DATA / "service-account.json").read_text().replace("@PRIVATE_KEY@", escaped)
    write(tmp_path, "/home/dev/.config/gcloud/agent-sa.json", account)
    write(tmp_path, "/etc/ssl/private/agent.key", pem + "\n")  # the same key as a PEM file
    ec = pem.replace("BEGIN PRIVATE KEY", "BEGIN OPENSSH PRIVATE KEY").replace("END PRIVATE", "END OPENSSH PRIVATE")
    write(tmp_path, "/opt/app/deploy.sh", f"cat > id <<EOF\n{ec}\nEOF\n")
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    key = creds[sha(pem)]  # hashed as the block a file holds, whether escaped in JSON or not
    assert (key["type"], key["vendor"], key["route"]) == ("gcp-service-account-key", "google", "vertex")
    assert key["paired_with"] == sha("3f1c2b7a9d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a")
    body_tail = [c for c in pem.splitlines()[-2] if c.isalnum() or c in "+/"][-4:]
    assert key["redacted"] == "BEGIN PRIVATE KEY…" + "".join(body_tail)
    paths = {x["path"] for x in key["locations"]}
    assert paths == {"/home/dev/.config/gcloud/agent-sa.json", "/etc/ssl/private/agent.key"}
    other = creds[sha(ec)]
    assert (other["type"], other["vendor"]) == ("private-key", None)
    assert other["redacted"].startswith("BEGIN OPENSSH PRIVATE KEY…")


JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6ImFnZW50LTEiLCJ0eXAiOiJKV1QifQ"
    ".eyJpc3MiOiJodHRwczovL2F1dGgub3BlbmFpLmNvbSIsInN1YiI6ImFnZW50LWJvdCIsImV4cCI6MTc5OTk5OTk5OX0"
    ".Q2hlY2tzdW1PZkFGYWtlU2lnbmF0dXJlRm9yVGVzdHNPbmx5X19fXw"
)
JWT_IO = (  # jwt.io's own example: a placeholder
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def test_jwt_is_a_credential_and_no_secret_reaches_any_format(
    tmp_path: Path, catalog: Catalog, pem: str
) -> None:
    _tree(tmp_path)
    write(tmp_path, "/var/log/agent/agent.log", f"auth ok bearer={JWT}\nexample {JWT_IO}\n")
    write(tmp_path, "/etc/ssl/private/agent.key", pem + "\n")
    inv = api.scan(Walker(str(tmp_path)), api.ScanRequest(ScanOptions()), catalog)
    jwt = [c for c in inv.credentials if c.sha256 == sha(JWT)]
    assert jwt and (jwt[0].type, jwt[0].redacted) == ("jwt", "eyJ…" + JWT[-4:])
    assert not [c for c in inv.credentials if c.sha256 == sha(JWT_IO)]
    secrets = [
        JWT, "Zq3FAKEsecret/Key+Value0123456789abcdXYZ", "7c1e4f2a9b8d3e6f0a5b4c3d2e1f0a9b",
        pem.splitlines()[1], "ABSKQmVkcm9ja0FQSUtleS1mYWtl",
    ]
    for fmt in RENDERERS:
        out = render(fmt, inv)
        leaked = [s[:8] for s in secrets if s in out]
        assert not leaked, f"{fmt} shows a secret"


def test_terraform_aws_provider_keys_and_the_real_bedrock_samples(tmp_path: Path, scan_dir: ScanFn) -> None:
    for name in ("bedrock.tf", "litellm-argocd.main.tf", "provider.tf"):
        write(tmp_path, f"/srv/infra/{name}", (DATA / name).read_bytes())
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    secret = creds[sha("Zq3FAKEsecret/Key+Value0123456789abcdTFQ")]
    assert (secret["type"], secret["route"], secret["paired_with"]) == (
        "aws-secret-access-key", "bedrock", sha("AKIAZ2FAKE7KEYQ2ID3C")
    )
    assert [(x["path"], x["line"]) for x in secret["locations"]] == [("/srv/infra/provider.tf", 4)]
    # The real samples hold model ids and `os.environ/…` references, never a secret.
    assert {x["path"] for c in doc["credentials"] for x in c["locations"]} == {"/srv/infra/provider.tf"}


def test_a_librarys_own_test_keys_are_not_this_machines(tmp_path: Path, scan_dir: ScanFn, pem: str) -> None:
    """libgnutls carries PEM test vectors and a package's test .pyc a fake API key: compiled code of installed
    packages and system libraries holds its fixtures, never the agent's keys. The same key in a file is found."""
    lib = b"\x7fELF\x02\x01\x01" + b"\0" * 64 + pem.encode() + b"\0" * 64
    write(tmp_path, "/usr/lib/x86_64-linux-gnu/libgnutls.so.30.34.3", lib)
    write(tmp_path, "/opt/app/venv/lib/python3.11/site-packages/pkg/tests/__pycache__/t.cpython-311.pyc",
          b"\xa7\r\r\n" + b"\0" * 12 + pem.encode())
    write(tmp_path, "/etc/agent/keys/deploy.key", pem + "\n")
    _, doc = scan_dir(tmp_path)
    paths = {loc["path"] for c in doc["credentials"] for loc in c["locations"]}
    assert paths == {"/etc/agent/keys/deploy.key"}


def test_aws_access_key_ids_are_credentials_of_their_own_whatever_their_alphabet(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    """An id named by its key counts whatever its 16 characters (AWS documents no alphabet; older ids and its own
    docs hold digits 0-9), in the credentials file, in env and in the CLI's assume-role cache; the secret is
    paired with it."""
    write(tmp_path, "/home/dev/.aws/credentials",
          "[legacy]\naws_access_key_id = AKIAI44QH8DHBFAKE0Z9\n"
          "aws_secret_access_key = Zq3FAKEsecret/Key+Value0123456789abcdOLD\n")
    write(tmp_path, "/srv/agent/.env", "AWS_ACCESS_KEY_ID=AKIA0FAKE1FAKE8FAKE9\nAWS_REGION=us-east-1\n")
    write(tmp_path, "/home/dev/.aws/cli/cache/3f1c2b7a.json", (DATA / "aws-cli-cache.json").read_bytes())
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    legacy = creds[sha("AKIAI44QH8DHBFAKE0Z9")]
    assert (legacy["type"], legacy["vendor"], legacy["route"], legacy["redacted"]) == (
        "aws-access-key-id", "aws", "bedrock", "AKIA…E0Z9"
    )
    assert creds[sha("Zq3FAKEsecret/Key+Value0123456789abcdOLD")]["paired_with"] == sha("AKIAI44QH8DHBFAKE0Z9")
    assert creds[sha("AKIA0FAKE1FAKE8FAKE9")]["type"] == "aws-access-key-id"
    temporary = creds[sha("ASIAZ2FAKE7KEYQ2ID9C")]
    assert temporary["type"] == "aws-temporary-access-key-id"
    secret = creds[sha("Zq3FAKEsecret/Key+Value0123456789abcdCLI")]
    assert (secret["type"], secret["paired_with"]) == ("aws-secret-access-key", sha("ASIAZ2FAKE7KEYQ2ID9C"))
    assert not [c for c in doc["credentials"] if "AROA" in c["redacted"]]  # a role id is no key


def test_a_service_accounts_private_key_id_is_a_credential_paired_with_its_key(
    tmp_path: Path, scan_dir: ScanFn, pem: str
) -> None:
    escaped = pem.replace("\n", "\\n") + "\\n"
    account = (DATA / "service-account.json").read_text().replace("@PRIVATE_KEY@", escaped)
    write(tmp_path, "/etc/agent/gcp/service-account.json", account)
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    key_id = "3f1c2b7a9d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
    entry = creds[sha(key_id)]
    assert (entry["type"], entry["vendor"], entry["route"], entry["redacted"]) == (
        "gcp-service-account-key-id", "google", "vertex", "…4f3a"
    )
    assert creds[sha(pem)]["paired_with"] == sha(key_id)
    assert [(x["path"], x["line"]) for x in entry["locations"]] == [("/etc/agent/gcp/service-account.json", 4)]


CONFIGS = REPO / "tests/data/configs"
MASTER = "sk-FAKE0fake1FAKE2fake3Q"


def test_litellm_master_key_in_a_proxy_config_and_the_real_references_that_are_none(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    """The real proxy configs hold `master_key: "os.environ/LITELLM_MASTER_KEY"`, a commented one, and a compose
    default `sk-change-me`: none is a secret. The same real config with a literal key holds the proxy's master
    key, found with its vendor and route and never shown."""
    real = (CONFIGS / "litellm-proxy/ajayadahal.litellm_config.yaml").read_text()
    write(tmp_path, "/srv/litellm/reference/config.yaml", real)
    write(tmp_path, "/srv/litellm/helm/values.yaml",
          (CONFIGS / "litellm-helm-values/kong-benchmark.litellm.values.yaml").read_bytes())
    write(tmp_path, "/srv/stack/docker-compose.yml",
          (CONFIGS / "docker-compose-env/ajayadahal.docker-compose.yml").read_bytes())
    literal = real.replace('master_key: "os.environ/LITELLM_MASTER_KEY"', f"master_key: {MASTER}")
    assert literal != real
    write(tmp_path, "/etc/litellm/config.yaml", literal)
    inv, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    key = creds[sha(MASTER)]
    assert (key["type"], key["vendor"], key["route"], key["redacted"]) == (
        "litellm-master-key", "litellm", "litellm-proxy", "sk-…" + MASTER[-4:]
    )
    assert [x["path"] for x in key["locations"]] == ["/etc/litellm/config.yaml"]
    paths = {x["path"] for c in doc["credentials"] for x in c["locations"]}
    assert paths == {"/etc/litellm/config.yaml"}
    for fmt in RENDERERS:
        assert MASTER not in render(fmt, inv), f"{fmt} shows the master key"


def test_keys_in_an_installed_packages_tests_and_bundles_are_its_fixtures(
    tmp_path: Path, scan_dir: ScanFn, pem: str
) -> None:
    """mistralai ships a Google-key-shaped vector in its tests, a CLI bundle a dev server's self-signed key
    (Happy DOM's, inlined in @github/copilot's app.js): the package's, not this machine's. A key written into
    a package's non-test source is still found, and a PEM key in this machine's key file."""
    google = "AIzaSyFAKE1FAKE1FAKE1FAKE1FAKE1FAKE5678"
    site = "/opt/app/venv/lib/python3.11/site-packages"
    write(tmp_path, f"{site}/mistralai/extra/tests/test_redaction_policies.py",
          f'def test_google_key_is_redacted():\n    text = "key={google}"\n    assert redact(text) != text\n')
    escaped = pem.replace("\n", "\\n")
    write(tmp_path, "/usr/lib/node_modules/@github/copilot/app.js",
          f"var Gkn={{cert:`-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----`,key:`{escaped}`}};\n")
    hardcoded = "AIzaSyFAKE2FAKE2FAKE2FAKE2FAKE2FAKE9999"
    write(tmp_path, f"{site}/agentlib/settings.py", f'GOOGLE_API_KEY = "{hardcoded}"\n')
    write(tmp_path, "/etc/agent/keys/deploy.key", pem + "\n")
    _, doc = scan_dir(tmp_path)
    creds = by_sha(doc)
    assert sha(google) not in creds
    assert creds[sha(hardcoded)]["type"] == "google-api-key"
    assert [x["path"] for x in creds[sha(pem)]["locations"]] == ["/etc/agent/keys/deploy.key"]


_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_SECRET_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.text(_ID_CHARS, min_size=16, max_size=16),
            st.text(_SECRET_CHARS, min_size=40, max_size=40),
            st.booleans(),  # the id is written before the secret, or after it
            st.booleans(),  # the section has its id at all
        ),
        min_size=1,
        max_size=6,
        unique_by=(lambda p: p[0], lambda p: p[1]),
    )
)
def test_each_aws_secret_pairs_with_the_id_of_its_own_section_or_none(
    catalog: Catalog, profiles: list[tuple[str, str, bool, bool]]
) -> None:
    lines: list[str] = []
    for n, (tail, secret, id_first, has_id) in enumerate(profiles):
        pair = [f"aws_access_key_id = AKIA{tail}"] if has_id else []
        body = [f"aws_secret_access_key = {secret}"]
        lines += [f"[profile p{n}]", *(pair + body if id_first else body + pair), "region = us-east-1"]
    data = ("\n".join(lines) + "\n").encode()
    entry = FileEntry("/home/dev/.aws/credentials", len(data), 0o100600, 0, 0)
    view = FileView(entry, data, catalog, lambda _e: FileMeta("0600", "dev:dev"), lambda _p, _n: None)
    found = {ev.sha256: ev for ev in ContentDetector().extract(view) if isinstance(ev, CredentialEvidence)}
    for tail, secret, _, has_id in profiles:
        if catalog.is_placeholder(secret) or catalog.is_placeholder(f"AKIA{tail}"):
            continue
        ev = found[sha(secret)]
        assert ev.pair == (sha(f"AKIA{tail}") if has_id else None)
        if has_id:
            assert found[sha(f"AKIA{tail}")].type == "aws-access-key-id"
