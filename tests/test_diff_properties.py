"""diff(a, a) is empty and diff(b, a) is diff(a, b) inverted, over generated inventories."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.diff import INVERSE_KIND, Change
from scanner.diff.compare import diff_inventories
from scanner.diff.identity import canonical_json
from scanner.inventory.document import to_document
from scanner.inventory.load import from_document
from scanner.kinds import Inventory
from scanner.kinds.credentials import CredentialEntry, CredentialLocation
from scanner.kinds.endpoints import EndpointEntry
from scanner.kinds.kill_switches import KillSwitchEntry
from scanner.kinds.models import ModelEntry
from scanner.kinds.routes import RouteEntry
from scanner.kinds.sdks import SdkEntry
from scanner.kinds.sessions import SessionEntry, SessionProvider
from scanner.model import CatalogRef, Context, Location, Stats, TargetInfo
from scanner.vocab import SwitchState
from tests.conftest import examples

# Small alphabets, so that two generated inventories share things and differ in a few facts.
_paths = st.sampled_from(["/etc/a.yaml", "/etc/b.env", "/opt/x/bin/d", "/home/u/.cfg/c.toml"])
_opt = st.none() | st.sampled_from(["openai", "anthropic", "azure"])
_loc = st.builds(Location, _paths, st.none() | st.integers(1, 40), st.sampled_from(list(Context)), st.booleans())
_locs = st.lists(_loc, max_size=3).map(tuple)

_model = st.builds(
    ModelEntry,
    st.sampled_from(["gpt-5.5", "azure/muse", "claude-opus-4-8", "muse-1.0"]),
    st.none() | st.sampled_from(["gpt-5.5", "claude-opus-4-8"]),
    _opt,
    st.none() | st.just("gpt"),
    st.none() | st.sampled_from(["direct", "azure"]),
    st.none() | st.sampled_from(["gpt-5.5", "gpt-5.6-sol"]),
    st.sampled_from(["known", "family", "unknown"]),
    st.none() | st.sampled_from(["active", "deprecated", "retired"]),
    st.booleans(),
    _locs,
)
_sdk = st.builds(
    SdkEntry,
    st.sampled_from(["pypi", "npm"]),
    st.sampled_from(["openai", "anthropic"]),
    st.none() | st.sampled_from(["1.0.0", "1.2.0", "^1.0"]),
    _opt,
    st.none() | st.just("direct"),
    st.booleans(),
    st.none() | st.sampled_from(["/venv/site-packages", "/app/package.json"]),
    _locs,
)
_endpoint = st.builds(
    EndpointEntry,
    st.sampled_from(["api.openai.com", "proxy.internal", "x.openai.azure.com"]),
    _opt,
    st.none() | st.just("azure"),
    st.lists(st.sampled_from(["https://h/v1", "http://h:8080/"]), max_size=2, unique=True).map(tuple),
    st.booleans(),
    _locs,
)
_cred_loc = st.builds(
    CredentialLocation, _loc, st.none() | st.sampled_from(["0400", "0644"]), st.none() | st.just("r:r")
)
_credential = st.builds(
    CredentialEntry,
    st.sampled_from(["openai-key", "anthropic-key"]),
    _opt,
    st.just("sk-…abcd"),
    st.sampled_from([c * 64 for c in "0123"]),
    st.lists(_cred_loc, max_size=2).map(tuple),
)
_switch = st.builds(
    KillSwitchEntry,
    st.sampled_from(["KILL_SWITCH", "X_OVERRIDE"]),
    st.none() | st.sampled_from(["0", "1", "true"]),
    st.sampled_from(list(SwitchState)),
    _locs,
)
_route = st.builds(
    RouteEntry,
    st.sampled_from(["azure/muse", "fast"]),
    st.none() | st.sampled_from(["azure", "direct"]),
    st.none() | st.just("gpt-5.5"),
    _opt,
    st.none() | st.just("azure"),
    st.none() | st.just("openai-responses"),
    st.integers(0, 3),
    st.just(()),
    st.none() | st.just("high"),
    st.just(()),
)
_provider = st.builds(
    SessionProvider, st.sampled_from(["openai", "self-hosted", "anthropic"]), st.none(), st.none(),
    st.integers(1, 3), st.just("high"), st.none(), st.none(), st.just(()),
)
_session = st.builds(
    SessionEntry,
    st.sampled_from(["s1", "s2"]),
    st.just("generic"),
    _loc,
    st.none(),
    st.none(),
    st.integers(0, 5),
    st.just(()),
    st.sampled_from(["visible", "encrypted"]),
    st.lists(_provider, min_size=1, max_size=2).map(tuple),  # a session always names a provider (issue 10)
)


@st.composite
def inventories(draw: st.DrawFn) -> Inventory:
    return Inventory(
        tool_version="0.1.0",
        catalogs=(CatalogRef("core", draw(st.sampled_from(["1", "2"])), "builtin"),),
        target=TargetInfo("directory", draw(st.sampled_from(["/a", "/b"]))),
        stats=Stats(),
        models=tuple(draw(st.lists(_model, max_size=4))),
        sdks=tuple(draw(st.lists(_sdk, max_size=3))),
        endpoints=tuple(draw(st.lists(_endpoint, max_size=3))),
        credentials=tuple(draw(st.lists(_credential, max_size=3))),
        kill_switches=tuple(draw(st.lists(_switch, max_size=3))),
        sessions=tuple(draw(st.lists(_session, max_size=2))),
        routes=tuple(draw(st.lists(_route, max_size=2))),
    )


def _facts(c: Change) -> str:
    return canonical_json([c.section, c.key, c.kind.value, c.field, c.old, c.new, list(c.where)])


def _inverted(c: Change) -> str:
    return canonical_json([c.section, c.key, INVERSE_KIND[c.kind].value, c.field, c.new, c.old, list(c.where)])


@settings(max_examples=examples(300), deadline=None)
@given(inventories())
def test_an_inventory_does_not_differ_from_itself(inv: Inventory) -> None:
    assert diff_inventories(inv, inv).changes == ()


@settings(max_examples=examples(300), deadline=None)
@given(inventories(), inventories())
def test_diff_b_a_is_diff_a_b_inverted(a: Inventory, b: Inventory) -> None:
    forward, backward = diff_inventories(a, b).changes, diff_inventories(b, a).changes
    assert sorted(_inverted(c) for c in forward) == sorted(_facts(c) for c in backward)
    assert len({c.id for c in forward}) == len(forward), "a change id names one change"


@settings(max_examples=examples(100), deadline=None)
@given(inventories(), inventories())
def test_the_diff_of_json_round_trips_is_the_same(a: Inventory, b: Inventory) -> None:
    def again(inv: Inventory) -> Inventory:
        return from_document(json.loads(json.dumps(to_document(inv))))

    def shown(inv_a: Inventory, inv_b: Inventory) -> list[Any]:
        return [_facts(c) for c in diff_inventories(inv_a, inv_b).changes]

    assert shown(again(a), again(b)) == shown(a, b)
