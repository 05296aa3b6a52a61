"""Publish and fetch over HTTP: bodies, ACLs and roles, long poll, consumer groups."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

from ..support.router_calls import drain, publish, router_error
from .conftest import ADMIN, ALICE, BOB, CAROL, Router, topic_name


def test_json_object_array_and_text_lines(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        one = client.post(f"/events/{name}", json={"event": "one", "n": 1})
        assert one.status_code == 200 and one.json()["count"] == 1
        assert isinstance(one.json()["serverTimeMs"], int)
        assert client.post(f"/events/{name}", json=[{"n": 2}, "three", 4, [5]]).json()["count"] == 4
        text = b"line six\r\nline seven\n\nline eight\n"
        posted = client.post(f"/events/{name}", content=text, headers={"content-type": "text/plain"})
        assert posted.json()["count"] == 3
        assert client.post(f"/events/{name}", json=[]).json()["count"] == 0
        received = drain(client, name, "g")
    assert received[:5] == ['{"event":"one","n":1}', '{"n":2}', '"three"', "4", "[5]"]
    assert received[5:] == ["line six", "line seven", "line eight"]
    assert json.loads(received[0]) == {"event": "one", "n": 1}


def test_bad_publishes(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        assert (
            router_error(
                client.post(f"/events/{name}", content=b"[1,", headers={"content-type": "application/json"}),
                400,
            )["mrstatus"]
            == 5005
        )
        router_error(client.post(f"/events/{name}", json="a string"), 400)
        router_error(
            client.post(f"/events/{name}", content=b"x", headers={"content-type": "application/xml"}), 415
        )
        router_error(
            client.post(f"/events/{name}", content=b"a\x00b", headers={"content-type": "text/plain"}), 400
        )
        router_error(client.post(f"/events/{topic_name()}", json={"a": 1}), 404)
        router_error(client.get(f"/events/{topic_name()}/g/m", params={"timeout": 0}), 404)
        for params in ({"timeout": -1}, {"timeout": 60_001}, {"limit": 0}, {"timeout": "soon"}):
            router_error(client.get(f"/events/{name}/g/m", params=params), 400)


def test_a_topic_without_grants_is_open_to_every_user(router: Router) -> None:
    name = router.create_topic(owner=ALICE)
    with router.client(BOB) as bob:
        publish(bob, name, ["from bob"])
    with router.client(CAROL) as carol:
        assert drain(carol, name, "g") == ["from bob"]


def test_an_enabled_acl_admits_only_its_identities(router: Router) -> None:
    name = router.create_topic()
    with router.client(ADMIN) as admin:
        assert admin.put(f"/topics/{name}/producers/bob").status_code == 200
        assert admin.put(f"/topics/{name}/consumers/carol").status_code == 200
        router_error(admin.post(f"/events/{name}", json={"by": "admin"}), 403)  # admins are not on it
    with router.client(BOB) as bob:
        publish(bob, name, ["granted"])
        assert router_error(bob.get(f"/events/{name}/g/bob", params={"timeout": 0}), 403)["mrstatus"] == 4002
    with router.client(CAROL) as carol:
        router_error(carol.post(f"/events/{name}", json={"by": "carol"}), 403)
        assert drain(carol, name, "g") == ["granted"]
    with router.client(ADMIN) as admin:
        assert admin.delete(f"/topics/{name}/producers/bob").status_code == 204
    with router.client(BOB) as bob:
        router_error(bob.post(f"/events/{name}", json={"after": "revoke"}), 403)  # emptied, still enabled


def test_an_acl_entry_naming_a_role_admits_its_holders(router: Router) -> None:
    name = router.create_topic()
    with router.client(ADMIN) as admin:
        granted = admin.put(f"/topics/{name}/producers/role:publishers")
        assert granted.status_code == 200 and granted.json()["writerAcl"]["users"] == ["role:publishers"]
        assert admin.put(f"/topics/{name}/consumers/role:subscribers").status_code == 200
    with router.client(ALICE) as alice:  # holds "publishers"
        publish(alice, name, ["by role"])
        router_error(alice.get(f"/events/{name}/g/a", params={"timeout": 0}), 403)
    with router.client(BOB) as bob:  # holds no role
        router_error(bob.post(f"/events/{name}", json=["x"]), 403)
    with router.client(CAROL) as carol:  # holds "subscribers"
        assert drain(carol, name, "g") == ["by role"]


def test_long_poll_returns_a_message_published_during_the_wait(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client, ThreadPoolExecutor(1) as pool:
        assert client.get(f"/events/{name}/g/m", params={"timeout": 0}).json() == []
        waiting = pool.submit(client.get, f"/events/{name}/g/m", params={"timeout": 20_000})
        # A fixed wait on purpose: the long poll waits at the router when the publish comes.
        time.sleep(0.5)
        assert not waiting.done()
        with router.client() as publisher:
            publish(publisher, name, ["wake up"])
        assert waiting.result(timeout=10).json() == ["wake up"]  # woken by the publish, not its 20 s


def test_an_empty_list_when_the_timeout_passes(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        started = time.monotonic()
        response = client.get(f"/events/{name}/g/m", params={"timeout": 400})
        assert response.status_code == 200 and response.json() == []
        assert time.monotonic() - started >= 0.35  # it waited for the timeout asked


def test_limit_and_order(router: Router) -> None:
    name = router.create_topic()
    sent = [f"m{i}" for i in range(25)]
    with router.client() as client:
        publish(client, name, sent[:10])
        publish(client, name, sent[10:])
        first = client.get(f"/events/{name}/g/m", params={"limit": 7, "timeout": 0}).json()
        assert first == sent[:7]
        assert first + drain(client, name, "g", limit=9) == sent


def test_two_groups_each_get_everything(router: Router) -> None:
    name = router.create_topic()
    sent = [f"m{i}" for i in range(150)]
    with router.client() as client:
        publish(client, name, sent)
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda group: drain(client, name, group, limit=40), ["g1", "g2"]))
    assert results == [sent, sent]


def test_two_members_of_one_group_split_the_stream(router: Router) -> None:
    name = router.create_topic()
    sent = [f"m{i:04d}" for i in range(600)]
    with router.client() as client:
        for start in range(0, 600, 100):
            publish(client, name, sent[start : start + 100])

    def member(member_id: str) -> list[str]:
        with router.client() as own:
            return drain(own, name, "shared", member_id, limit=7)

    with ThreadPoolExecutor(2) as pool:
        shares = list(pool.map(member, ["a", "b"]))
    assert all(shares), "both members got a share"
    assert sorted(shares[0] + shares[1]) == sent  # none lost, none twice
    for share in shares:
        assert share == sorted(share)  # each member's share in publish order


def test_concurrent_publishers_keep_their_own_order_and_lose_nothing(router: Router) -> None:
    name = router.create_topic()

    def publisher(index: int) -> None:
        with router.client() as own:
            for batch in range(10):
                publish(own, name, [f"p{index}-{batch:02d}-{i}" for i in range(5)])

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(publisher, range(6)))
    with router.client() as client:
        received = drain(client, name, "g", limit=500)
    assert len(received) == len(set(received)) == 6 * 10 * 5
    for index in range(6):
        own = [message for message in received if message.startswith(f"p{index}-")]
        assert own == sorted(own, key=lambda m: (m.split("-")[1], int(m.split("-")[2])))
