"""GET /internal/topics/{topic}/access: whether an identity may publish or fetch a topic here,
answered by the checks a publish and a fetch take (issue 38), for the bus controller."""

from __future__ import annotations

from typing import Any

from netplatform.access.platform import BUS, accepted_passwords
from netplatform.store.secrets import SecretKeys

from ..support.keys import TEST_SECRET_KEY
from ..support.router_calls import router_error
from .conftest import ADMIN, ALICE, BOB, CAROL, NODE, Router

SVC_BUS = (BUS.name, accepted_passwords(SecretKeys.parse(TEST_SECRET_KEY, "test key"), BUS)[0])
CALLERS = {"admin": ADMIN, "alice": ALICE, "bob": BOB, "carol": CAROL}


def ask(router: Router, topic: str, identity: str, action: str, auth: tuple[str, str] = SVC_BUS) -> Any:
    with router.client(auth) as client:
        answer = client.get(
            f"/internal/topics/{topic}/access", params={"identity": identity, "action": action}
        )
    assert answer.status_code == 200, answer.text
    return answer.json()


def attempt(router: Router, topic: str, who: tuple[str, str], action: str) -> tuple[bool, str | None]:
    """What a real publish (pub) or fetch (sub) as ``who`` answers: allowed, or the refusal's message."""
    with router.client(who) as client:
        if action == "pub":
            answer = client.post(f"/events/{topic}", content=b"m\n", headers={"content-type": "text/plain"})
        else:
            answer = client.get(f"/events/{topic}/g/c", params={"timeout": 0})
    if answer.status_code == 200:
        return True, None
    return False, router_error(answer, 403)["message"]


def test_the_answer_is_what_a_publish_or_a_fetch_would_get(router: Router) -> None:
    topic = router.create_topic()
    with router.client() as admin:
        for grant in ("producers/role:publishers", "consumers/role:subscribers", "consumers/bob"):
            assert admin.put(f"/topics/{topic}/{grant}").status_code == 200
    decided = {}
    for name, who in CALLERS.items():
        for action in ("pub", "sub"):
            answer = ask(router, topic, name, action)
            assert answer["identity"] == name and answer["action"] == action
            decided[name, action] = answer["allowed"]
            assert (answer["allowed"], answer["reason"]) == attempt(router, topic, who, action), (
                name,
                action,
            )
    # Roles and names both count, as on the ACLs: alice publishes through her role, carol reads
    # through hers, bob by name; the administrator is on neither ACL.
    assert decided == {
        ("admin", "pub"): False,
        ("admin", "sub"): False,
        ("alice", "pub"): True,
        ("alice", "sub"): False,
        ("bob", "pub"): False,
        ("bob", "sub"): True,
        ("carol", "pub"): False,
        ("carol", "sub"): True,
    }


def test_an_open_topic_admits_every_known_identity_and_no_unknown_one(router: Router) -> None:
    topic = router.create_topic()
    assert ask(router, topic, "bob", "pub") == {
        "identity": "bob",
        "action": "pub",
        "allowed": True,
        "reason": None,
    }
    unknown = ask(router, topic, "nobody-here", "sub")
    assert unknown["allowed"] is False and "no such identity" in unknown["reason"]


def test_an_unknown_topic_is_404_as_for_a_publish(router: Router) -> None:
    with router.client(SVC_BUS) as client:
        answer = client.get(
            "/internal/topics/org.example.nothing/access", params={"identity": "bob", "action": "pub"}
        )
    router_error(answer, 404)


def test_only_the_bus_nodes_and_administrators_may_ask(router: Router) -> None:
    topic = router.create_topic()
    params = {"identity": "bob", "action": "pub"}
    for who, status in ((BOB, 403), (ALICE, 403), (NODE, 200), (ADMIN, 200), (SVC_BUS, 200)):
        with router.client(who) as client:
            assert client.get(f"/internal/topics/{topic}/access", params=params).status_code == status, who
    with router.client(SVC_BUS) as client:
        bad = client.get(f"/internal/topics/{topic}/access", params={"identity": "bob", "action": "view"})
    assert bad.status_code == 400
