"""A stored CBA opened for running: its resolved service template, mapping files, dictionaries and
parsed templates, each read once. Kept per stored model id (a model id is new on every save, so
a kept one never goes stale)."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..catalog.archive import MalformedArchive
from ..catalog.cba import Cba
from ..catalog.tosca import NodeTemplate, NodeType, ResourceAssignment, ResourceDefinition, ServiceTemplate
from .templates import JINJA

# A Jinja template that may read other files of the CBA ({% include %}, {% import %}, ...).
_READS_FILES = re.compile(r"\{%-?\s*(include|import|from|extends)\b")
_INCLUDABLE_BYTES = 1024 * 1024


@dataclass
class LoadedBlueprint:
    name: str
    version: str
    model_id: str
    cba: Cba
    template: ServiceTemplate
    _templates: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    _definitions: dict[str, ResourceDefinition] | None = None
    _definitions_read: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def of(cls, name: str, version: str, model_id: str, cba: Cba) -> LoadedBlueprint:
        return cls(name, version, model_id, cba, cba.resolved())

    @property
    def node_templates(self) -> dict[str, NodeTemplate]:
        topology = self.template.topology_template
        return (topology.node_templates or {}) if topology else {}

    @property
    def node_types(self) -> dict[str, NodeType]:
        return self.template.node_types or {}

    @property
    def dsl_definitions(self) -> dict[str, Any]:
        return self.template.dsl_definitions or {}

    def assignments(self, path: str) -> list[ResourceAssignment]:
        with self._lock:
            return self.cba.assignments(path)

    def resource_definitions(self) -> dict[str, ResourceDefinition]:
        """``Definitions/resources_definition_types.json`` (empty when the CBA has none)."""
        with self._lock:
            if not self._definitions_read:
                self._definitions = self.cba.resource_definitions()
                self._definitions_read = True
            return self._definitions or {}

    def template_source(self, artifact_type: str, path: str) -> tuple[str, dict[str, str]]:
        """A template's text and the CBA's texts it may include (a renderer has no archive)."""
        with self._lock:
            found = self._templates.get(path)
            if found is None:
                text = self.cba.archive.read_text(path)
                files = self._texts() if artifact_type == JINJA and _READS_FILES.search(text) else {}
                found = self._templates[path] = (text, files)
            return found

    def _texts(self) -> dict[str, str]:
        """The CBA's UTF-8 files up to _INCLUDABLE_BYTES: what an include can name. Any other
        file (binary, larger, unreadable) is left out, so including it fails its step as a
        template not found, while a template that includes nothing of it still renders."""
        archive = self.cba.archive
        texts = {}
        for name in archive.names:
            try:
                data = archive.read(name)
                if len(data) <= _INCLUDABLE_BYTES:
                    texts[name] = data.decode("utf-8-sig")
            except (MalformedArchive, UnicodeDecodeError):
                continue
        return texts


class LoadedCache:
    """The most recently used opened CBAs, by model id."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._kept: OrderedDict[str, LoadedBlueprint] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, model_id: str) -> LoadedBlueprint | None:
        with self._lock:
            found = self._kept.get(model_id)
            if found is not None:
                self._kept.move_to_end(model_id)
            return found

    def put(self, loaded: LoadedBlueprint) -> None:
        with self._lock:
            self._kept[loaded.model_id] = loaded
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
