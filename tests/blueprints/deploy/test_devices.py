"""The device inventory over real HTTP: secrets write-only and sealed, the check of a device,
the trust of a new host key by an administrator, and what a CBA may not do."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from netplatform.blueprints.tables import metadata
from netplatform.store.db import database_for

from ...conftest import ADMIN, RunningService, ServiceStarter, SettingsFactory
from ...support.cbas import cba as make_cba
from ...support.cbas import component_node, workflow
from ...support.deploy_calls import DEVICES, add_device, assign, deploy, run_workflow
from ...support.netconf_devices import NetconfDevice, silent_port
from ..execution.conftest import save
from .conftest import BLUEPRINT, deploy_cba

WRITER = ("writer", "writer-pw")
USERS = "admin:admin,writer:writer-pw:blueprints.writer,reader:reader-pw:blueprints.reader"


@pytest.fixture
def catalog(start_service: ServiceStarter, make_settings: SettingsFactory) -> RunningService:
    return start_service("blueprints", make_settings(users=USERS))


def test_a_device_is_answered_without_its_secret_and_can_be_changed_and_removed(
    client: httpx.Client, device: NetconfDevice
) -> None:
    created = add_device(client, device.inventory_entry())
    assert created["authentication"] == "password"
    assert "password" not in created and "privateKey" not in created
    assert created["hostKey"] == device.host_key
    assert created["hostKeyFingerprint"].startswith("SHA256:")
    assert client.get(f"{DEVICES}/{device.name}").json() == created
    assert [d["name"] for d in client.get(DEVICES).json()] == [device.name]

    settings = {k: v for k, v in device.inventory_entry().items() if k not in ("name", "password")}
    changed = client.put(f"{DEVICES}/{device.name}", json={**settings, "site": "lab-2", "replyTimeout": 5})
    assert changed.status_code == 200, changed.text
    assert changed.json()["site"] == "lab-2" and changed.json()["replyTimeout"] == 5
    # the password was kept: the device still answers the check
    assert client.post(f"{DEVICES}/{device.name}/check").json()["ok"] is True

    assert client.delete(f"{DEVICES}/{device.name}").status_code == 204
    assert client.get(f"{DEVICES}/{device.name}").status_code == 404


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"password": None}, "needs a password or a privateKey"),
        ({"privateKey": "not a key"}, "give a password or a privateKey, not both"),
        ({"password": None, "privateKey": "not a key"}, "privateKey: the private key is not"),
        ({"hostKey": "ssh-ed25519 bm90IGEga2V5"}, "hostKey: the host key is not a usable"),
        ({"port": 0}, "port"),
        ({"name": "a/b"}, "must not contain a path separator"),
    ],
)
def test_a_bad_device_is_refused_with_400(
    client: httpx.Client, device: NetconfDevice, change: dict[str, Any], message: str
) -> None:
    body = {key: value for key, value in {**device.inventory_entry(), **change}.items() if value is not None}
    answer = client.post(DEVICES, json=body)
    assert answer.status_code == 400, answer.text
    assert message in answer.text


def test_a_device_name_is_taken_once(client: httpx.Client, device: NetconfDevice) -> None:
    add_device(client, device.inventory_entry())
    assert client.post(DEVICES, json=device.inventory_entry()).status_code == 409


def test_a_device_logs_in_with_a_private_key(client: httpx.Client, device: NetconfDevice) -> None:
    entry = device.inventory_entry(password=None, privateKey=device.client_key)
    created = add_device(client, {k: v for k, v in entry.items() if v is not None})
    assert created["authentication"] == "private-key"
    check = client.post(f"{DEVICES}/{device.name}/check").json()
    assert check["ok"] is True, check
    assert any(":candidate:1.0" in uri for uri in check["capabilities"])


def test_a_new_host_key_is_trusted_only_by_an_administrator_and_only_as_seen(
    catalog: RunningService, device: NetconfDevice
) -> None:
    with catalog.client(auth=WRITER) as writer, catalog.client(auth=ADMIN) as admin:
        add_device(writer, device.inventory_entry(hostKey=None))
        check = writer.post(f"{DEVICES}/{device.name}/check").json()
        assert check["ok"] is False
        assert check["hostKeyStatus"] == "unknown"
        assert "no host key is pinned" in check["errorMessage"]
        seen = check["presentedFingerprint"]
        assert check["presentedHostKey"] == device.host_key

        trust = f"{DEVICES}/{device.name}/trust-host-key"
        refused = writer.post(trust, json={"fingerprint": seen})
        assert refused.status_code == 403
        assert "platform.blueprints.admin|devices|write" in refused.text
        wrong = admin.post(trust, json={"fingerprint": "SHA256:" + "A" * 43})
        assert wrong.status_code == 409
        assert seen in wrong.text
        trusted = admin.post(trust, json={"fingerprint": seen})
        assert trusted.status_code == 200, trusted.text
        assert trusted.json()["hostKey"] == device.host_key
        assert writer.post(f"{DEVICES}/{device.name}/check").json()["ok"] is True


def test_a_pinned_host_key_is_not_changed_by_an_update(
    client: httpx.Client, device: NetconfDevice, devices: list[NetconfDevice]
) -> None:
    add_device(client, device.inventory_entry())
    settings = {k: v for k, v in device.inventory_entry().items() if k != "name"}
    answer = client.put(f"{DEVICES}/{device.name}", json={**settings, "hostKey": devices[1].host_key})
    assert answer.status_code == 400
    assert "trust-host-key" in answer.text
    assert client.get(f"{DEVICES}/{device.name}").json()["hostKey"] == device.host_key


def test_a_changed_host_key_shows_in_the_check(
    client: httpx.Client, device: NetconfDevice, devices: list[NetconfDevice]
) -> None:
    add_device(client, device.inventory_entry(hostKey=devices[1].host_key))
    check = client.post(f"{DEVICES}/{device.name}/check").json()
    assert check["ok"] is False and check["hostKeyStatus"] == "changed"
    assert check["presentedHostKey"] == device.host_key


def _refused_cba(node: dict[str, Any]) -> bytes:
    return make_cba(
        "refused",
        {"config-deploy": workflow({"deploy": {"target": "deploy"}}, inputs={"device": {"type": "string"}})},
        {"deploy": node},
        {},
    )


@pytest.mark.parametrize(
    ("node", "message"),
    [
        (
            component_node("component-netconf-executor", {"host": "127.0.0.1", "template-prefix": "x"}),
            "config deploy reaches inventory devices only: host, port may not be given",
        ),
        (
            component_node(
                "component-netconf-executor",
                {"script-type": "kotlin", "script-class-reference": "cba.Deploy", "template-prefix": "x"},
            ),
            "component type component-netconf-executor is not supported with a script",
        ),
        (
            {
                **component_node("component-netconf-executor", {"template-prefix": "x"}),
                "requirements": {"netconf-connection": {"capability": "netconf", "node": "pnf"}},
            },
            "the node template may not name a device node (netconf-connection)",
        ),
    ],
)
def test_a_cba_that_names_a_host_or_carries_a_script_is_refused_and_nothing_connects(
    client: httpx.Client, node: dict[str, Any], message: str
) -> None:
    listener, port = silent_port()
    with listener:
        listener.setblocking(False)
        add_device(
            client, {"name": "target", "host": "127.0.0.1", "port": port, "username": "u", "password": "p"}
        )
        node["interfaces"]["Component"]["operations"]["process"]["inputs"]["device"] = "target"
        node["interfaces"]["Component"]["operations"]["process"]["inputs"]["port"] = port
        save(client, _refused_cba(node))
        body = run_workflow(client, "refused", "config-deploy", {"device": "target"}, status=500)
        assert message in body["status"]["errorMessage"]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected


def test_a_device_password_is_nowhere_in_clear(
    client: httpx.Client, catalog: RunningService, device: NetconfDevice, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    add_device(client, device.inventory_entry(name="keyed", password=None, privateKey=device.client_key))
    add_device(client, device.inventory_entry(name="wrong", password=device.password + "-not"))
    assign(client, BLUEPRINT, "secret", **{"if-name": "eth20", "description": "secret test"})
    answers: list[str] = [
        deploy(client, BLUEPRINT, "secret", [device.name, "keyed"]).__repr__(),
        deploy(client, BLUEPRINT, "secret", "wrong", status=500).__repr__(),
        client.post(f"{DEVICES}/{device.name}/check").text,
        client.get(DEVICES).text,
        client.get(f"{DEVICES}/keyed").text,
        client.get("/api/v1/deploys").text,
        client.get("/api/v1/workflow/audit", params={"limit": 100}).text,
    ]
    secrets = [device.password, device.client_key.splitlines()[1]]
    stored = _every_stored_value(catalog)
    for secret in secrets:
        assert secret not in stored
        assert all(secret not in answer for answer in answers)
        assert secret not in caplog.text
        assert secret not in _database_files(catalog)


def _every_stored_value(catalog: RunningService) -> str:
    """Every row of every table of the catalog, as text (works on both databases)."""
    database = database_for(catalog.settings)
    with database.engine.connect() as connection:
        return "\n".join(
            repr(row) for table in metadata.sorted_tables for row in connection.execute(select(table)).all()
        )


def _database_files(catalog: RunningService) -> str:
    """The SQLite database files as bytes decoded loosely ('' on PostgreSQL)."""
    if catalog.settings.database_url is not None:
        return ""
    path: Path = catalog.settings.sqlite_path
    files = [path, path.with_name(path.name + "-wal")]
    return "".join(f.read_bytes().decode("latin-1") for f in files if f.exists())


def test_device_secrets_are_among_the_columns_a_key_rotation_seals_again() -> None:
    from netplatform.blueprints.tables import devices
    from netplatform.services import sealed_columns

    assert {devices.c.password, devices.c.private_key} <= set(sealed_columns())


def test_a_stored_device_password_is_sealed_with_the_platform_key(
    client: httpx.Client, catalog: RunningService, device: NetconfDevice
) -> None:
    from netplatform.blueprints.tables import devices
    from netplatform.store.secrets import SEALED_PREFIX, SecretKeys, reseal_column, sealer_for, sealer_of

    add_device(client, device.inventory_entry())
    with database_for(catalog.settings).engine.connect() as connection:
        stored = connection.execute(select(devices.c.password)).scalar_one()
    assert stored.startswith(SEALED_PREFIX)
    assert sealer_for(catalog.settings).open(stored) == device.password

    # a new key put first: the rotation seals the device's password with it
    new_key = SecretKeys.generate()
    rotated = sealer_of([new_key, *sealer_for(catalog.settings).keys.keys])
    assert reseal_column(database_for(catalog.settings), rotated, devices.c.password) == 1
    with database_for(catalog.settings).engine.connect() as connection:
        resealed = connection.execute(select(devices.c.password)).scalar_one()
    assert sealer_of([new_key]).open(resealed) == device.password
