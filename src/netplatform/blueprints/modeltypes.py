"""Model types: the stored TOSCA type definitions enrichment completes archives from."""

from __future__ import annotations

from typing import Any

from ..clock import utc_now
from ..web.errors import BadRequest
from .names import bounded_text, checked_name
from .repository import ModelTypeRecord
from .tosca import TYPE_MODELS, strict_parse

DEFINITION_TYPES = tuple(TYPE_MODELS)


def model_type_record(
    *,
    name: str,
    derived_from: str,
    definition_type: str,
    definition: dict[str, Any],
    description: str,
    version: str,
    tags: str | None,
    updated_by: str,
) -> ModelTypeRecord:
    """A checked model type: a known kind whose definition reads strictly as that kind."""
    if definition_type not in TYPE_MODELS:
        raise BadRequest(
            f"Not Valid Model Root Type({definition_type}), It should be [{', '.join(DEFINITION_TYPES)}]"
        )
    strict_parse(TYPE_MODELS[definition_type], definition, f"definition of model type ({name})")
    return ModelTypeRecord(
        name=checked_name("modelName", name),
        derived_from=checked_name("derivedFrom", derived_from),
        definition_type=definition_type,
        definition=definition,
        description=description,
        version=checked_name("version", version),
        tags=bounded_text("tags", tags) if tags is not None else None,
        creation_date=utc_now(),
        updated_by=checked_name("updatedBy", updated_by),
    )


def starter_model_type(name: str, definition_type: str, definition: dict[str, Any]) -> ModelTypeRecord:
    """A starter-catalog type: identity and description come from the definition file itself."""
    derived_from = str(definition.get("derived_from", ""))
    return model_type_record(
        name=name,
        derived_from=derived_from,
        definition_type=definition_type,
        definition=definition,
        description=str(definition.get("description", "")),
        version=str(definition.get("version", "1.0.0")),
        tags=f"{name},{derived_from},{definition_type}",
        updated_by="System",
    )
