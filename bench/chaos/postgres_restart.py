"""PostgreSQL stopped and restarted under load of every service: 503 meanwhile, recovery after.

A private PostgreSQL cluster (initdb in a scratch directory, a random port, trust auth; never
anyone else's server) and one `netplatform serve` of every service over it. One writer per API
service creates objects without pause (a blueprint model type, a distribution feed, a bus site
location, a policy type, a config-tree entry, a router message, an authz identity), and one
more publishes files to a distribution feed whose subscriber is a real HTTPS endpoint. Each
cycle lets that run, stops PostgreSQL (alternately ``pg_ctl stop -m immediate``, a crash
recovered from the WAL, and ``-m fast``), then asks every service for a write and for
``/health``: each must answer 503 within 15 s (not 500, not a hang), and the console must still
answer. It starts PostgreSQL again and measures the time until every writer has had a 2xx
again (nobody restarts the services).

At the end every write that was answered 2xx is read back, and every acknowledged file must
have reached the subscriber (the delivery workers resumed by themselves): ``lost`` counts those
missing. ``unexpected``: any answer other than 2xx while the database is up, any answer other
than 2xx or 503 while it is down, a request that hangs past its timeout, a service that does
not recover within 60 s.

Run: ``PYTHONPATH=src .venv/bin/python bench/chaos/postgres_restart.py --cycles 50``.
"""

from __future__ import annotations

import asyncio
import base64
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import aiohttp

from common import (
    ADMIN_HEADERS,
    HttpsSubscriber,
    PrivatePostgres,
    Scratch,
    Serve,
    Tally,
    arguments,
    describe_failure,
    free_port,
    wait_for,
)

SERVED = ("blueprints", "distribution", "bus", "policy", "configtree", "router", "authz", "console")
REQUEST_TIMEOUT_S = 15.0
RECOVERY_LIMIT_S = 60.0
TOPIC = "chaos.pg"
BRG = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/GENERIC-RESOURCE-API:brg-allotted-resource"
OWNER = {"X-BUS-DR-ON-BEHALF-OF": "opsteam"}


@dataclass(frozen=True)
class Write:
    """One request that creates object ``key``; ``ok`` is its success status."""

    method: str
    path: str
    ok: int
    json: Any = None
    data: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def model_type(key: str) -> Write:
    body = {
        "modelName": key,
        "derivedFrom": "tosca.datatypes.Root",
        "definitionType": "data_type",
        "definition": {"description": "chaos", "version": "1.0.0", "derived_from": "tosca.datatypes.Root"},
        "description": "chaos",
        "version": "1.0.0",
        "tags": "chaos",
        "updatedBy": "chaos",
    }
    return Write("POST", "/api/v1/model-type", 200, json=body)


def feed(key: str) -> Write:
    body = {
        "name": key,
        "version": "1.0",
        "description": "chaos",
        "authorization": {
            "classification": "unclassified",
            "endpoint_ids": [{"id": "collector1", "password": "s3cret-pw"}],
            "endpoint_addrs": [],
        },
    }
    headers = {**OWNER, "Content-Type": "application/vnd.bus-dr.feed"}
    return Write("POST", "/", 200, json=body, headers=headers)


def policy_type(key: str) -> Write:
    body = {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "policy_types": {key: {"derived_from": "tosca.policies.Root", "version": "1.0.0"}},
    }
    return Write("POST", "/policy/api/v1/policytypes", 200, json=body)


def config_entry(key: str) -> Write:
    body = {"GENERIC-RESOURCE-API:brg-allotted-resource": [{"allotted-resource-id": key}]}
    return Write("PUT", f"{BRG}/{key}/", 201, json=body)


WRITES: dict[str, Callable[[str], Write]] = {
    "blueprints": model_type,
    "distribution": feed,
    "bus": lambda key: Write("POST", "/svcLocations", 200, json={"svcLocationName": key, "svcLayer": "edge"}),
    "policy": policy_type,
    "configtree": config_entry,
    "router": lambda key: Write(
        "POST", f"/events/{TOPIC}", 200, data=key, headers={"Content-Type": "text/plain"}
    ),
    "authz": lambda key: Write("POST", "/authn/cred", 201, json={"id": key, "password": f"pw-{key}"}),
}
KEY_PREFIX = {"policy": "chaos.P", "router": "m-", "authz": "id-", "publish": "file-"}
PUBLISHER = "Basic " + base64.b64encode(b"collector1:s3cret-pw").decode()
DELIVERY_S = 60.0  # for the last acknowledged files to reach the subscriber
FAST_DELIVERY = {
    "NETPLATFORM_DELIVERY_RETRY_INITIAL_S": "0.2",
    "NETPLATFORM_DELIVERY_RETRY_MAX_S": "1",
    "NETPLATFORM_DELIVERY_POLL_S": "0.1",
}


def file_publish(feed_id: int, key: str) -> Write:
    """A file published to the feed (delivered to the HTTPS subscriber): distribution's own write."""
    headers = {"Authorization": PUBLISHER, "Content-Type": "application/octet-stream"}
    return Write("PUT", f"/publish/{feed_id}/{key}", 204, data=key, headers=headers)


