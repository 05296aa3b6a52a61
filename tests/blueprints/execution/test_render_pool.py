"""The renderer pool itself: a template that includes is sent its CBA's files once per renderer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from netplatform.blueprints.execution import render_pool
from netplatform.blueprints.execution.render_pool import PARSED_KEPT, RenderJob, RenderPool
from netplatform.blueprints.execution.templates import JINJA

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
