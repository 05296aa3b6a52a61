"""The starter catalog shipped with the project, loaded on request (never at start-up).

``starter/model_type/<kind>/<name>.json`` are model types (the folder is the definition type,
the file name the model name); ``starter/resource_dictionary/*.json`` are resource definitions;
each folder of ``starter/blueprints/`` is a sample CBA, zipped and published. A broken item is
logged and skipped, so one bad file never blocks the rest.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

from ..web.errors import ApiError
from . import repository
from .archive import zip_tree
from .catalog import BlueprintCatalog, SaveMode
from .dictionaries import dictionary_from_definition, parse_definition
from .modeltypes import starter_model_type

log = logging.getLogger("netplatform.blueprints.bootstrap")

STARTER = Path(__file__).parent / "starter"
MODEL_TYPE_KINDS = ("data_type", "artifact_type", "relationship_type", "node_type")


def bootstrap(catalog: BlueprintCatalog, *, model_types: bool, dictionaries: bool, blueprints: bool) -> None:
    if model_types:
        load_model_types(catalog)
    if dictionaries:
        load_dictionaries(catalog)
    if blueprints:
        load_blueprints(catalog)


def load_model_types(catalog: BlueprintCatalog) -> None:
    records = []
    for kind in MODEL_TYPE_KINDS:
        for path in _json_files(STARTER / "model_type" / kind):
            try:
                records.append(starter_model_type(path.stem, kind, json.loads(path.read_text())))
            except (ApiError, ValueError) as error:
                log.warning("starter model type %s skipped: %s", path.name, error)
    with catalog.db.write() as session:
        for record in records:
            repository.save_model_type(session, record)
    log.info("loaded %d starter model types", len(records))


def load_dictionaries(catalog: BlueprintCatalog) -> None:
    records = []
    for path in _json_files(STARTER / "resource_dictionary"):
        try:
            records.append(dictionary_from_definition(parse_definition(json.loads(path.read_text()))))
        except (ApiError, ValueError) as error:
            log.warning("starter resource dictionary %s skipped: %s", path.name, error)
    with catalog.db.write() as session:
        for record in records:
            repository.save_dictionary(session, record)
    log.info("loaded %d starter resource dictionaries", len(records))


def load_blueprints(catalog: BlueprintCatalog) -> None:
    for folder in sorted(p for p in (STARTER / "blueprints").iterdir() if p.is_dir()):
        try:
            catalog.save(io.BytesIO(zip_folder(folder)), SaveMode.PUBLISH)
        except ApiError as error:
            log.warning("starter blueprint %s skipped: %s", folder.name, error.message)


def zip_folder(folder: Path) -> bytes:
    """A folder as a CBA: its files at the zip root, in a stable order."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return zip_tree((path.relative_to(folder).as_posix(), path.read_bytes()) for path in files)


def _json_files(folder: Path) -> Iterator[Path]:
    return iter(sorted(folder.glob("*.json"))) if folder.is_dir() else iter(())
