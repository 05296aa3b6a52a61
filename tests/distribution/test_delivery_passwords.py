"""Subscription delivery passwords (issue 36, points 4 and 8), through real HTTP: sealed at rest,
presented to the subscriber, never answered to a reader, masked to writers but in the answer to
the request that set them; the mask sent back keeps the password.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.secrets import SecretKeys, sealer_of

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    create_feed,
    create_subscription,
    owner_headers,
    post_subscription,
    publish,
    put_subscription,
    subscription_document,
)
from ..support.keys import TEST_SECRET_KEY
from ..support.receiver import Receiver
from ..support.tls import TlsFiles
from .conftest import FAST_DELIVERY

USERS = "admin:admin,writer:writer-pw:distribution.writer,reader:reader-pw:distribution.reader"
WRITER = ("writer", "writer-pw")
READER = ("reader", "reader-pw")
PASSWORD = "Rx-Clear-Pw-7731"
MASK = "********"


@pytest.fixture
def service(make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles) -> RunningService:
    return start_service(
        "distribution", make_settings(users=USERS, delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)
    )


def with_password(url: str, password: str = PASSWORD, **overrides: Any) -> dict[str, Any]:
    document = subscription_document(url, **overrides)
    document["delivery"]["password"] = password
    return document


def subscribe(
    client: httpx.Client, feed_id: int, url: str, password: str = PASSWORD
) -> tuple[int, dict[str, Any]]:
    """A subscription the client makes as itself; its id and the answer."""
    created = post_subscription(client, feed_id, with_password(url, password), owner="writer")
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return int(body["links"]["self"].rsplit("/", 1)[1]), body


def stored_passwords(settings: Settings) -> dict[int, str]:
    with database_for(settings).engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT id, delivery_password FROM distribution_subscriptions")
        ).all()
    return {int(sub_id): str(stored) for sub_id, stored in rows}


def presented(request_header: str | None) -> str:
    assert request_header is not None and request_header.startswith("Basic ")
    return base64.b64decode(request_header.removeprefix("Basic ")).decode()


def test_the_password_is_sealed_at_rest_and_presented_to_the_subscriber(
    service: RunningService, receiver: Receiver
) -> None:
    with service.client(auth=WRITER) as writer:
        feed_id, _ = create_feed(writer, owner="writer")
        sub_id, _ = subscribe(writer, feed_id, f"{receiver.url}/in")
    stored = stored_passwords(service.settings)[sub_id]
    assert stored.startswith("sealed:1:") and PASSWORD not in stored
    assert publish(service.url, feed_id, "a.csv", b"a,b\n").status_code == 204
    [delivered] = receiver.wait_for(1)
    assert presented(delivered.header("Authorization")) == f"rxuser:{PASSWORD}"


def test_a_reader_gets_no_password_a_writer_the_mask_the_creator_the_password(
    service: RunningService,
) -> None:
    with service.client(auth=WRITER) as writer:
        feed_id, _ = create_feed(writer, owner="writer")
        sub_id, created = subscribe(writer, feed_id, "https://rx.example/in")
        assert created["delivery"]["password"] == PASSWORD  # the answer to the request that set it
        read_back = writer.get(f"/subs/{sub_id}")
        assert read_back.json()["delivery"]["password"] == MASK
    with service.client() as admin:
        assert admin.get(f"/subs/{sub_id}", headers=owner_headers()).json()["delivery"]["password"] == MASK
    with service.client(auth=READER) as reader:
        for _ in range(2):  # the second answer is replayed: the same
            answer = reader.get(f"/subs/{sub_id}")
            assert answer.status_code == 200
            assert "password" not in answer.json()["delivery"]
            assert PASSWORD not in answer.text and MASK not in answer.text
        listed = reader.get(f"/subscribe/{feed_id}")
        assert PASSWORD not in listed.text


def test_sending_the_mask_back_keeps_the_password_and_a_new_one_replaces_it(
    service: RunningService, receiver: Receiver
) -> None:
    with service.client(auth=WRITER) as writer:
        feed_id, _ = create_feed(writer, owner="writer")
        sub_id, _ = subscribe(writer, feed_id, "https://elsewhere.example/in")
        # GET, modify, PUT: the password read is the mask.
        document = writer.get(f"/subs/{sub_id}").json()
        document["delivery"]["url"] = f"{receiver.url}/in"
        kept = put_subscription(writer, sub_id, document, "writer")
        assert kept.status_code == 200, kept.text
        assert kept.json()["delivery"]["password"] == MASK
        assert publish(service.url, feed_id, "one.csv", b"1").status_code == 204
        [first] = receiver.wait_for(1)
        assert presented(first.header("Authorization")) == f"rxuser:{PASSWORD}"

        replaced = put_subscription(writer, sub_id, with_password(f"{receiver.url}/in", "New-Pw-5"), "writer")
        assert replaced.status_code == 200 and replaced.json()["delivery"]["password"] == "New-Pw-5"
        assert writer.get(f"/subs/{sub_id}").json()["delivery"]["password"] == MASK
    assert publish(service.url, feed_id, "two.csv", b"2").status_code == 204
    second = receiver.wait_for(2)[1]
    assert presented(second.header("Authorization")) == "rxuser:New-Pw-5"
    assert "New-Pw-5" not in stored_passwords(service.settings)[sub_id]


def test_a_subscription_is_not_created_with_the_mask(service: RunningService) -> None:
    with service.client(auth=WRITER) as writer:
        feed_id, _ = create_feed(writer, owner="writer")
        refused = post_subscription(
            writer, feed_id, with_password("https://rx.example/in", MASK), owner="writer"
        )
    assert (refused.status_code, refused.text) == (
        400,
        "delivery password field is the mask ********: send the password itself",
    )


def test_a_privileged_subscriber_acknowledges_with_the_sealed_password(
    service: RunningService, receiver: Receiver
) -> None:
    with service.client() as admin:
        feed_id, _ = create_feed(admin)
        sub_id, _ = create_subscription(admin, feed_id, url=f"{receiver.url}/in", privilegedSubscriber=True)
    published = publish(service.url, feed_id, "p.csv", b"p")
    publish_id = published.headers["X-BUS-DR-PUBLISH-ID"]
    receiver.wait_for(1)
    path = f"{service.url}/delete/{sub_id}/{publish_id}"
    assert httpx.delete(path, auth=("rxuser", "wrong")).status_code == 401
    assert httpx.delete(path, auth=("rxuser", "rx-pass")).status_code == 200


def test_passwords_stored_in_clear_before_are_sealed_at_start_and_still_presented(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles, receiver: Receiver
) -> None:
    settings = make_settings(delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)
    first = start_service("distribution", settings)
    with first.client() as admin:
        feed_id, _ = create_feed(admin)
        sub_id, _ = create_subscription(admin, feed_id, url=f"{receiver.url}/in")
    first.server.stop()
    with database_for(settings).write() as session:  # as a version before sealing left it
        session.execute(sa.text("UPDATE distribution_subscriptions SET delivery_password = 'Old-Clear-Pw'"))
    second = start_service("distribution", settings)
    stored = stored_passwords(settings)[sub_id]
    assert stored.startswith("sealed:1:") and "Old-Clear-Pw" not in stored
    assert publish(second.url, feed_id, "old.csv", b"o").status_code == 204
    [delivered] = receiver.wait_for(1)
    assert presented(delivered.header("Authorization")) == "rxuser:Old-Clear-Pw"


def test_secrets_rotate_seals_the_passwords_again_with_the_new_key(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> None:
    settings = make_settings(delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)
    service = start_service("distribution", settings)
    with service.client() as admin:
        feed_id, _ = create_feed(admin)
        sub_id, _ = create_subscription(admin, feed_id)
    service.server.stop()
    new_key = SecretKeys.generate().decode()
    environment = {
        **os.environ,
        "NETPLATFORM_SECRET_KEY": f"{new_key},{TEST_SECRET_KEY}",
        "NETPLATFORM_DATA_DIR": str(settings.data_dir),
        "NETPLATFORM_DATABASE_URL": settings.effective_database_url,
    }
    rotated = subprocess.run(
        [sys.executable, "-m", "netplatform", "secrets", "rotate"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert rotated.returncode == 0, rotated.stderr
    assert "distribution_subscriptions.delivery_password: 1 sealed with the newest key" in rotated.stdout
    # The new key alone opens it now: the old one may be dropped.
    assert sealer_of([new_key.encode()]).open(stored_passwords(settings)[sub_id]) == "rx-pass"
