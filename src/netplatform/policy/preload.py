"""The preloaded catalog: the platform's policy types, data types and naming policy.

Written by the team as YAML files beside this module (``preload/*.yaml``, from reference
sections 6-8) and stored on the first start of an empty store. A marker row records the load,
so a restart never re-creates a policy a user deleted; two instances starting together are
safe (the loser of the marker insert re-runs, sees the marker and stops). Preloaded policy
types cannot be deleted.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from .catalog import Catalog, new_entities
from .references import check_references
from .repository import Repository
from .tosca import Section, ServiceTemplate, parse_service_template

CATALOG_NAME = "platform"
PRELOAD_DIR = Path(__file__).parent / "preload"
_MAP_SECTIONS = ("data_types", "policy_types", "node_types")


@cache
def catalog_template() -> ServiceTemplate:
    """Every preload file merged into one service template (each name defined once)."""
    merged: dict[str, Any] = {"tosca_definitions_version": "tosca_simple_yaml_1_1_0"}
    policies: list[Any] = []
    for path in sorted(PRELOAD_DIR.glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for section in _MAP_SECTIONS:
            for key, value in (document.get(section) or {}).items():
                target = merged.setdefault(section, {})
                if key in target:
                    raise ValueError(
                        f"{path.name}: {section} {key} is already defined by another preload file"
                    )
                target[key] = value
        policies.extend((document.get("topology_template") or {}).get("policies") or [])
    if policies:
        merged["topology_template"] = {"policies": policies}
    return parse_service_template(merged, Section.POLICY_TYPES)


def load_catalog(catalog: Catalog) -> bool:
    """Store the catalog unless it was loaded before; True when this call loaded it."""
    template = catalog_template()

    def load(repository: Repository) -> bool:
        if repository.catalog_loaded(CATALOG_NAME):
            return False
        new = new_entities(template, repository)
        check_references(template, repository)
        repository.insert(new, preloaded=True)
        repository.mark_catalog_loaded(CATALOG_NAME)
        return True

    return catalog.store.write(load)