@dataclass
class Load:
    tally: Tally
    urls: dict[str, str]
    subscriber: HttpsSubscriber
    writes: dict[str, Callable[[str], Write]] = field(default_factory=lambda: dict(WRITES))
    acknowledged: dict[str, dict[str, Any]] = field(default_factory=dict)  # service -> key -> read path
    last_ok: dict[str, float] = field(default_factory=dict)
    down: bool = False
    running: bool = True


async def send(http: aiohttp.ClientSession, base: str, write: Write) -> tuple[int, Any]:
    async with http.request(
        write.method, f"{base}{write.path}", json=write.json, data=write.data, headers=write.headers
    ) as answer:
        body = await answer.json(content_type=None) if answer.status < 300 else await answer.text()
        return answer.status, body


def read_path(service: str, key: str, body: Any) -> str:
    """Where an acknowledged object is read back (router and authz are checked in bulk)."""
    if service == "distribution":  # the feed's links.self, http://host:port/feed/12
        return "/" + str(body["links"]["self"]).split("//", 1)[-1].split("/", 1)[-1]
    paths = {
        "blueprints": f"/api/v1/model-type/{key}",
        "bus": f"/svcLocations/{key}",
        "policy": f"/policy/api/v1/policytypes/{key}/versions/1.0.0",
        "configtree": f"{BRG}/{key}/",
    }
    return paths.get(service, "")


async def writer(http: aiohttp.ClientSession, service: str, load: Load) -> None:
    base, serial = load.urls[service], 0
    acknowledged = load.acknowledged.setdefault(service, {})
    while load.running:
        key = f"{KEY_PREFIX.get(service, 'chaos-')}{serial}"
        serial += 1
        write = load.writes[service](key)
        try:
            status, body = await send(http, base, write)
            if status == write.ok:
                acknowledged[key] = read_path(service, key, body)
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError, KeyError) as error:
            load.tally.strange(f"{service} {write.method} {write.path}: {error!r} (down={load.down})")
            await asyncio.sleep(0.2)
            continue
        if status == write.ok:
            load.last_ok[service] = time.monotonic()
        elif load.down and status == 503:
            load.tally.outage("503")
        else:
            load.tally.strange(
                f"{service} {write.method} {write.path}: {status} {str(body)[:200]} (down={load.down})"
            )
        await asyncio.sleep(0.1)


async def probe_outage(http: aiohttp.ClientSession, load: Load, serial: int) -> None:
    """Every service, asked for a write and for /health while the database is down: 503."""

    async def ask(service: str, what: str, request: Callable[[], Awaitable[tuple[int, Any]]]) -> None:
        try:
            status, body = await request()
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            load.tally.strange(f"outage: {service} {what}: {describe_failure(error)} {error!r}")
            return
        if status != 503:
            load.tally.strange(f"outage: {service} {what} answered {status}: {str(body)[:200]}")

    async def health(service: str) -> tuple[int, Any]:
        async with http.get(f"{load.urls[service]}/health") as answer:
            return answer.status, await answer.text()

    probes = [ask(service, "/health", lambda s=service: health(s)) for service in WRITES]
    probes += [  # the writes, and a file published to distribution
        ask(
            service,
            "write",
            lambda s=service: send(
                http, load.urls[s], load.writes[s](f"{KEY_PREFIX.get(s, 'chaos-')}probe{serial}")
            ),
        )
        for service in load.writes
    ]
    await asyncio.gather(*probes)


async def console_answers(http: aiohttp.ClientSession, load: Load) -> None:
    """The console stores nothing; it must still answer (its sign-in page) rather than fail."""
    try:
        async with http.get(f"{load.urls['console']}/login") as answer:
            if answer.status >= 500 and answer.status != 503:
                load.tally.strange(f"outage: console /login answered {answer.status}")
    except (aiohttp.ClientError, OSError, TimeoutError) as error:
        load.tally.strange(f"outage: console /login: {error!r}")


async def cycles(postgres: PrivatePostgres, http: aiohttp.ClientSession, load: Load, args: Any) -> None:
    for cycle in range(args.cycles):
        await asyncio.sleep(args.load_s * random.uniform(0.5, 1.5))
        load.down = True
        await asyncio.to_thread(postgres.stop, "immediate" if cycle % 2 == 0 else "fast")
        await asyncio.sleep(0.5)
        await probe_outage(http, load, cycle)
        await console_answers(http, load)
        restarted = await asyncio.to_thread(postgres.start)
        recovered = await wait_for(
            lambda since=restarted: all(load.last_ok.get(s, 0.0) > since for s in load.writes),
            RECOVERY_LIMIT_S,
        )
        load.tally.cycles = cycle + 1
        if not recovered:
            stuck = [s for s in load.writes if load.last_ok.get(s, 0.0) <= restarted]
            load.tally.strange(f"cycle {cycle + 1}: no 2xx write within {RECOVERY_LIMIT_S} s from {stuck}")
            return
        load.tally.recoveries.append(max(load.last_ok[s] for s in load.writes) - restarted)
        await asyncio.sleep(0.5)  # writes answered by the old connections' last errors settle
        load.down = False


