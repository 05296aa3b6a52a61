"""Entity names and semantic versions: syntax, the null version, and "latest" ordering.

Every TOSCA entity is identified by ``name:version``. Names and versions arrive in paths, in
map keys and in entity fields; all of them are checked here with the reference's message, so a
bad one is a 400 wherever it comes from (and never reaches the database).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..web.errors import BadRequest

NULL_VERSION = "0.0.0"
"""The version of versionless data types and node templates (and of a missing version)."""

LATEST = "latest"
"""The path word that selects the highest version of a name."""

NAME_PATTERN = r"^[A-Za-z0-9\-_\.]+$"
NAME_MAX_LENGTH = 120
VERSION_PATTERN = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
VERSION_MAX_LENGTH = 20

# The same syntax for the OpenAPI document, in the portable regex dialect (``[0-9]``, not ``\d``).
JSON_NAME_PATTERN = r"^[A-Za-z0-9._-]+$"
_NUMBER = r"(0|[1-9][0-9]*)"
_SUFFIX = (
    r"(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?"
)
JSON_VERSION_PATTERN = rf"^{_NUMBER}\.{_NUMBER}\.{_NUMBER}{_SUFFIX}$"
JSON_ENTITY_VERSION_PATTERN = (
    rf"^(0\.0\.[1-9][0-9]*|0\.[1-9][0-9]*\.{_NUMBER}|[1-9][0-9]*\.{_NUMBER}\.{_NUMBER}){_SUFFIX}$"
)
"""A version other than the null version: policy types and policies need a real one (reference 4.1)."""
JSON_SELECTOR_PATTERN = rf"^(latest|{_NUMBER}\.{_NUMBER}\.{_NUMBER}{_SUFFIX})$"

_NAME = re.compile(NAME_PATTERN.replace("$", r"\Z"))
_VERSION = re.compile(VERSION_PATTERN.replace("$", r"\Z"))


def _syntax_error(parameter: str, value: object, pattern: str) -> BadRequest:
    return BadRequest(
        f'parameter "{parameter}": value "{value}", does not match regular expression "{pattern}"'
    )


def check_name(value: object, parameter: str = "name") -> str:
    """``value`` when it is a valid entity name, else 400 with the reference's message."""
    if not isinstance(value, str) or not _NAME.match(value):
        raise _syntax_error(parameter, value, NAME_PATTERN)
    if len(value) > NAME_MAX_LENGTH:
        raise BadRequest(f'parameter "{parameter}": value "{value}", is longer than {NAME_MAX_LENGTH}')
    return value


def check_version(value: object, parameter: str = "version") -> str:
    """``value`` when it is a semantic version of at most 20 characters, else 400."""
    if not isinstance(value, str) or not _VERSION.match(value):
        raise _syntax_error(parameter, value, VERSION_PATTERN)
    if len(value) > VERSION_MAX_LENGTH:
        raise BadRequest(f'parameter "{parameter}": value "{value}", is longer than {VERSION_MAX_LENGTH}')
    return value


def is_name(value: object) -> bool:
    return isinstance(value, str) and bool(_NAME.match(value)) and len(value) <= NAME_MAX_LENGTH


def is_version(value: object) -> bool:
    return isinstance(value, str) and bool(_VERSION.match(value)) and len(value) <= VERSION_MAX_LENGTH


def check_selector(value: str) -> str | None:
    """A path version: an exact version, or None for ``latest``."""
    return None if value == LATEST else check_version(value)


@dataclass(frozen=True)
class Reference:
    """``name`` or ``name:version`` as written in derived_from and map keys (version None: any)."""

    name: str
    version: str | None = None

    def __str__(self) -> str:
        return f"{self.name}:{self.version or NULL_VERSION}"


def parse_reference(text: object, parameter: str = "name") -> Reference:
    """Split ``name[:version]`` and check both parts."""
    if not isinstance(text, str):
        raise _syntax_error(parameter, text, NAME_PATTERN)
    name, sep, version = text.partition(":")
    check_name(name, parameter)
    return Reference(name, check_version(version, "version") if sep else None)


def sort_key(version: str) -> tuple[object, ...]:
    """Semantic-version precedence: 1.10.0 > 1.9.0, a pre-release below its release.

    Build metadata does not change precedence; it breaks ties only so that the order is total.
    """
    core, _, build = version.partition("+")
    core, _, prerelease = core.partition("-")
    numbers = tuple(int(part) for part in core.split("."))
    if not prerelease:
        return (*numbers, 1, (), build)
    identifiers = tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part) for part in prerelease.split(".")
    )
    return (*numbers, 0, identifiers, build)
