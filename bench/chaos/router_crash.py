"""Crash loop of the message router: SIGKILL under publishers and consumer groups, restart.

One `netplatform serve --only router` child on the embedded engine (SQLite in a scratch data
directory, or ``--database-url``) or on NATS JetStream (``--engine jetstream``, a topic of its
own named ``chaos.<random>``, deleted at the end). Two publishers send batches of text lines
(unique ids) without pause; two consumer groups of two members each long-poll. Each cycle lets
the load run, kills the router with SIGKILL, keeps the clients going through the outage
(connection errors are counted), starts it again on the same port and data, and measures the
time from the restart until a publish and a fetch are answered 2xx again.

After the last cycle the publishers stop and the groups drain: every message whose publish was
answered 2xx (200: all; 207: the first ``count``) must reach every group. ``lost`` counts
(group, message) pairs that never arrived; ``duplicates`` the extra copies; ``unexpected`` any
answer other than 2xx/503 or a connection error (a 500, say), a message nobody sent, or a
router that did not recover within 60 s.

Run: ``PYTHONPATH=src .venv/bin/python bench/chaos/router_crash.py --engine embedded --cycles 50``.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
import uuid
from dataclasses import dataclass, field

import aiohttp

from common import ADMIN_HEADERS, Scratch, Serve, Tally, arguments, describe_failure, free_port, wait_for

PUBLISHERS = 2
GROUPS = 2
MEMBERS = 2
BATCH = 10
RECOVERY_LIMIT_S = 60.0
# JetStream gives back what a killed router had pulled but not acked after the consumer's ack
# wait (30 s): the drain waits longer than that.
DRAIN_S = 75.0


@dataclass
class Traffic:
    """What the clients saw, shared by their tasks."""

    tally: Tally
    acknowledged: set[str] = field(default_factory=set)
    sent: set[str] = field(default_factory=set)
    received: dict[str, list[str]] = field(default_factory=dict)
    last_publish_ok: float = 0.0
    last_fetch_ok: float = 0.0
    publishing: bool = True
    consuming: bool = True
    down: bool = False  # between the kill and the restart's first 2xx

    def answered(self, status: int, what: str) -> None:
        if status == 503:
            self.tally.outage("503")
        else:
            self.tally.strange(f"{what}: status {status}")

    def failed(self, error: BaseException, what: str) -> None:
        if not self.down:
            self.tally.strange(f"{what} failed while the router was up: {error!r}")
        self.tally.outage(describe_failure(error))


async def publisher(http: aiohttp.ClientSession, base: str, topic: str, index: int, traffic: Traffic) -> None:
    serial = 0
    while traffic.publishing:
        ids = [f"p{index}-{serial + offset}" for offset in range(BATCH)]
        serial += BATCH
        traffic.sent.update(ids)
        try:
            async with http.post(
                f"{base}/events/{topic}", data="\n".join(ids), headers={"Content-Type": "text/plain"}
            ) as answer:
                body = await answer.json(content_type=None) if answer.status in (200, 207) else None
                if answer.status == 200:
                    traffic.acknowledged.update(ids)
                elif answer.status == 207 and body is not None:
                    traffic.acknowledged.update(ids[: int(body["count"])])
                else:
                    traffic.answered(answer.status, "publish")
                    await asyncio.sleep(0.05)
                    continue
                traffic.last_publish_ok = time.monotonic()
            await asyncio.sleep(0.05)  # a few hundred messages a second: short cycles, no backlog
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            traffic.failed(error, "publish")
            await asyncio.sleep(0.05)


async def consumer(
    http: aiohttp.ClientSession, base: str, topic: str, group: str, member: str, traffic: Traffic
) -> None:
    received = traffic.received.setdefault(group, [])
    url = f"{base}/events/{topic}/{group}/{member}"
    while traffic.consuming:
        try:
            async with http.get(url, params={"timeout": "500", "limit": "100"}) as answer:
                if answer.status != 200:
                    traffic.answered(answer.status, "fetch")
                    await asyncio.sleep(0.05)
                    continue
                received.extend(await answer.json())
                traffic.last_fetch_ok = time.monotonic()
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            traffic.failed(error, "fetch")
            await asyncio.sleep(0.05)


async def create_topic(http: aiohttp.ClientSession, base: str, topic: str) -> None:
    async with http.post(f"{base}/topics/create", json={"topicName": topic}) as answer:
        if answer.status != 200:
            raise RuntimeError(f"topic not created: {answer.status} {await answer.text()}")


async def recovered(traffic: Traffic, restarted: float) -> float | None:
    """Seconds from the restart until a publish and a fetch were answered 2xx, or None."""
    if not await wait_for(
        lambda: min(traffic.last_publish_ok, traffic.last_fetch_ok) > restarted, RECOVERY_LIMIT_S
    ):
        return None
    return max(traffic.last_publish_ok, traffic.last_fetch_ok) - restarted


async def cycles(router: Serve, count: int, load_s: float, traffic: Traffic) -> None:
    for cycle in range(count):
        if not await kill_and_recover(router, cycle, load_s, traffic):
            return


async def kill_and_recover(router: Serve, cycle: int, load_s: float, traffic: Traffic) -> bool:
    """One cycle: the router killed during load, restarted, its recovery time recorded (False,
    and the tally says why, when no publish and fetch succeed again within the limit)."""
    await asyncio.sleep(load_s * random.uniform(0.5, 1.5))  # the kill lands anywhere in a request
    traffic.down = True
    router.kill()
    await asyncio.sleep(0.3)  # clients meet the closed port
    restarted = await asyncio.to_thread(router.start)
    await asyncio.to_thread(router.wait_ports)
    took = await recovered(traffic, restarted)
    traffic.down = False
    traffic.tally.cycles = cycle + 1
    if took is None:
        traffic.tally.strange(f"cycle {cycle + 1}: no 2xx publish and fetch within {RECOVERY_LIMIT_S} s")
        return False
    traffic.tally.recoveries.append(took)
    return True


def complete(traffic: Traffic) -> bool:
    return all(traffic.acknowledged <= set(traffic.received.get(f"g{g}", [])) for g in range(GROUPS))


def count(traffic: Traffic) -> None:
    tally = traffic.tally
    tally.acknowledged = len(traffic.acknowledged)
    for group in (f"g{g}" for g in range(GROUPS)):
        got = traffic.received.get(group, [])
        unique = set(got)
        tally.received += len(unique)
        tally.lost += len(traffic.acknowledged - unique)
        tally.duplicates += len(got) - len(unique)
        for stranger in sorted(unique - traffic.sent)[:5]:
            tally.strange(f"{group} received {stranger!r}, which nobody sent")
        missing = sorted(traffic.acknowledged - unique)
        if missing:
            tally.strange(f"{group} never received {len(missing)} acknowledged, e.g. {missing[:10]}")


async def run(router: Serve, base: str, topic: str, args: object, traffic: Traffic) -> None:
    timeout = aiohttp.ClientTimeout(total=20)
    async with aiohttp.ClientSession(headers=ADMIN_HEADERS, timeout=timeout) as http:
        await create_topic(http, base, topic)
        tasks = [asyncio.create_task(publisher(http, base, topic, i, traffic)) for i in range(PUBLISHERS)]
        tasks += [
            asyncio.create_task(consumer(http, base, topic, f"g{g}", f"m{m}", traffic))
            for g in range(GROUPS)
            for m in range(MEMBERS)
        ]
        try:
            await cycles(router, args.cycles, args.load_s, traffic)  # type: ignore[attr-defined]
            traffic.publishing = False
            started = time.monotonic()
            await wait_for(lambda: complete(traffic), DRAIN_S, step=0.2)
            traffic.tally.extra["drain_s"] = f"{time.monotonic() - started:.1f}"
            await asyncio.sleep(1.0)  # room for a late duplicate
        finally:
            traffic.publishing = traffic.consuming = False
            await asyncio.gather(*tasks, return_exceptions=True)
            async with http.delete(f"{base}/topics/{topic}"):
                pass


def main() -> int:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("embedded", "jetstream"), default="embedded")
    parser.add_argument("--nats-url", default="nats://127.0.0.1:4222")
    parser.add_argument("--database-url", default=None, help="embedded engine: default SQLite")
    args = parser.parse_args()
    scratch = Scratch("chaos-router-", args.keep)
    port = free_port()
    env = {
        "NETPLATFORM_DATA_DIR": str(scratch.path / "data"),
        "NETPLATFORM_ROUTER_PORT": str(port),
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_INSTANCE_NAME": "chaos-router",
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_LOG_LEVEL": "WARNING",
    }
    if args.engine == "jetstream":
        env["NETPLATFORM_ROUTER_NATS_URL"] = args.nats_url
    if args.database_url:
        env["NETPLATFORM_DATABASE_URL"] = args.database_url
    router = Serve(env, ["router"], [port], scratch.path / "router.log")
    tally = Tally(f"router_crash engine={args.engine}")
    traffic = Traffic(tally)
    router.start()
    router.wait_ports()
    try:
        topic = f"chaos.{args.engine}.{uuid.uuid4().hex[:10]}"
        asyncio.run(run(router, f"http://127.0.0.1:{port}", topic, args, traffic))
    finally:
        router.stop()
    count(traffic)
    status = tally.finish()
    scratch.close(failed=tally.failed)
    return status


if __name__ == "__main__":
    sys.exit(main())
