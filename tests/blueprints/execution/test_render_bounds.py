"""Bounds a CBA cannot raise, through real runs (issue 37, points 4 and 8): the operator's render
time caps, the Jinja budget out of the template's reach, macro calls counted, a step out of time
that stops at once, and renderers shared between blueprints."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from multiprocessing import popen_forkserver
from typing import Any

import httpx
import pytest

from ...conftest import ServiceStarter, SettingsFactory
from ...support.cbas import assignment, execution
from ...support.waiting import wait_until
from .conftest import run, save
from .test_resolution import one_step, response

# Within every budget (under a million iterations, small strings), but many seconds long.
SLOW_VELOCITY = (
    '#set($s = "x")#foreach($i in [1..17])#set($s = "$s$s")#end'
    '#foreach($i in [1..999])#foreach($j in [1..999])#set($k = $s.indexOf("y"))#end#end'
)


def save_step(client: httpx.Client, name: str, templates: dict[str, tuple[str, str]], **kwargs: Any) -> None:
    """A one-step CBA; ``templates`` maps each prefix to (kind, text), each prefix over ``host``."""
    files: dict[str, Any] = {}
    for prefix, (kind, text) in templates.items():
        files[f"Templates/{prefix}-mapping.json"] = [assignment("host")]
        files[f"Templates/{prefix}-template.{kind}"] = text
    save(client, one_step(name, {prefix: kind for prefix, (kind, _) in templates.items()}, files, **kwargs))


def run_step(client: httpx.Client, name: str, status: int = 200, mode: str = "sync") -> dict[str, Any]:
    return run(client, execution(name, "assign", {"assign-properties": {"host": "r1"}}, mode=mode), status)


def failure(client: httpx.Client, name: str) -> str:
    message: str = run_step(client, name, 500)["status"]["errorMessage"]
    return message


def renderers() -> set[int]:
    return {
        child.pid or 0 for child in multiprocessing.active_children() if child.name == "template-renderer"
    }


@pytest.fixture
def catalog(start_service: ServiceStarter, make_settings: SettingsFactory) -> Iterator[Any]:
    """``catalog(**settings)``: a catalog started with those settings, as a client."""
    clients: list[httpx.Client] = []

    def start(**settings: Any) -> httpx.Client:
        client = start_service("blueprints", make_settings(**settings)).client()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.close()


def test_the_jinja_budget_is_out_of_the_templates_reach(client: httpx.Client) -> None:
    for name, rebinding in (
        ("joiner", "{% set _netplatform_loop_tick = joiner %}"),
        ("tag", "{% set netplatform_tick = none %}{% set tick = none %}"),
    ):
        spin = "{% for i in range(2000) %}{% for j in range(2000) %}{% endfor %}{% endfor %}"
        save_step(client, f"rebind-{name}", {"j": ("jinja", rebinding + spin)}, timeout=60)
        assert "more than 1000000 loop iterations" in failure(client, f"rebind-{name}")


def test_a_macro_calling_itself_twice_is_counted(client: httpx.Client) -> None:
    # 2^31 and 2^19 calls, nested 30 and 19 deep: a budget of loops alone never stopped them
    jinja = "{% macro m(n) %}{% if n %}{{ m(n - 1) }}{{ m(n - 1) }}{% endif %}{% endmacro %}{{ m(30) }}"
    velocity = '#macro(m $s)#if($s.length() < 18)#m("${s}x")#m("${s}x")#end#end#m("")'
    save_step(client, "twice-j", {"j": ("jinja", jinja)}, timeout=30)
    save_step(client, "twice-v", {"v": ("vtl", velocity)}, timeout=30)
    for name in ("twice-j", "twice-v"):
        assert "more than 1000000 loop iterations (a macro call counts 10)" in failure(client, name)


def test_render_time_is_the_operators_to_bound_not_the_cbas(catalog: Any) -> None:
    per_template = catalog(execution_render_template_s=1)
    save_step(per_template, "slow", {"s": ("vtl", SLOW_VELOCITY)}, timeout=2_000_000_000)
    assert "rendering took longer than the 1 s a template may take" in failure(per_template, "slow")
    per_step = catalog(execution_render_template_s=30, execution_render_step_s=1)
    three = {"a": ("vtl", SLOW_VELOCITY), "b": ("vtl", "$host"), "c": ("vtl", "$host")}
    save_step(per_step, "slow-step", three, timeout=2_000_000_000)
    message = failure(per_step, "slow-step")
    assert (
        "a-template.vtl: the step's templates took longer than the 1 s a step may spend rendering" in message
    )
    assert "b-template.vtl: not rendered: the step's templates took longer" in message


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pid of every process started from a fork server from now on (the catalog runs in this
    process: its renderers). The standard library's launch is counted, and still does its work."""
    started: list[int] = []
    launch = popen_forkserver.Popen._launch  # type: ignore[attr-defined]  # not in typeshed

    def counted(self: popen_forkserver.Popen, process: Any) -> None:
        launch(self, process)
        started.append(self.pid)

    monkeypatch.setattr(popen_forkserver.Popen, "_launch", counted)
    return started


def test_a_step_out_of_time_stops_at_once(client: httpx.Client, forked: list[int]) -> None:
    occurrences = {"occurrence": 300}
    save_step(
        client, "stops", {"a": ("vtl", SLOW_VELOCITY), "b": ("vtl", "$host")}, timeout=1, inputs=occurrences
    )
    message = failure(client, "stops")  # the engine's timer or the step's own deadline, whichever is first
    assert "step(s): timed out after 1.0 s" in message  # the timer's or the step's own check, alike
    # The renderer of occurrence 1's first template (started late when the fork server itself was
    # slow to start), killed when time was up.
    wait_until(lambda: forked and not renderers())
    # Nothing more is forked: watched for a while, as no event marks that nothing happens. Before,
    # the step went on over its 600 renders, forking a renderer and killing it at once for each.
    watched_until = time.monotonic() + 3
    while time.monotonic() < watched_until and len(forked) == 1:
        time.sleep(0.05)
    assert len(forked) == 1


def test_one_blueprint_cannot_hold_every_renderer(catalog: Any) -> None:
    client = catalog(execution_render_workers=2, execution_render_template_s=3)
    save_step(client, "busy", {"s": ("vtl", SLOW_VELOCITY)})
    save_step(client, "quick", {"q": ("vtl", "quick $host")}, timeout=2)
    for _ in range(2):  # two renders of one blueprint at once: only one renderer is theirs
        run_step(client, "busy", mode="async")
    wait_until(renderers)
    assert response(run_step(client, "quick"))["params"] == {"q": "quick r1"}
