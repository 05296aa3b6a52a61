"""``TOSCA-Metadata/TOSCA.meta``: the archive's identity card (``Key: value`` lines)."""

from __future__ import annotations

from dataclasses import dataclass

from ..names import bounded_text, checked_name
from .archive import Archive, MalformedArchive

TOSCA_META_PATH = "TOSCA-Metadata/TOSCA.meta"
TEMPLATE_TYPES = ("DEFAULT", "KOTLIN_DSL", "GENERIC_SCRIPT")
_REQUIRED = ("Created-By", "Entry-Definitions", "Template-Name", "Template-Version", "Template-Tags")


@dataclass(frozen=True)
class ToscaMeta:
    created_by: str
    entry_definitions: str
    template_name: str
    template_version: str
    template_tags: str
    template_type: str = "DEFAULT"

    def as_template_metadata(self) -> dict[str, str]:
        """The entry template's metadata keys these values override."""
        return {
            "template_author": self.created_by,
            "template_name": self.template_name,
            "template_version": self.template_version,
            "template_tags": self.template_tags,
            "template_type": self.template_type,
        }


def parse_tosca_meta(text: str) -> ToscaMeta:
    """Split each line at its first ``:`` (values may hold more colons); unknown keys are ignored."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            values[key.strip()] = value.strip()
    missing = [key for key in _REQUIRED if key not in values]
    if missing:
        raise MalformedArchive(f"{TOSCA_META_PATH} lacks the key(s) {', '.join(missing)}")
    template_type = values.get("Template-Type", "DEFAULT").upper() or "DEFAULT"
    if template_type not in TEMPLATE_TYPES:
        raise MalformedArchive(
            f"Unknown blueprint type({values['Template-Type']}), "
            "It should be any one of these types[KOTLIN_DSL,GENERIC_SCRIPT, DEFAULT]"
        )
    if template_type == "KOTLIN_DSL":
        raise MalformedArchive("KOTLIN_DSL blueprints are not supported: the entry definition must be JSON")
    return ToscaMeta(
        created_by=bounded_text("TOSCA.meta Created-By", values["Created-By"], 255),
        entry_definitions=values["Entry-Definitions"],
        template_name=checked_name("TOSCA.meta Template-Name", values["Template-Name"]),
        template_version=checked_name("TOSCA.meta Template-Version", values["Template-Version"]),
        template_tags=bounded_text("TOSCA.meta Template-Tags", values["Template-Tags"]),
        template_type=template_type,
    )


def read_tosca_meta(archive: Archive) -> ToscaMeta:
    if not archive.has(TOSCA_META_PATH):
        raise MalformedArchive(f"the archive has no {TOSCA_META_PATH}")
    meta = parse_tosca_meta(archive.read_text(TOSCA_META_PATH))
    if not archive.has(meta.entry_definitions):
        raise MalformedArchive(f"couldn't get definition file under path({meta.entry_definitions})")
    return meta
