"""Whom ``X-BUS-DR-ON-BEHALF-OF`` may name (issue 36, point 7), through real HTTP.

Only an identity holding ``platform.distribution.actas`` (the bus controller's ``svc.bus``,
administrators) acts for the owner it names; anyone else acts as itself: the header names it or
is left out, else 403, and it claims no group (``X-BUS-DR-ON-BEHALF-OF-GROUP``).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from netplatform.access.platform import BUS, credential

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    FEED_TYPE,
    SUB_TYPE,
    create_feed,
    create_subscription,
    feed_document,
    owner_headers,
    put_subscription,
    subscription_document,
)
from ..support.tls import TlsFiles
from .conftest import FAST_DELIVERY

USERS = ",".join(
    [
        "admin:admin",
        "mallory:mallory-pw:distribution.writer",
        "reader:reader-pw:distribution.reader",
        "long.named.writer:long-pw:distribution.writer",
    ]
)
MALLORY = ("mallory", "mallory-pw")
LONG_NAMED = ("long.named.writer", "long-pw")
VICTIM = "bob"
GROUP = {"X-BUS-DR-ON-BEHALF-OF-GROUP": "7"}


@pytest.fixture
def service(make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles) -> RunningService:
    return start_service(
        "distribution", make_settings(users=USERS, delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)
    )


@pytest.fixture
def bus(service: RunningService) -> Iterator[httpx.Client]:
    """The bus controller's own identity: svc.bus, its password derived from the platform key."""
    with service.client(auth=credential(service.settings, BUS)) as client:
        yield client


def refusal(user: str, named: str) -> str:
    return (
        f"User {user} may not act on behalf of {named}: without permission "
        "platform.distribution.actas|*|call X-BUS-DR-ON-BEHALF-OF must name the caller itself or be left out"
    )


def test_a_writer_naming_another_owner_neither_redirects_his_subscription_nor_deletes_his_feed(
    service: RunningService, bus: httpx.Client
) -> None:
    feed_id, _ = create_feed(bus, owner=VICTIM)
    sub_id, _ = create_subscription(bus, feed_id, url="https://bob.example/in", owner=VICTIM)
    with service.client(auth=MALLORY) as mallory:
        redirected = put_subscription(
            mallory, sub_id, subscription_document("https://mallory.example/in"), VICTIM
        )
        assert (redirected.status_code, redirected.text) == (403, refusal("mallory", VICTIM))
        deleted = mallory.delete(f"/feed/{feed_id}", headers=owner_headers(VICTIM))
        assert (deleted.status_code, deleted.text) == (403, refusal("mallory", VICTIM))
        dropped = mallory.delete(f"/subs/{sub_id}", headers=owner_headers(VICTIM))
        assert dropped.status_code == 403
        # As herself, the owner rule refuses her.
        as_herself = put_subscription(
            mallory, sub_id, subscription_document("https://mallory.example/in"), "mallory"
        )
        assert (as_herself.status_code, as_herself.text) == (403, "Policy Engine disallows access.")
    subscription = bus.get(f"/subs/{sub_id}", headers=owner_headers(VICTIM))
    assert subscription.json()["delivery"]["url"] == "https://bob.example/in"
    assert bus.get(f"/feed/{feed_id}", headers=owner_headers(VICTIM)).status_code == 200


def test_a_writer_claims_no_group(service: RunningService, bus: httpx.Client) -> None:
    feed_id, _ = create_feed(bus, owner=VICTIM, groupid=7)
    sub_id, _ = create_subscription(bus, feed_id, owner=VICTIM, groupid=7)
    group = GROUP
    with service.client(auth=MALLORY) as mallory:
        edited = put_subscription(mallory, sub_id, subscription_document(groupid=7), "mallory", **group)
        assert (edited.status_code, edited.text) == (
            403,
            "User mallory may not act for group 7: X-BUS-DR-ON-BEHALF-OF-GROUP needs permission "
            "platform.distribution.actas|*|call",
        )
        deleted = mallory.delete(f"/feed/{feed_id}", headers=group)
        assert deleted.status_code == 403
    # The bus may: it acts for the group it names.
    assert bus.delete(f"/subs/{sub_id}", headers=owner_headers("someone", **group)).status_code == 204


