"""The NETCONF session's first exchange: a probe that changes nothing, sent again until the
device answers, so the caller's first operation is never the message a device drops with the
hello (netconfd does, under load). Against a real SSH device that drops on purpose."""

from __future__ import annotations

import time

import pytest

from netplatform.blueprints.execution.netconf.session import DeviceAccess, NetconfFailure, close, open_session

from ...support.forgetful_device import ForgetfulDevice, forgetful_device


def access(device: ForgetfulDevice, connect_timeout_s: float = 10) -> DeviceAccess:
    return DeviceAccess(
        name="forgetful",
        host="127.0.0.1",
        port=device.port,
        username="root",
        password=device.password,
        private_key=None,
        host_key=device.host_key,
        connect_timeout_s=connect_timeout_s,
        reply_timeout_s=5,
    )


def test_a_session_answers_its_probe_once_and_the_first_operation_goes_after_it() -> None:
    with forgetful_device(drop=0) as device:
        manager, _ = open_session(access(device))
        try:
            manager.lock(target="candidate")
        finally:
            close(manager)
        assert device.received == ["get-config", "lock", "close-session"]


def test_a_probe_the_device_drops_is_sent_again_and_the_lock_is_never_lost() -> None:
    with forgetful_device(drop=1) as device:
        manager, _ = open_session(access(device))
        try:
            manager.lock(target="candidate")
        finally:
            close(manager)
        assert device.received == ["get-config", "get-config", "lock", "close-session"]


def test_a_device_that_never_answers_after_the_hello_fails_within_the_connection_timeout() -> None:
    with forgetful_device(drop=1000) as device:
        started = time.monotonic()
        with pytest.raises(NetconfFailure) as failure:
            open_session(access(device, connect_timeout_s=2))
        took = time.monotonic() - started
    assert failure.value.kind == "timeout"
    assert "no NETCONF session within the connection timeout (2 s)" in str(failure.value)
    assert 1.5 < took < 4
    assert set(device.received) <= {"get-config", "close-session"} and device.received[0] == "get-config"
