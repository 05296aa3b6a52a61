"""Who may run a workflow: blueprints.writer (write on the execution resource), or an ``execute``
grant on the blueprint (``platform.blueprints.execution|<blueprintName>|execute``). A caller who
can hold neither is refused before the body is read, as the kernel refuses other routes; the
blueprint is known only from the body."""

from __future__ import annotations

from dataclasses import dataclass

from ...access.directory import AccessDirectory
from ...access.permissions import Permission
from ...web.errors import Forbidden
from ..spec import PERMISSIONS

EXECUTE_TYPE = "platform.blueprints.execution"
EXECUTE_RULE = f"blueprints.writer, or {EXECUTE_TYPE}|<blueprintName>|execute"
WRITER = PERMISSIONS.write("execution")


@dataclass(frozen=True)
class Executor:
    """The caller of a run, and the directory that decides what it may run (blueprints/deps.py
    builds one per request)."""

    user: str
    access: AccessDirectory

    async def check_caller(self) -> None:
        """403 unless the caller may run some blueprint."""
        grants = await self.access.grants(self.user)
        if grants.allows(WRITER) or any(p.type in (EXECUTE_TYPE, "*") for p in grants.permissions):
            return
        raise self._refused("<blueprintName>")

    async def check_blueprint(self, blueprint_name: str) -> None:
        """403 unless the caller may run ``blueprint_name``."""
        if await self.access.allows(self.user, WRITER):
            return
        if not await self.access.allows(self.user, Permission(EXECUTE_TYPE, blueprint_name, "execute")):
            raise self._refused(blueprint_name)

    def _refused(self, blueprint_name: str) -> Forbidden:
        return Forbidden(
            f"User {self.user} does not have permission {WRITER} nor {EXECUTE_TYPE}|{blueprint_name}|execute"
        )