def test_a_writer_acts_as_itself_with_or_without_the_header(service: RunningService) -> None:
    with service.client(auth=MALLORY) as mallory:
        unnamed = mallory.post("/", json=feed_document("hers"), headers={"Content-Type": FEED_TYPE})
        assert unnamed.status_code == 200, unnamed.text
        assert unnamed.json()["publisher"] == "mallory"
        feed_id = int(unnamed.json()["links"]["self"].rsplit("/", 1)[1])
        named = mallory.put(
            f"/feed/{feed_id}",
            json=feed_document("hers"),
            headers={**owner_headers("mallory"), "Content-Type": FEED_TYPE},
        )
        assert named.status_code == 200, named.text
        sub = mallory.post(
            f"/subscribe/{feed_id}", json=subscription_document(), headers={"Content-Type": SUB_TYPE}
        )
        assert sub.status_code == 201 and sub.json()["subscriber"] == "mallory"
        assert mallory.get("/", params={"publisher": "mallory"}).json() == [unnamed.json()["links"]["self"]]
        assert mallory.delete(f"/feed/{feed_id}").status_code == 204


def test_an_identity_whose_name_does_not_fit_the_header_leaves_it_out(service: RunningService) -> None:
    with service.client(auth=LONG_NAMED) as writer:
        created = writer.post("/", json=feed_document("long"), headers={"Content-Type": FEED_TYPE})
        assert created.status_code == 200, created.text
        assert created.json()["publisher"] == "long.named.writer"
        feed_id = int(created.json()["links"]["self"].rsplit("/", 1)[1])
        assert (
            writer.put(
                f"/feed/{feed_id}", json=feed_document("long"), headers={"Content-Type": FEED_TYPE}
            ).status_code
            == 200
        )
        # Its name as the header takes it is too long (the reference's 400), a prefix is someone else.
        whole = writer.delete(f"/feed/{feed_id}", headers=owner_headers("long.named.writer"))
        assert (whole.status_code, whole.text) == (400, "X-BUS-DR-ON-BEHALF-OF header too long")
        prefix = writer.delete(f"/feed/{feed_id}", headers=owner_headers("long.nam"))
        assert prefix.status_code == 403
        assert writer.delete(f"/feed/{feed_id}").status_code == 204


def test_a_read_does_nothing_with_the_header(service: RunningService, bus: httpx.Client) -> None:
    feed_id, _ = create_feed(bus, owner=VICTIM)
    with service.client(auth=("reader", "reader-pw")) as reader:
        for headers in ({}, owner_headers("reader"), owner_headers(VICTIM), owner_headers("x", **GROUP)):
            assert reader.get(f"/feed/{feed_id}", headers=headers).status_code == 200, headers
        too_long = reader.get(f"/feed/{feed_id}", headers=owner_headers("reader.one"))
        assert (too_long.status_code, too_long.text) == (400, "X-BUS-DR-ON-BEHALF-OF header too long")


def test_the_bus_and_administrators_provision_for_the_owners_they_name(
    service: RunningService, bus: httpx.Client
) -> None:
    with service.client() as admin:
        for client, owner in ((bus, "opsteam"), (admin, "noc")):
            provision_and_remove(client, owner)


def provision_and_remove(client: httpx.Client, owner: str) -> None:
    """As a caller that acts for others: a feed for ``owner``, a subscription for another owner."""
    feed_id, feed = create_feed(client, owner=owner, name=f"for-{owner}")
    assert feed["publisher"] == owner
    sub_id, sub = create_subscription(client, feed_id, owner="rxteam")
    assert sub["subscriber"] == "rxteam"
    changed = put_subscription(client, sub_id, subscription_document("https://rx.example/new"), "rxteam")
    assert changed.status_code == 200, changed.text
    # The reference's check stays for them: they must say whom they act for.
    missing = client.delete(f"/feed/{feed_id}")
    assert (missing.status_code, missing.text) == (400, "Missing X-BUS-DR-ON-BEHALF-OF header.")
    assert client.delete(f"/feed/{feed_id}", headers=owner_headers(owner)).status_code == 204
