"""Topics over HTTP: create, list, read, delete, grants and revokes, and who may do each."""

from __future__ import annotations

from ..support.router_calls import drain, publish, router_error
from .conftest import ADMIN, ALICE, BOB, Router, topic_name


def test_create_answers_the_topic_with_its_creator_as_owner(router: Router) -> None:
    name = topic_name()
    body = {
        "topicName": name,
        "topicDescription": "alarm stream",
        "partitionCount": "2",
        "replicationCount": 1,
        "transactionEnabled": False,
        "unknownKey": "ignored",
    }
    with router.client(ALICE) as client:
        created = client.post("/topics/create", json=body)
        assert created.status_code == 200, created.text
        expected = {
            "name": name,
            "description": "alarm stream",
            "owner": "alice",
            "txenabled": False,
            "readerAcl": {"enabled": False, "users": []},
            "writerAcl": {"enabled": False, "users": []},
        }
        assert created.json() == expected
        assert client.get(f"/topics/{name}").json() == expected
        assert name in client.get("/topics").json()["topics"]


def test_an_existing_name_is_a_conflict(router: Router) -> None:
    name = router.create_topic()
    with router.client(ALICE) as client:
        body = router_error(client.post("/topics/create", json={"topicName": name}), 409)
    assert name in body["message"]


def test_bad_create_requests_are_400(router: Router) -> None:
    bad_bodies = [
        {},
        {"topicName": "has space"},
        {"topicName": "x" * 250},
        {"topicName": topic_name(), "partitionCount": "many"},
        {"topicName": topic_name(), "replicationCount": 0},
        {"topicName": topic_name(), "transactionEnabled": "perhaps"},
    ]
    with router.client() as client:
        for body in bad_bodies:
            router_error(client.post("/topics/create", json=body), 400)
        router_error(
            client.post("/topics/create", content=b"{not json", headers={"content-type": "application/json"}),
            400,
        )


def test_unknown_topics_are_404(router: Router) -> None:
    name = topic_name()
    with router.client() as client:
        assert "No such topic" in router_error(client.get(f"/topics/{name}"), 404)["message"]
        router_error(client.delete(f"/topics/{name}"), 404)
        router_error(client.put(f"/topics/{name}/producers/bob"), 404)
        router_error(client.delete(f"/topics/{name}/consumers/bob"), 404)
        router_error(client.get(f"/topics/{name}/groups"), 404)


def test_owner_and_admin_delete_others_may_not(router: Router) -> None:
    mine = router.create_topic(owner=ALICE)
    also_mine = router.create_topic(owner=ALICE)
    with router.client(BOB) as bob:
        router_error(bob.delete(f"/topics/{mine}"), 403)
    with router.client(ALICE) as alice:
        assert alice.delete(f"/topics/{mine}").status_code == 204
        router_error(alice.get(f"/topics/{mine}"), 404)
        assert mine not in alice.get("/topics").json()["topics"]
    with router.client(ADMIN) as admin:
        assert admin.delete(f"/topics/{also_mine}").status_code == 204


def test_a_deleted_topic_can_be_created_again_empty(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        assert client.post(f"/events/{name}", json=[{"old": 1}]).status_code == 200
        assert client.delete(f"/topics/{name}").status_code == 204
        assert client.post("/topics/create", json={"topicName": name}).status_code == 200
        assert client.get(f"/events/{name}/g/m", params={"timeout": 100}).json() == []


def test_grants_enable_the_acl_and_revokes_leave_it_enabled(router: Router) -> None:
    name = router.create_topic(owner=ALICE)
    with router.client(ALICE) as alice:
        granted = alice.put(f"/topics/{name}/producers/bob")
        assert granted.status_code == 200, granted.text
        assert granted.json()["writerAcl"] == {"enabled": True, "users": ["bob"]}
        assert granted.json()["readerAcl"] == {"enabled": False, "users": []}
        assert alice.put(f"/topics/{name}/producers/bob").status_code == 200  # twice: listed once
        assert alice.put(f"/topics/{name}/consumers/subscribers").status_code == 200
        topic = alice.get(f"/topics/{name}").json()
        assert topic["writerAcl"] == {"enabled": True, "users": ["bob"]}
        assert topic["readerAcl"] == {"enabled": True, "users": ["subscribers"]}
        assert alice.delete(f"/topics/{name}/producers/bob").status_code == 204
        assert alice.delete(f"/topics/{name}/producers/nobody").status_code == 204
        assert alice.get(f"/topics/{name}").json()["writerAcl"] == {"enabled": True, "users": []}


def test_only_the_owner_an_admin_or_a_router_writer_changes_grants(router: Router) -> None:
    name = router.create_topic(owner=ALICE)
    with router.client(BOB) as bob:
        router_error(bob.put(f"/topics/{name}/producers/bob"), 403)
        router_error(bob.delete(f"/topics/{name}/consumers/bob"), 403)
    with router.client(ADMIN) as admin:
        assert admin.put(f"/topics/{name}/consumers/bob").status_code == 200
    admins = router.create_topic(owner=ADMIN)
    with router.client(ALICE) as alice:  # router.writer: on a topic she does not own too
        assert alice.put(f"/topics/{admins}/producers/bob").status_code == 200
        assert alice.delete(f"/topics/{admins}/producers/bob").status_code == 204


def test_reads_are_open_to_every_identity_writes_need_router_writer(router: Router) -> None:
    name = router.create_topic(owner=ALICE)
    with router.client(BOB) as bob:  # no role at all
        assert name in bob.get("/topics").json()["topics"]
        assert bob.get(f"/topics/{name}").json()["owner"] == "alice"
        assert bob.get(f"/topics/{name}/groups").status_code == 200
        refused = router_error(bob.post("/topics/create", json={"topicName": topic_name()}), 403)
        assert refused["message"] == "User bob does not have permission platform.router.api|topics|write"
        router_error(bob.delete(f"/topics/{name}"), 403)
    with router.client(ALICE) as alice:  # router.writer
        created = alice.post("/topics/create", json={"topicName": topic_name()})
        assert created.status_code == 200 and created.json()["owner"] == "alice"
    admins = router.create_topic(owner=ADMIN)
    with router.client(ALICE) as alice:  # router.writer, but neither its owner nor a router admin
        refused = router_error(alice.delete(f"/topics/{admins}"), 403)
        assert "only its owner or a router admin" in refused["message"]


def test_a_grant_names_producers_or_consumers_only(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        router_error(client.put(f"/topics/{name}/viewers/bob"), 400)
        router_error(client.put(f"/topics/{name}/producers/{'x' * 256}"), 400)


def test_groups_answer_each_group_and_its_lag(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        assert client.get(f"/topics/{name}/groups").json() == {"groups": []}
        publish(client, name, ["a", "b", "c"])
        assert drain(client, name, "zeta") == ["a", "b", "c"]
        assert client.get(f"/events/{name}/alpha/m", params={"limit": 1, "timeout": 0}).json() == ["a"]
        publish(client, name, ["d"])
    with router.client(BOB) as bob:  # anyone who may read the topic may read its groups
        response = bob.get(f"/topics/{name}/groups")
    assert response.status_code == 200, response.text
    assert response.json() == {"groups": [{"name": "alpha", "lag": 3}, {"name": "zeta", "lag": 1}]}
