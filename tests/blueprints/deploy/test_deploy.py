"""Config deploy through the real HTTP API to real NETCONF devices (netconfd behind sshd): the
device's running configuration is read back by the test itself over its own NETCONF session."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import httpx

from netplatform.settings import Settings

from ...conftest import ServiceStarter
from ...support.deploy_calls import add_device, assign, deploy, result_of
from ...support.netconf_devices import NetconfDevice, silent_port
from ...support.servers import free_port
from ...support.waiting import wait_until
from ..conftest import upload
from ..execution.conftest import save
from .conftest import BLUEPRINT, deploy_cba, dictionary_entries


def test_assign_then_deploy_puts_the_rendered_values_in_the_running_config(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "day-1", **{"if-name": "eth7", "description": "uplink to core"})

    body = deploy(client, BLUEPRINT, "day-1", device.name)

    running = device.running()
    assert "<name>eth7</name>" in running
    assert "<description>uplink to core</description>" in running
    (result,) = result_of(body)["devices"]
    assert result["status"] == "success"
    assert result["datastore"] == "candidate"
    assert "uplink to core" in result["sent"]
    assert "+" in result["diff"] and "uplink to core" in result["diff"]
    assert body["status"]["errorMessage"] is None


def _holds_lock_free(device: NetconfDevice) -> None:
    """The device's candidate and running can be locked: the platform left no lock behind."""
    with device.session() as m:
        m.lock(target="candidate")
        m.lock(target="running")
        m.unlock(target="running")
        m.unlock(target="candidate")


def test_an_invalid_value_fails_the_step_with_the_devices_rpc_error_and_leaves_it_unchanged(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "bad", **{"if-name": "eth1", "description": "x", "enabled": "maybe"})
    before = device.running()

    body = deploy(client, BLUEPRINT, "bad", device.name, status=500)

    message = body["status"]["errorMessage"]
    assert "step(deploy): device(dev0)" in message
    assert "rpc-error invalid-value" in message
    assert "if:enabled" in message  # the error-path
    assert "invalid value" in message  # the device's error-message
    assert device.running() == before
    _holds_lock_free(device)
    (result,) = result_of(body)["devices"]
    assert result["status"] == "failure"


def test_a_changed_host_key_is_refused_before_anything_is_sent(
    client: httpx.Client, device: NetconfDevice, devices: list[NetconfDevice]
) -> None:
    save(client, deploy_cba())
    other_key = devices[1].host_key  # what the inventory pinned is not what the device presents
    add_device(client, device.inventory_entry(hostKey=other_key))
    assign(client, BLUEPRINT, "k", **{"if-name": "eth2", "description": "never"})
    logins_before = device.logins()

    body = deploy(client, BLUEPRINT, "k", device.name, status=500)

    message = body["status"]["errorMessage"]
    assert "host key differs from the pinned key" in message
    assert "nothing was sent" in message
    assert device.logins() == logins_before  # the platform never authenticated
    assert "never" not in device.running()


def test_a_wrong_password_is_a_clear_failure(client: httpx.Client, device: NetconfDevice) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry(password="not-the-password"))
    assign(client, BLUEPRINT, "pw", **{"if-name": "eth3", "description": "never"})

    body = deploy(client, BLUEPRINT, "pw", device.name, status=500)

    assert "authentication as root failed" in body["status"]["errorMessage"]
    assert "never" not in device.running()


def test_a_device_that_accepts_and_stays_silent_fails_within_its_connection_timeout(
    client: httpx.Client, device: NetconfDevice
) -> None:
    listener, port = silent_port()
    with listener:
        save(client, deploy_cba())
        add_device(client, device.inventory_entry(name="silent", port=port, connectTimeout=1))
        assign(client, BLUEPRINT, "s", **{"if-name": "eth4", "description": "never"})
        started = time.monotonic()

        body = deploy(client, BLUEPRINT, "s", "silent", status=500)

        elapsed = time.monotonic() - started
    assert "no NETCONF session within the connection timeout (1 s)" in body["status"]["errorMessage"]
    # paramiko alone would wait 15 s for the SSH banner: the device's own bound applied
    assert elapsed < 10, elapsed


def test_a_device_that_refuses_connections_is_a_clear_failure(client: httpx.Client) -> None:
    save(client, deploy_cba())
    add_device(
        client, {"name": "down", "host": "127.0.0.1", "port": free_port(), "username": "u", "password": "p"}
    )
    assign(client, BLUEPRINT, "d", **{"if-name": "eth4", "description": "never"})

    body = deploy(client, BLUEPRINT, "d", "down", status=500)

    assert "device(down) 127.0.0.1" in body["status"]["errorMessage"]
    assert "cannot connect" in body["status"]["errorMessage"]


