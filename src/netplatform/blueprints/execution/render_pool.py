"""Templates render in child processes with a memory limit, and one that overruns its time is killed.

The fences (velocity.py, jinja_fence.py) bound what a single operation of a template may make,
but not what a template builds from many small ones: a Velocity ``#set($a = "$a$a")`` in a loop of
40, or a Jinja macro that calls itself with ``s ~ s``, asks for 2^40 bytes, and a thread cannot
be stopped once it runs. So a render runs in a renderer process whose address space is limited
(``RLIMIT_AS``) and which the parent kills when the step's time is up; the catalog's process
never holds a template's data. Renderers are started on first use from a fork server (a clean
process that imported only what renders), kept, and replaced when one is killed or dies.
"""

from __future__ import annotations

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
from typing import Any

from .templates import Template, parse_template
from .velocity import TemplateFailed

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
    than it started with. ``render`` answers the text or raises TemplateFailed with the reason."""

    def __init__(self, workers: int, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self._context: ForkServerContext = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([__name__])
        self._slots = threading.BoundedSemaphore(workers)
        self._idle: list[_Renderer] = []
        self._lock = threading.Lock()

    def render(self, job: RenderJob, timeout: float) -> str:
        if not self._slots.acquire(timeout=max(timeout, 0)):
            raise TemplateFailed(f"{job.name}: no renderer was free within the step's time")
        try:
            ok, text = self._render_on_one(job, timeout)
        finally:
            self._slots.release()
        if not ok:
            raise TemplateFailed(text)
        return text

    def _render_on_one(self, job: RenderJob, timeout: float) -> tuple[bool, str]:
        renderer = self._take()
        try:
            answer = renderer.render(job, timeout)
        except TimeoutError:
            renderer.stop()
            raise TemplateFailed(f"{job.name}: rendering timed out with its step") from None
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