async def missing_of(http: aiohttp.ClientSession, load: Load, service: str) -> list[str]:
    keys = load.acknowledged.get(service, {})
    base = load.urls[service]
    if service == "publish":  # acknowledged files must reach the subscriber (delivery resumed)
        await wait_for(lambda: set(keys) <= load.subscriber.names(), DELIVERY_S, 0.2)
        return sorted(set(keys) - load.subscriber.names())
    if service == "router":
        async with http.get(f"{base}/internal/mirror/{TOPIC}", params={"limit": "10000"}) as answer:
            stored = {entry["message"] for entry in await answer.json()}
        return [key for key in keys if key not in stored]
    if service == "authz":
        async with http.get(f"{base}/authn/cred") as answer:
            stored = {
                entry["id"] if isinstance(entry, dict) else entry for entry in (await answer.json())["user"]
            }
        return [key for key in keys if key not in stored]
    missing = []
    for key, path in keys.items():
        async with http.get(f"{base}{path}", headers=OWNER) as answer:
            if answer.status != 200:
                missing.append(key)
    return missing


async def subscribed_feed(http: aiohttp.ClientSession, load: Load) -> int:
    """A feed whose files go to the HTTPS subscriber: published files must be delivered."""
    status, body = await send(http, load.urls["distribution"], feed("chaos-files"))
    if status != 200:
        raise RuntimeError(f"feed not created: {status} {body}")
    feed_id = int(str(body["links"]["self"]).rsplit("/", 1)[1])
    subscription = {
        "delivery": {"url": f"{load.subscriber.url}/in", "user": "rx", "password": "rx-pw", "use100": False},
        "metadataOnly": False,
        "groupid": 0,
    }
    headers = {**OWNER, "Content-Type": "application/vnd.bus-dr.subscription"}
    write = Write("POST", f"/subscribe/{feed_id}", 201, json=subscription, headers=headers)
    status, body = await send(http, load.urls["distribution"], write)
    if status != 201:
        raise RuntimeError(f"subscription not created: {status} {body}")
    return feed_id


async def run(postgres: PrivatePostgres, load: Load, args: Any) -> None:
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    async with aiohttp.ClientSession(headers=ADMIN_HEADERS, timeout=timeout) as http:
        status, body = await send(
            http, load.urls["router"], Write("POST", "/topics/create", 200, json={"topicName": TOPIC})
        )
        if status != 200:
            raise RuntimeError(f"topic not created: {status} {body}")
        feed_id = await subscribed_feed(http, load)
        load.writes["publish"] = partial(file_publish, feed_id)
        load.urls["publish"] = load.urls["distribution"]
        tasks = [asyncio.create_task(writer(http, service, load)) for service in load.writes]
        try:
            await cycles(postgres, http, load, args)
        finally:
            load.running = False
            await asyncio.gather(*tasks, return_exceptions=True)
        for service in load.writes:
            missing = await missing_of(http, load, service)
            load.tally.lost += len(missing)
            if missing:
                load.tally.strange(
                    f"{service}: {len(missing)} acknowledged writes missing, e.g. {missing[:5]}"
                )
    load.tally.acknowledged = sum(len(keys) for keys in load.acknowledged.values())
    load.tally.received = load.tally.acknowledged - load.tally.lost
    load.tally.extra["per_service"] = ",".join(
        f"{s}:{len(load.acknowledged.get(s, {}))}" for s in load.writes
    )


def main() -> int:
    args = arguments(__doc__.splitlines()[0]).parse_args()
    scratch = Scratch("chaos-postgres-", args.keep)
    postgres = PrivatePostgres(scratch.path)
    postgres.init()
    postgres.start()
    subscriber = HttpsSubscriber(scratch.path)
    subscriber.start()
    ports = {service: free_port() for service in SERVED}
    env = {
        "NETPLATFORM_DATA_DIR": str(scratch.path / "data"),
        "NETPLATFORM_DATABASE_URL": postgres.url,
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_INSTANCE_NAME": "chaos-pg",
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_LOG_LEVEL": "WARNING",
        "NETPLATFORM_DELIVERY_CA_BUNDLE": str(subscriber.ca_bundle),
        **FAST_DELIVERY,
        **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in ports.items()},
    }
    serve = Serve(env, [], list(ports.values()), scratch.path / "serve.log")
    tally = Tally("postgres_restart")
    load = Load(tally, {service: f"http://127.0.0.1:{port}" for service, port in ports.items()}, subscriber)
    try:
        serve.start()
        serve.wait_ports()
        asyncio.run(run(postgres, load, args))
    finally:
        serve.stop()
        postgres.stop("fast")
        subscriber.stop()
    status = tally.finish()
    scratch.close(failed=tally.failed)
    return status


if __name__ == "__main__":
    sys.exit(main())
