"""Templates render in renderer processes: a template that asks for more memory than allowed, or
runs past its step's time, fails its step, and the catalog goes on serving."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator

import httpx
import pytest

from ...conftest import ServiceStarter, SettingsFactory
from ...support.cbas import assignment, execution
from ...support.waiting import wait_until
from .conftest import run, save
from .test_render_bounds import SLOW_VELOCITY
from .test_resolution import one_step, response

DOUBLING_VELOCITY = '#set($a = "x")\n#foreach($i in [1..40])#set($a = "$a$a")#end\n$a.length()'
DOUBLING_JINJA = (
    "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}{% endmacro %}"
    "{{ d('x', 40) }}"
)


@pytest.fixture
def client(start_service: ServiceStarter, make_settings: SettingsFactory) -> Iterator[httpx.Client]:
    settings = make_settings(execution_render_memory_mb=64, execution_render_workers=1)
    with start_service("blueprints", settings).client() as catalog:
        yield catalog


def renderers() -> list[multiprocessing.process.BaseProcess]:
    return [child for child in multiprocessing.active_children() if child.name == "template-renderer"]


def save_template(client: httpx.Client, name: str, template: str, suffix: str, **kwargs: object) -> None:
    files = {"Templates/t-mapping.json": [assignment("host")], f"Templates/t-template.{suffix}": template}
    save(client, one_step(name, {"t": suffix}, files, **kwargs))


def run_template(client: httpx.Client, name: str, status: int = 200) -> dict[str, object]:
    return run(client, execution(name, "assign", {"assign-properties": {"host": "r1"}}), status)


def test_a_template_that_takes_too_much_memory_fails_its_step(client: httpx.Client) -> None:
    save_template(client, "fine", "host $host", "vtl")
    doubling = (
        # Velocity's interpreter bounds every string it builds before the memory limit is reached.
        ("v-double", DOUBLING_VELOCITY, "vtl", "line 2: a string longer than 4194304 characters"),
        ("j-double", DOUBLING_JINJA, "jinja", "needs more than the 64 MiB a template may use"),
    )
    for name, template, suffix, reason in doubling:
        save_template(client, name, template, suffix)
        failed = run_template(client, name, 500)
        assert reason in str(failed["status"])
        assert response(run_template(client, "fine"))["params"]["t"] == "host r1"


def test_a_template_that_overruns_its_step_is_stopped(client: httpx.Client) -> None:
    save_template(client, "fine", "host $host", "vtl")
    save_template(client, "slow", SLOW_VELOCITY, "vtl", timeout=1)
    run_template(client, "fine")
    [first] = renderers()
    failed = run_template(client, "slow", 500)
    assert "timed out" in str(failed["status"])
    wait_until(lambda: not first.is_alive())  # killed, not left running the loop
    assert response(run_template(client, "fine"))["params"]["t"] == "host r1"
    assert [renderer.pid for renderer in renderers()] != [first.pid]
