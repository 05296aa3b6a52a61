"""Cached read answers: two policy instances over one database never serve a stale answer.

Two ``netplatform serve --only policy`` processes share one database (PostgreSQL when
NETPLATFORM_TEST_DATABASE_URL is set, else one SQLite file), each with its own in-process cache.
Every test first has instance B answer a read twice (the second replayed or from its cache, which
the ``answer_replays_total`` and ``answer_cache_lookups_total`` metrics show), then writes through
instance A: B's very next answer must carry the write.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..support.pairs import instance_pair
from ..support.servers import ServeProcess, free_port
from .conftest import API, policy, policy_names, policy_template, policy_type_template

TYPES = f"{API}/policytypes"
YAML = {"Accept": "application/yaml"}
# An answer served without reading the entities: replayed whole (web/replay.py), or rendered
# from the answer cache (store/generations.py).
HIT_LINE = r'^answer_(?:cache_lookups|replays)_total\{[^}]*result="hit"[^}]*\} ([0-9.e+]+)$'


class Instance:
    def __init__(self, name: str, tmp_path: Path, database_url: str) -> None:
        port = free_port()
        env = {
            "NETPLATFORM_POLICY_PORT": str(port),
            "NETPLATFORM_DATA_DIR": str(tmp_path / f"{name}-data"),
            "NETPLATFORM_DATABASE_URL": database_url,
            "NETPLATFORM_USERS": "admin:admin",
            "NETPLATFORM_INSTANCE_NAME": name,
            "NETPLATFORM_ACCESS_LOG": "false",
            "NETPLATFORM_WORKERS": "1",
        }
        self.process = ServeProcess(env, ["--only", "policy"], log_path=tmp_path / f"{name}.log")
        self.process.start(wait_ports=[port])
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", auth=("admin", "admin"), timeout=30)

    def hits(self) -> int:
        metrics = self.http.get("/metrics").text
        found = re.findall(HIT_LINE, metrics, re.MULTILINE)
        assert len(found) == 2, metrics
        return sum(int(float(count)) for count in found)

    def cached(self, path: str, **kwargs: object) -> httpx.Response:
        """GET ``path`` twice and check the second answer came from the cache; the second answer."""
        first = self.http.get(path, **kwargs)  # type: ignore[arg-type]
        hits = self.hits()
        second = self.http.get(path, **kwargs)  # type: ignore[arg-type]
        assert self.hits() == hits + 1, path
        assert second.content == first.content
        return second

    def close(self) -> None:
        self.http.close()
        assert self.process.stop() == 0, self.process.log()


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Instance, Instance]]:
    with instance_pair(tmp_path_factory.mktemp("read-cache"), Instance) as both:
        yield both


def test_a_created_policy_type_is_in_the_next_listing_and_read_of_the_other_instance(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    assert "cache.Created" not in b.cached(TYPES).json()["policy_types"]
    assert a.http.post(TYPES, json=policy_type_template("cache.Created")).status_code == 200

    assert "cache.Created" in b.http.get(TYPES).json()["policy_types"]
    one = b.http.get(f"{TYPES}/cache.Created/versions/latest")
    assert one.status_code == 200
    assert list(one.json()["policy_types"]) == ["cache.Created"]
    assert b.http.get(f"{TYPES}/cache.Created").status_code == 200


def test_a_new_version_is_the_latest_on_the_other_instance_at_once(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    assert a.http.post(TYPES, json=policy_type_template("cache.Versioned", "1.0.0")).status_code == 200
    latest = f"{TYPES}/cache.Versioned/versions/latest"
    assert b.cached(latest).json()["policy_types"]["cache.Versioned"]["version"] == "1.0.0"
    assert len(b.cached(f"{TYPES}/cache.Versioned").json()["policy_types"]) == 1
    assert a.http.post(TYPES, json=policy_type_template("cache.Versioned", "2.0.0")).status_code == 200

    assert b.http.get(latest).json()["policy_types"]["cache.Versioned"]["version"] == "2.0.0"
    assert len(b.http.get(f"{TYPES}/cache.Versioned").json()["policy_types"]) == 2


def test_a_deleted_policy_type_is_gone_from_the_other_instance_at_once(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    assert a.http.post(TYPES, json=policy_type_template("cache.Deleted")).status_code == 200
    exact = f"{TYPES}/cache.Deleted/versions/1.0.0"
    assert "cache.Deleted" in b.cached(TYPES).json()["policy_types"]
    b.cached(exact)
    b.cached(f"{TYPES}/cache.Deleted")
    assert a.http.delete(exact).status_code == 200

    assert "cache.Deleted" not in b.http.get(TYPES).json()["policy_types"]
    assert b.http.get(exact).status_code == 404
    assert b.http.get(f"{TYPES}/cache.Deleted").status_code == 404
    assert b.http.get(f"{TYPES}/cache.Deleted/versions/latest").status_code == 404


def test_policies_created_and_deleted_on_one_instance_are_listed_by_the_other(
    pair: tuple[Instance, Instance],
) -> None:
    a, b = pair
    assert a.http.post(TYPES, json=policy_type_template("cache.Typed")).status_code == 200
    first = policy("cache.first", type_name="cache.Typed")
    assert a.http.post(f"{API}/policies", json=policy_template(first)).status_code == 200
    of_type = f"{TYPES}/cache.Typed/versions/1.0.0/policies"
    assert policy_names(b.cached(of_type).json()) == ["cache.first:1.0.0"]
    second = policy("cache.second", type_name="cache.Typed")
    assert a.http.post(f"{API}/policies", json=policy_template(second)).status_code == 200

    assert policy_names(b.http.get(of_type).json()) == ["cache.first:1.0.0", "cache.second:1.0.0"]
    assert "cache.second:1.0.0" in policy_names(b.http.get(f"{API}/policies").json())
    assert a.http.delete(f"{of_type}/cache.first/versions/1.0.0").status_code == 200
    assert policy_names(b.http.get(of_type).json()) == ["cache.second:1.0.0"]
    assert "cache.first:1.0.0" not in policy_names(b.http.get(f"{API}/policies").json())


@pytest.mark.parametrize("headers", [{}, YAML], ids=["json", "yaml"])
def test_a_cached_answer_is_byte_identical_to_a_computed_one(
    pair: tuple[Instance, Instance], headers: dict[str, str]
) -> None:
    a, b = pair
    # A write moves the generation on, so the next answer of each instance is computed anew.
    name = f"cache.Identical{len(headers)}"
    assert a.http.post(TYPES, json=policy_type_template(name)).status_code == 200
    for path in (TYPES, f"{TYPES}/{name}/versions/latest", f"{TYPES}/{name}"):
        hits = b.hits()
        computed = b.http.get(path, headers=headers)
        assert b.hits() == hits
        cached = a.cached(path, headers=headers)
        assert cached.content == computed.content
        assert cached.headers["content-type"] == computed.headers["content-type"]
    kinds = {a.http.get(TYPES, headers=accept).headers["content-type"] for accept in ({}, YAML)}
    assert kinds == {"application/json", "application/yaml"}