def test_a_lock_held_by_another_session_is_a_clear_lock_denied_failure(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "l", **{"if-name": "eth5", "description": "never"})
    with device.session() as holder:
        holder.lock(target="candidate")
        try:
            body = deploy(client, BLUEPRINT, "l", device.name, status=500)
        finally:
            holder.unlock(target="candidate")

    message = body["status"]["errorMessage"]
    assert "lock candidate failed: rpc-error lock-denied" in message
    assert "never" not in device.running()
    _holds_lock_free(device)


def test_a_confirmed_commit_that_is_never_confirmed_leaves_the_old_config(
    client: httpx.Client, device: NetconfDevice
) -> None:
    """The step's time runs out while the new configuration runs unconfirmed (confirm-after):
    the platform does not confirm, and the device goes back to what it had."""
    deploy_inputs = {"confirm-timeout": 20, "confirm-after": 6}
    save(client, deploy_cba(deploy_inputs, timeout=2))
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "c", **{"if-name": "eth6", "description": "unconfirmed"})

    body = deploy(client, BLUEPRINT, "c", device.name, status=500)

    # the engine's timeout or the component's own wait for the device, whichever is seen first
    assert re.match(
        r"step\(deploy\): (timed out after 2.0 s|device\(dev0\): the step's time was up)",
        body["status"]["errorMessage"],
    )
    wait_until(lambda: "unconfirmed" in device.running(), timeout=10, what="the unconfirmed commit")
    wait_until(lambda: "unconfirmed" not in device.running(), timeout=30, what="the device to revert")
    request = {"requestId": body["commonHeader"]["requestId"]}
    wait_until(lambda: client.get("/api/v1/deploys", params=request).json(), what="the deploy record")
    (record,) = client.get("/api/v1/deploys", params=request).json()
    assert record["status"] == "failure"
    assert "the step's time was up" in record["errorMessage"]
    assert "cancelled, running is back to what it was" in record["errorMessage"]


def test_a_confirmed_commit_is_confirmed_once_the_read_back_matches(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba({"confirm-timeout": 4}))
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "ok", **{"if-name": "eth8", "description": "confirmed"})

    deploy(client, BLUEPRINT, "ok", device.name)

    assert "confirmed" in device.running()
    with device.session() as m:  # still there after the confirm timeout would have reverted it
        m.lock(target="running")  # refused while a confirmed commit is pending (RFC 6241 7.5)
        m.unlock(target="running")
    assert "confirmed" in device.running()


def test_check_answers_a_diff_and_changes_nothing(client: httpx.Client, device: NetconfDevice) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "v1", **{"if-name": "eth9", "description": "first"})
    deploy(client, BLUEPRINT, "v1", device.name)
    assign(client, BLUEPRINT, "v2", **{"if-name": "eth9", "description": "second"})

    body = deploy(client, BLUEPRINT, "v2", device.name, action="config-check")

    (result,) = result_of(body, "config-check")["devices"]
    assert result["status"] == "success"
    assert re.search(r"^-\s+<description>first</description>$", result["diff"], re.M)
    assert re.search(r"^\+\s+<description>second</description>$", result["diff"], re.M)
    assert 'xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type"' in result["diff"]
    running = device.running()
    assert "first" in running and "second" not in running
    _holds_lock_free(device)


def test_rollback_restores_the_config_from_before_the_last_deploy(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "r1", **{"if-name": "eth10", "description": "old"})
    deploy(client, BLUEPRINT, "r1", device.name)
    assign(client, BLUEPRINT, "r2", **{"if-name": "eth11", "description": "new"})
    deploy(client, BLUEPRINT, "r2", device.name)
    assert "eth11" in device.running()

    body = deploy(client, BLUEPRINT, "r2", device.name, action="config-rollback")

    running = device.running()
    assert "eth11" not in running and "<description>old</description>" in running
    (result,) = result_of(body, "config-rollback")["devices"]
    assert result["status"] == "success"


def test_rollback_without_a_deploy_to_roll_back_fails_clearly(
    client: httpx.Client, device: NetconfDevice
) -> None:
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())

    body = deploy(client, BLUEPRINT, "none", device.name, status=500, action="config-rollback")

    assert (
        "no successful deploy of this device by the platform to roll back" in body["status"]["errorMessage"]
    )


def test_one_run_deploys_five_devices_in_parallel(client: httpx.Client, devices: list[NetconfDevice]) -> None:
    five = devices[1:6]
    for each in five:
        each.reset()
    save(client, deploy_cba())
    for each in five:
        add_device(client, each.inventory_entry())
    assign(client, BLUEPRINT, "many", **{"if-name": "eth12", "description": "everywhere"})

    body = deploy(client, BLUEPRINT, "many", [each.name for each in five])

    result = result_of(body)
    assert sorted(result["succeeded"]) == sorted(each.name for each in five)
    assert len(result["devices"]) == 5
    for each in five:
        assert "everywhere" in each.running()
    records = client.get("/api/v1/deploys", params={"requestId": body["commonHeader"]["requestId"]}).json()
    assert len(records) == 5
    spans = [(_moment(r["startDate"]), _moment(r["startDate"]) + r["durationMs"] / 1000) for r in records]
    latest_start = max(start for start, _ in spans)
    earliest_end = min(end for _, end in spans)
    assert latest_start < earliest_end  # all five were being deployed at one moment


