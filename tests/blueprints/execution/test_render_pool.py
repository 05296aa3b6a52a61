"""The renderer pool itself: a template that includes is sent its CBA's files once per renderer; a
step's renders stop at once when one ran out of time; renderers are shared between blueprints."""

from __future__ import annotations

import multiprocessing
import re
import threading
import time
from collections.abc import Iterator

import pytest

from netplatform.blueprints.execution import render_pool
from netplatform.blueprints.execution.render_pool import PARSED_KEPT, Admission, RenderJob, RenderPool
from netplatform.blueprints.execution.templates import JINJA
from netplatform.blueprints.execution.velocity import TemplateFailed

from ...support.waiting import wait_until

FILES = {"Templates/part.jinja": "{{ name }} from the part"}


def including(key: str = "model-1") -> RenderJob:
    text = "{% include 'Templates/part.jinja' %}!"
    return RenderJob(JINJA, "Templates/main.jinja", text, {"name": "r1"}, 1, FILES, key)


@pytest.fixture
def pool() -> Iterator[RenderPool]:
    made = RenderPool(workers=1, memory_mb=256)
    yield made
    made.close()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[RenderJob]:
    """Every job as it went down a renderer's pipe."""
    jobs: list[RenderJob] = []
    exchange = render_pool._Renderer._exchange

    def recording(self: render_pool._Renderer, job: RenderJob, deadline: float) -> tuple[bool | None, str]:
        jobs.append(job)
        return exchange(self, job, deadline)

    monkeypatch.setattr(render_pool._Renderer, "_exchange", recording)
    return jobs


def test_the_files_go_once_then_the_renderer_uses_what_it_parsed(
    pool: RenderPool, sent: list[RenderJob]
) -> None:
    assert pool.render(including(), 10) == "r1 from the part!"
    assert pool.render(including(), 10) == "r1 from the part!"
    assert [job.files_omitted for job in sent] == [False, True]
    assert sent[1].files == {}


def test_a_renderer_that_forgot_the_template_is_sent_the_files_again(
    pool: RenderPool, sent: list[RenderJob]
) -> None:
    assert pool.render(including(), 10) == "r1 from the part!"
    for n in range(PARSED_KEPT + 1):  # pushes the including template out of the renderer's cache
        pool.render(RenderJob(JINJA, f"t{n}", f"{n}", {}, 1), 10)
    sent.clear()
    assert pool.render(including(), 10) == "r1 from the part!"
    assert [job.files_omitted for job in sent] == [True, False]


def test_other_files_under_another_key_are_sent_and_used(pool: RenderPool) -> None:
    assert pool.render(including(), 10) == "r1 from the part!"
    changed = RenderJob(
        JINJA,
        "Templates/main.jinja",
        including().text,
        {"name": "r2"},
        1,
        {"Templates/part.jinja": "{{ name }}"},
        "m2",
    )
    assert pool.render(changed, 10) == "r2!"


# Within the fence's budget (under a million loop iterations), but far longer than half a second.
SLOW_TEXT = (
    "{% set s = 'x' * 100000 %}"
    "{% for i in range(999) %}{% for j in range(999) %}{{ s.find('y') }}{% endfor %}{% endfor %}"
)
SLOW = RenderJob(JINJA, "slow.jinja", SLOW_TEXT, {}, 1)


def renderers() -> set[int]:
    return {
        child.pid or 0 for child in multiprocessing.active_children() if child.name == "template-renderer"
    }


def test_a_step_whose_render_ran_out_of_time_renders_nothing_more() -> None:
    pool = RenderPool(workers=1, memory_mb=256, template_s=0.5)
    try:
        step = pool.for_step("bp", time.monotonic() + 30)
        with pytest.raises(
            TemplateFailed, match=re.escape("slow.jinja: rendering took longer than the 0.5 s a template")
        ):
            step.render(SLOW)
        wait_until(lambda: not renderers())  # the renderer that ran out of time was killed
        with pytest.raises(
            TemplateFailed, match=re.escape("t: not rendered: rendering took longer than the 0.5 s")
        ):
            step.render(RenderJob(JINJA, "t", "fine", {}, 1))
        assert renderers() == set()  # nothing was started for it
        assert (
            pool.for_step("bp", time.monotonic() + 30).render(RenderJob(JINJA, "t", "fine", {}, 1)) == "fine"
        )
    finally:
        pool.close()


def test_a_step_past_its_deadline_takes_no_renderer() -> None:
    pool = RenderPool(workers=1, memory_mb=256)
    try:
        step = pool.for_step("bp", time.monotonic() - 1)
        with pytest.raises(TemplateFailed, match="t: not rendered: rendering timed out with its step"):
            step.render(RenderJob(JINJA, "t", "fine", {}, 1))
        assert renderers() == set()
    finally:
        pool.close()


def test_one_blueprint_holds_at_most_its_share_of_renderers() -> None:
    admission = Admission(workers=2, per_blueprint=1)
    assert admission.acquire("a", 0)
    assert not admission.acquire("a", 0)  # a's share is taken; the other renderer stays free
    assert admission.acquire("b", 0)
    assert not admission.acquire("c", 0)  # every renderer is taken
    admission.release("a")
    assert admission.acquire("c", 0)
    assert admission.held() == {"b": 1, "c": 1}


def test_a_freed_renderer_goes_to_the_blueprint_that_holds_the_fewest() -> None:
    admission = Admission(workers=2, per_blueprint=2)
    assert admission.acquire("a", 0) and admission.acquire("a", 0)
    granted: list[str] = []

    def wait_for(blueprint: str) -> None:
        if admission.acquire(blueprint, 30):
            granted.append(blueprint)

    first = threading.Thread(target=wait_for, args=("a",))
    first.start()
    wait_until(lambda: admission.waiting() == 1)
    second = threading.Thread(target=wait_for, args=("b",))
    second.start()
    wait_until(lambda: admission.waiting() == 2)
    admission.release("a")  # a still holds one, b none: b's turn, though a asked first
    second.join(10)
    assert granted == ["b"]
    admission.release("b")
    first.join(10)
    assert granted == ["b", "a"]
