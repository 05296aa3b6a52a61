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

from ..store.errors import WriteConflict
from ..web.errors import ApiError
from .blueprint_models import BlueprintModels, SaveMode
from .catalog.archive import zip_tree
from .dictionaries import Dictionaries, dictionary_from_definition, parse_definition
from .model_types import ModelTypes, starter_model_type

log = logging.getLogger("netplatform.blueprints.starter_catalog")

STARTER = Path(__file__).parent / "starter"
MODEL_TYPE_KINDS = ("data_type", "artifact_type", "relationship_type", "node_type")


class StarterCatalog:
    """Loads the starter catalog (the shipped one unless ``root`` names another) through the
    service objects that store each kind."""

    def __init__(
        self,
        models: BlueprintModels,
        model_types: ModelTypes,
        dictionaries: Dictionaries,
        root: Path = STARTER,
    ) -> None:
        self.models = models
        self.model_types = model_types
        self.dictionaries = dictionaries
        self.root = root

    def load(self, *, model_types: bool, dictionaries: bool, blueprints: bool) -> None:
        if model_types:
            self.load_model_types()
        if dictionaries:
            self.load_dictionaries()
        if blueprints:
            self.load_blueprints()

    def load_model_types(self) -> None:
        records = []
        for kind in MODEL_TYPE_KINDS:
            for path in _json_files(self.root / "model_type" / kind):
                try:
                    records.append(starter_model_type(path.stem, kind, json.loads(path.read_text())))
                except (ApiError, ValueError) as error:
                    log.warning("starter model type %s skipped: %s", path.name, error)
        self.model_types.save_all(records)
        log.info("loaded %d starter model types", len(records))

    def load_dictionaries(self) -> None:
        records = []
        for path in _json_files(self.root / "resource_dictionary"):
            try:
                records.append(dictionary_from_definition(parse_definition(json.loads(path.read_text()))))
            except (ApiError, ValueError) as error:
                log.warning("starter resource dictionary %s skipped: %s", path.name, error)
        self.dictionaries.save_all(records)
        log.info("loaded %d starter resource dictionaries", len(records))

    def load_blueprints(self) -> None:
        for folder in sorted(p for p in (self.root / "blueprints").iterdir() if p.is_dir()):
            try:  # held to the same archive bounds as an upload
                self.models.save(io.BytesIO(zip_folder(folder)), SaveMode.PUBLISH)
            except (ApiError, WriteConflict) as error:
                log.warning("starter blueprint %s skipped: %s", folder.name, error.message)


def zip_folder(folder: Path) -> bytes:
    """A folder as a CBA: its files at the zip root, in a stable order."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return zip_tree((path.relative_to(folder).as_posix(), path.read_bytes()) for path in files)


def _json_files(folder: Path) -> Iterator[Path]:
    return iter(sorted(folder.glob("*.json"))) if folder.is_dir() else iter(())
