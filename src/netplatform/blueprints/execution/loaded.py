"""A stored CBA opened for running: its resolved service template, mapping files, dictionaries and
parsed templates, each read once. Kept per stored model id (a model id is new on every save, so
a kept one never goes stale)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..cba import Cba
from ..tosca import NodeTemplate, NodeType, ResourceAssignment, ResourceDefinition, ServiceTemplate
from .templates import Template, parse_template


@dataclass
class LoadedBlueprint:
    name: str
    version: str
    model_id: str
    cba: Cba
    template: ServiceTemplate
    _templates: dict[str, Template] = field(default_factory=dict)
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

    def parsed_template(self, artifact_type: str, path: str) -> Template:
        with self._lock:
            found = self._templates.get(path)
            if found is None:
                text = self.cba.archive.read_text(path)
                found = self._templates[path] = parse_template(artifact_type, text, path, self.cba.archive)
            return found


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
