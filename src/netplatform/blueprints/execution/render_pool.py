"""Templates render in child processes with a memory limit, and one that overruns its time is killed.

The fences (velocity_nodes.py, jinja_fence.py) bound what a template may compute, but not every
way it can hold memory: a Jinja macro that calls itself with ``s ~ s`` asks for 2^40 bytes, and a
thread cannot be stopped once it runs. So a render runs in a renderer process whose address space
is limited (``RLIMIT_AS``) and which the parent kills when its time is up: the operator's cap per
template and per step, or the step's own deadline, whichever comes first (a CBA's timeout can only
shorten them). The catalog's process never holds a template's data. Renderers are started on first
use from a fork server (a clean process that imported only what renders), kept, and replaced when
one is killed or dies; :class:`Admission` shares them between blueprints.
"""

from __future__ import annotations

import itertools
import multiprocessing
import resource
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from .templates import Template, parse_template
from .velocity import TemplateFailed

if TYPE_CHECKING:
    from ...settings import Settings

PARSED_KEPT = 256  # parsed templates a renderer keeps (the texts repeat across runs)
_MiB = 1024 * 1024


@dataclass(frozen=True)
class RenderJob:
    """One template to render: its text, the data, and what ``{% include %}`` may read: ``files``,
    named by ``files_key`` (the stored model's id: the same key, the same files). A renderer that
    parsed the template with those files already is sent the job without them
    (``files_omitted``), and asks for them again if it has since forgotten the template."""

    artifact_type: str
    name: str
    text: str
    data: Mapping[str, Any]
    occurrence: int
    files: Mapping[str, str] = field(default_factory=dict)
    files_key: str = ""
    files_omitted: bool = False

    @property
    def parse_key(self) -> tuple[Any, ...]:
        return (self.artifact_type, self.name, self.text, self.files_key)