def test_a_failing_device_fails_the_run_and_the_output_says_which_succeeded(
    client: httpx.Client, devices: list[NetconfDevice]
) -> None:
    good = devices[1]
    good.reset()
    save(client, deploy_cba())
    add_device(client, good.inventory_entry())
    add_device(client, good.inventory_entry(name="bad-password", password="wrong"))
    assign(client, BLUEPRINT, "mixed", **{"if-name": "eth13", "description": "mixed"})

    body = deploy(client, BLUEPRINT, "mixed", [good.name, "bad-password"], status=500)

    result = result_of(body)
    assert result["succeeded"] == [good.name]
    assert result["failed"] == ["bad-password"]
    assert "device(bad-password)" in body["status"]["errorMessage"]


def _moment(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_a_cba_enriched_against_the_starter_types_publishes_and_deploys(
    client: httpx.Client, device: NetconfDevice
) -> None:
    """The starter component-netconf-executor declares the declarative step's inputs: a CBA
    using them passes enrich-and-publish (undeclared inputs would be refused)."""
    kinds = {"loadModelType": True, "loadResourceDictionary": True}
    assert client.post("/api/v1/blueprint-model/bootstrap", json=kinds).status_code == 200
    for entry in dictionary_entries().values():
        assert client.post("/api/v1/dictionary/definition", json=entry).status_code == 200
    archive = deploy_cba({"datastore": "candidate", "default-operation": "merge", "confirm-timeout": 5})
    published = upload(client, "/enrichandpublish", archive)
    assert published.status_code == 200, published.text
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "enriched", **{"if-name": "eth30", "description": "enriched"})

    deploy(client, BLUEPRINT, "enriched", device.name)

    assert "<description>enriched</description>" in device.running()


def test_two_instances_deploy_to_one_device_one_after_the_other(
    start_service: ServiceStarter, settings: Settings, device: NetconfDevice
) -> None:
    """Two catalogs over one database (each with its own in-process locks): the device's lease
    in the database makes the second wait for the first, so neither meets the other's lock."""
    first, second = start_service("blueprints", settings), start_service("blueprints", settings)
    with first.client() as one, second.client() as two:
        save(one, deploy_cba())
        add_device(one, device.inventory_entry())
        assign(one, BLUEPRINT, "x", **{"if-name": "eth40", "description": "from one"})
        assign(one, BLUEPRINT, "y", **{"if-name": "eth41", "description": "from two"})
        with ThreadPoolExecutor(2) as pool:
            runs = [
                pool.submit(deploy, one, BLUEPRINT, "x", device.name),
                pool.submit(deploy, two, BLUEPRINT, "y", device.name),
            ]
            bodies = [run.result() for run in runs]  # each asserts its 200
        records = one.get("/api/v1/deploys", params={"device": device.name}).json()
    assert all(body["status"]["errorMessage"] is None for body in bodies)
    assert [r["status"] for r in records] == ["success", "success"]
    (later, earlier) = records
    assert _moment(earlier["startDate"]) + earlier["durationMs"] / 1000 <= _moment(later["startDate"]) + 0.05
    running = device.running()
    assert "eth40" in running and "eth41" in running


def test_a_device_without_a_candidate_is_edited_in_running_and_read_back(
    client: httpx.Client, running_only_device: NetconfDevice
) -> None:
    device = running_only_device
    device.reset()
    save(client, deploy_cba())
    add_device(client, device.inventory_entry())
    assign(client, BLUEPRINT, "r", **{"if-name": "eth50", "description": "straight to running"})
    assign(client, BLUEPRINT, "bad", **{"if-name": "eth51", "description": "x", "enabled": "maybe"})

    body = deploy(client, BLUEPRINT, "r", device.name)

    (result,) = result_of(body)["devices"]
    assert result["datastore"] == "running" and result["status"] == "success"
    assert "<description>straight to running</description>" in device.running()
    before = device.running()
    failed = deploy(client, BLUEPRINT, "bad", device.name, status=500)
    assert "edit-config running failed: rpc-error invalid-value" in failed["status"]["errorMessage"]
    assert device.running() == before
    with device.session() as m:  # no lock left behind
        m.lock(target="running")
        m.unlock(target="running")
    check = deploy(client, BLUEPRINT, "r", device.name, status=500, action="config-check")
    assert "check needs a device with :candidate" in check["status"]["errorMessage"]
