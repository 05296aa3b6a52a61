"""Issue 36, point 6: the bus controller adopts only the authz roles it created.

A role named like a new topic's publisher role exists already, made by someone else, with a
member. Before, authz's 409 counted as success: the topic's client joined that role (and gained
its permissions), the router granted it on the topic (its members could publish there), and
deleting the topic deleted it. Now the topic is INVALID naming the conflict, and nothing of it is
touched. The bus, the router and the authz service are the real ones, over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from alembic import command

from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.migrate import alembic_config, upgrade

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.servers import http_client
from .conftest import BUS_SETTINGS, ROUTER_ALIASES, site, using

USERS = "admin:admin,writer:writer-pw:bus.writer,eve:eve-pw,mallory:mallory-pw"
WRITER, EVE, MALLORY = ("writer", "writer-pw"), ("eve", "eve-pw"), ("mallory", "mallory-pw")
FQTN = "org.example.bus.lab1.financeX"
PUBLISHERS, SUBSCRIBERS = f"{FQTN}.publisher", f"{FQTN}.subscriber"
SECRET = "platform.configtree.api|*|read,write"  # what the other role's members hold


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    return make_settings(users=USERS, bus_router_timeout_s=2)


@pytest.fixture
def router(start_service: ServiceStarter) -> RunningService:
    return start_service("router", also_on=ROUTER_ALIASES)


@pytest.fixture
def admin(start_service: ServiceStarter, settings: Settings, authz: RunningService) -> Iterator[httpx.Client]:
    """The bus as its administrator, set up with one site whose cluster is the router."""
    with start_service("bus", using(settings, authz)).client() as client:
        ok(client.put("/bus", json=BUS_SETTINGS))
        yield client


def members(authz: RunningService, role: str) -> set[str]:
    with http_client(authz.url) as client:
        return {entry["id"] for entry in ok(client.get(f"/authz/users/role/{role}"))["user"]}


def roles(authz: RunningService) -> set[str]:
    with http_client(authz.url) as client:
        return {entry["name"] for entry in ok(client.get("/authz/roles"))["role"]}


def someone_elses_role(authz: RunningService) -> None:
    """The publisher role of a topic not made yet, made in authz by someone else, with a member."""
    kind, instance, action = SECRET.split("|")
    with http_client(authz.url) as client:
        ok(client.post("/authz/role", json={"name": PUBLISHERS, "description": "finance team"}), 201)
        permission = {"type": kind, "instance": instance, "action": action}
        ok(client.post("/authz/role/perm", json={"role": PUBLISHERS, "perm": permission}), 201)
        ok(client.post("/authz/userRole", json={"user": "mallory", "role": PUBLISHERS}), 201)


def test_a_role_the_bus_did_not_create_is_not_adopted(
    admin: httpx.Client, router: RunningService, authz: RunningService, settings: Settings
) -> None:
    site(
        admin, "dc-central-1", "central", "localhost", topicProtocol="http", topicPort=str(router.server.port)
    )
    someone_elses_role(authz)
    client = {"svcLocationName": "dc-central-1", "clientIdentity": "eve", "action": ["pub", "sub"]}
    body = {"topicName": "financeX", "topicDescription": "d", "owner": "eve", "clients": [client]}
    with http_client(str(admin.base_url), auth=WRITER) as writer:
        created: dict[str, Any] = ok(writer.post("/topics", json=body))
    assert created["status"] == "INVALID"
    assert (
        f"Failed to create role {PUBLISHERS}: a role of that name exists in authz and was not created "
        "by the bus controller"
    ) in created["statusReason"]
    assert created["clients"][0]["status"] == "INVALID"
    # eve joined nothing, the router has no grant of that role, the other role kept its member.
    assert members(authz, PUBLISHERS) == {"mallory"}
    with http_client(router.url) as at_router:
        assert at_router.get(f"/topics/{FQTN}").status_code == 404  # no topic open to anyone
    with database_for(settings).read() as session:
        owned = set(session.execute(sa.text("SELECT role FROM bus_owned_roles")).scalars())
    assert owned == set()  # it stopped at the conflict: the subscriber role was not made either
    assert SUBSCRIBERS not in roles(authz)
    # Deleting the topic leaves the other one's role as it was.
    ok(admin.delete(f"/topics/{FQTN}"), 204)
    assert PUBLISHERS in roles(authz)
    assert members(authz, PUBLISHERS) == {"mallory"}


def test_the_roles_the_bus_made_are_its_own_again_on_a_retry(
    admin: httpx.Client, router: RunningService, authz: RunningService
) -> None:
    """A role the bus created answers 409 on the next pass: that is the bus's own, not a conflict."""
    site(
        admin, "dc-central-1", "central", "localhost", topicProtocol="http", topicPort=str(router.server.port)
    )
    client = {"svcLocationName": "dc-central-1", "clientIdentity": "eve", "action": ["pub"]}
    body = {"topicName": "financeX", "topicDescription": "d", "owner": "eve", "clients": [client]}
    created = ok(admin.post("/topics", json=body))
    assert created["status"] == "VALID"
    again = ok(admin.put(f"/topics/{FQTN}", json={**body, "topicDescription": "again"}))
    assert again["status"] == "VALID" and "statusReason" not in again
    assert members(authz, PUBLISHERS) == {"eve"}
    with http_client(router.url) as at_router:
        assert ok(at_router.get(f"/topics/{FQTN}"))["writerAcl"]["users"] == [f"role:{PUBLISHERS}"]


def test_the_upgrade_records_the_roles_of_the_topics_that_exist(settings: Settings) -> None:
    """Migration bus_0008: a topic provisioned by an earlier version keeps working (its roles are
    the bus's), rather than turning INVALID at its next pass."""
    upgrade(settings)
    database = database_for(settings)
    with database.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "bus_0007")
        connection.commit()
    topics = sa.table("bus_topics", *map(sa.column, ("fqtn", "publisher_role", "subscriber_role", "status")))
    with database.engine.begin() as connection:
        connection.execute(
            topics.insert(),
            [
                {
                    "fqtn": FQTN,
                    "publisher_role": PUBLISHERS,
                    "subscriber_role": SUBSCRIBERS,
                    "status": "VALID",
                },
                {"fqtn": "com.other.t", "publisher_role": None, "subscriber_role": None, "status": "VALID"},
            ],
        )
    upgrade(settings)
    with database.read() as session:
        owned = session.execute(sa.text("SELECT role, fqtn FROM bus_owned_roles ORDER BY role")).all()
    assert [tuple(row) for row in owned] == [(PUBLISHERS, FQTN), (SUBSCRIBERS, FQTN)]