class RenderPool:
    """At most ``workers`` renders at once, each in a renderer of at most ``memory_mb`` MiB more
    than it started with, for at most ``template_s`` seconds (the operator's bound: a CBA's step
    timeout can only shorten it); one blueprint holds at most ``per_blueprint`` renderers at once
    (default half of them, at least one). ``render`` answers the text or raises TemplateFailed
    with the reason; :meth:`for_step` renders a step's templates under its bounds."""

    def __init__(
        self,
        workers: int,
        memory_mb: int,
        *,
        template_s: float = 10.0,
        step_s: float = 60.0,
        per_blueprint: int = 0,
    ) -> None:
        self.memory_mb = memory_mb
        self.template_s = template_s
        self.step_s = step_s
        self._context: ForkServerContext = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([__name__])
        self.admission = Admission(workers, per_blueprint or max(1, workers // 2))
        self._idle: list[_Renderer] = []
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> RenderPool:
        return cls(
            settings.execution_render_workers,
            settings.execution_render_memory_mb,
            template_s=settings.execution_render_template_s,
            step_s=settings.execution_render_step_s,
            per_blueprint=settings.execution_render_workers_per_blueprint,
        )

    def for_step(self, blueprint: str, deadline: float) -> StepRenders:
        """The renders of one step of ``blueprint``, which must end by ``deadline`` (monotonic)."""
        return StepRenders(self, blueprint, deadline)

    def render(self, job: RenderJob, timeout: float, blueprint: str = "") -> str:
        """``job`` rendered within ``timeout`` s (waiting for a renderer included), at most
        :attr:`template_s` of it rendering."""
        deadline = time.monotonic() + max(timeout, 0)
        return self.render_until(job, deadline, self.template_s, blueprint)

    def render_until(self, job: RenderJob, deadline: float, render_s: float, blueprint: str) -> str:
        """Wait for a renderer until ``deadline``, then render for at most ``render_s`` (and not
        past ``deadline``). Raises :class:`RenderTimedOut` when the time is up while rendering."""
        if not self.admission.acquire(blueprint, deadline - time.monotonic()):
            raise TemplateFailed(f"{job.name}: no renderer was free within the step's time")
        try:
            timeout = min(render_s, deadline - time.monotonic(), self.template_s)
            ok, text = self._render_on_one(job, timeout)
        finally:
            self.admission.release(blueprint)
        if not ok:
            raise TemplateFailed(text)
        return text

    def _render_on_one(self, job: RenderJob, timeout: float) -> tuple[bool, str]:
        if timeout <= 0:  # no time left: nothing is started (nor forked), nothing killed
            raise RenderTimedOut(job.name)
        renderer = self._take()
        try:
            answer = renderer.render(job, timeout)
        except TimeoutError:
            renderer.stop()
            raise RenderTimedOut(job.name) from None
        except (EOFError, OSError):  # the renderer died: the kernel's OOM killer, a signal
            renderer.stop()
            raise TemplateFailed(f"{job.name}: the renderer stopped while rendering") from None
        with self._lock:
            self._idle.append(renderer)
        return answer

    def _take(self) -> _Renderer:
        with self._lock:
            while self._idle:
                renderer = self._idle.pop()
                if renderer.alive:
                    return renderer
                renderer.stop()
        return _Renderer(self._context, self.memory_mb)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for renderer in idle:
            renderer.stop()


class RenderTimedOut(TemplateFailed):
    """A render stopped (its renderer killed) because its time was up."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name}: rendering timed out")
        self.name = name


class StepRenders:
    """One step's renders: each for at most the pool's ``template_s``, all together for at most
    its ``step_s``, none past the step's deadline. Once one has run out of time, the step renders
    nothing more: later renders fail at once, without taking (or forking) a renderer."""

    def __init__(self, pool: RenderPool, blueprint: str, deadline: float) -> None:
        self.pool, self.blueprint, self.deadline = pool, blueprint, deadline
        self.spent = 0.0
        self.stopped: str | None = None  # why the step renders nothing more

    def render(self, job: RenderJob) -> str:
        if self.stopped is not None:
            raise TemplateFailed(f"{job.name}: not rendered: {self.stopped}")
        left = self.pool.step_s - self.spent
        why = self._binding(left)
        if left <= 0 or time.monotonic() >= self.deadline:
            self.stopped = why
            raise TemplateFailed(f"{job.name}: not rendered: {why}")
        started = time.monotonic()
        try:
            return self.pool.render_until(job, self.deadline, left, self.blueprint)
        except RenderTimedOut as timed_out:
            self.stopped = why
            raise TemplateFailed(f"{timed_out.name}: {why}") from None
        finally:
            self.spent += time.monotonic() - started

    def _binding(self, left: float) -> str:
        """Which bound a render started now would run into first, as a reason."""
        pool, step_left = self.pool, self.deadline - time.monotonic()
        if step_left <= min(left, pool.template_s):
            return "rendering timed out with its step"
        if left < pool.template_s:
            return f"the step's templates took longer than the {_s(pool.step_s)} s a step may spend rendering"
        return f"rendering took longer than the {_s(pool.template_s)} s a template may take"


def _s(seconds: float) -> str:
    return f"{seconds:g}"


class Admission:
    """Who may render next: at most ``workers`` at once, at most ``per_blueprint`` of one
    blueprint; a renderer that comes free goes to the waiting blueprint that holds the fewest,
    the longest waiting first among equals. So runs of one blueprint cannot take every renderer,
    and a blueprint that renders little is not queued behind one that renders much."""

    def __init__(self, workers: int, per_blueprint: int) -> None:
        self.workers, self.per_blueprint = workers, per_blueprint
        self._changed = threading.Condition()
        self._held: dict[str, int] = {}
        self._waiting: list[tuple[int, str]] = []  # (ticket, blueprint), oldest first
        self._tickets = itertools.count()

    def acquire(self, blueprint: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._changed:
            ticket = (next(self._tickets), blueprint)
            self._waiting.append(ticket)
            try:
                while not self._turn_of(ticket):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._changed.wait(left)
                self._held[blueprint] = self._held.get(blueprint, 0) + 1
                return True
            finally:
                self._waiting.remove(ticket)
                self._changed.notify_all()

    def release(self, blueprint: str) -> None:
        with self._changed:
            self._held[blueprint] -= 1
            if not self._held[blueprint]:
                del self._held[blueprint]
            self._changed.notify_all()

    def held(self) -> dict[str, int]:
        """Renderers in use, by blueprint."""
        with self._changed:
            return dict(self._held)

    def waiting(self) -> int:
        """Renders waiting for a renderer."""
        with self._changed:
            return len(self._waiting)

    def _turn_of(self, ticket: tuple[int, str]) -> bool:
        if sum(self._held.values()) >= self.workers:
            return False
        eligible = [
            waiting for waiting in self._waiting if self._held.get(waiting[1], 0) < self.per_blueprint
        ]
        if not eligible:
            return False
        first = min(eligible, key=lambda waiting: (self._held.get(waiting[1], 0), waiting[0]))
        return first == ticket


class _Renderer:
    """One renderer process and the pipe to it."""

    def __init__(self, context: ForkServerContext, memory_mb: int) -> None:
        self.connection, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child, memory_mb), name="template-renderer", daemon=True
        )
        self.process.start()
        child.close()
        # Templates this renderer was sent with their files: it may still hold them parsed.
        self.sent_files: set[tuple[Any, ...]] = set()

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    def render(self, job: RenderJob, timeout: float) -> tuple[bool, str]:
        deadline = time.monotonic() + timeout
        key = job.parse_key
        if job.files and key in self.sent_files:
            ok, text = self._exchange(replace(job, files={}, files_omitted=True), deadline)
            if ok is not None:
                return ok, text
        if job.files:
            if len(self.sent_files) >= PARSED_KEPT:
                self.sent_files.clear()
            self.sent_files.add(key)
        ok, text = self._exchange(job, deadline)
        return bool(ok), text

    def _exchange(self, job: RenderJob, deadline: float) -> tuple[bool | None, str]:
        """The renderer's answer: rendered or not, and the text or the reason; None when it
        needs the job's files after all."""
        self.connection.send(job)
        if not self.connection.poll(max(deadline - time.monotonic(), 0)):
            raise TimeoutError
        ok, text = self.connection.recv()
        return ok, str(text)

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()


# --- in the renderer process -----------------------------------------------------------------


def _serve(connection: Connection, memory_mb: int) -> None:
    _limit_memory(memory_mb)
    parsed: Parsed = OrderedDict()
    while True:
        try:
            job: RenderJob = connection.recv()
        except (EOFError, OSError):
            return  # the parent went away
        connection.send(_answer(job, parsed, memory_mb))


def _limit_memory(memory_mb: int) -> None:
    """The address space may grow by ``memory_mb`` over what the renderer holds at start."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    limit = pages * resource.getpagesize() + memory_mb * _MiB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


Parsed = OrderedDict[tuple[Any, ...], Template]


def _answer(job: RenderJob, parsed: Parsed, memory_mb: int) -> tuple[bool | None, str]:
    if job.files_omitted and job.parse_key not in parsed:
        return None, "the files are needed"
    try:
        return True, _parsed(job, parsed).render(job.data, job.occurrence)
    except TemplateFailed as failure:
        return False, str(failure)
    except MemoryError as error:
        parsed.clear()
        where = str(error) or job.name
        return False, f"{where}: rendering needs more than the {memory_mb} MiB a template may use"
    except RecursionError:
        return False, f"{job.name}: nested too deeply"


def _parsed(job: RenderJob, parsed: Parsed) -> Template:
    key = job.parse_key
    found = parsed.get(key)
    if found is None:
        found = parsed[key] = parse_template(job.artifact_type, job.text, job.name, job.files)
        if len(parsed) > PARSED_KEPT:
            parsed.popitem(last=False)
    else:
        parsed.move_to_end(key)
    return found
