"""``/api/v1/blueprint-model``: archives (save, publish, enrich), search, paging, download, delete."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import IO, Annotated

from fastapi import APIRouter, Depends, File, Query, UploadFile
from fastapi.responses import Response, StreamingResponse

from ...store.blobs import CHUNK_SIZE
from ...web.answers import reply
from ...web.errors import BadRequest
from ...web.openapi import answers
from ...web.permissions import requires
from ..blueprint_models import MODEL_SORTS, PageRequest, SaveMode
from ..deps import REPLAYABLE, BlueprintModelsDep, StarterCatalogDep
from ..repository.blueprint_models import ModelRecord
from ..schemas import (
    BlueprintModelEnvelope,
    BlueprintModelPage,
    BootstrapRequest,
    WorkflowList,
    WorkflowSpec,
    WorkflowSpecRequest,
)
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies
from ._common import EMPTY, Name, any_case, require_multipart

router = APIRouter(prefix="/api/v1/blueprint-model", tags=["blueprint models"])

ZIP = "application/zip"
ZIP_CONTENT = {ZIP: {"schema": {"type": "string", "format": "binary"}}}
UPLOAD = [Depends(require_multipart)]

Archive = Annotated[UploadFile, File(description="The CBA, a zip archive")]


@router.get(
    "",
    summary="All blueprint models",
    responses=answers(SPEC, list[BlueprintModelEnvelope]),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def list_models(models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_models(models.all()))


@router.post(
    "",
    summary="Save an archive without validating it (published N)",
    responses=answers(SPEC, BlueprintModelEnvelope, 400, 413, 415),
    dependencies=UPLOAD,
    openapi_extra=requires(PERMISSIONS.write("blueprint-model")),
)
def save_model(file: Archive, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_model(models.save(file.file, SaveMode.SAVE)))


@router.post(
    "/publish",
    summary="Validate an (enriched) archive and store it (published Y)",
    responses=answers(SPEC, BlueprintModelEnvelope, 400, 413, 415),
    dependencies=UPLOAD,
    openapi_extra=requires(PERMISSIONS.write("blueprint-model")),
)
def publish_model(file: Archive, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_model(models.save(file.file, SaveMode.PUBLISH)))


@router.post(
    "/enrich",
    summary="Complete an archive's type definitions from the catalog; nothing is stored",
    response_class=Response,
    responses=answers(SPEC, None, 400, 413, 415, description="The archive", content=ZIP_CONTENT),
    dependencies=UPLOAD,
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def enrich_model(file: Archive, models: BlueprintModelsDep) -> Response:
    return reply(
        models.enrich(file.file),
        media_type=ZIP,
        headers={"Content-Disposition": 'attachment; filename="enhanced-cba.zip"'},
    )


@router.post(
    "/enrichandpublish",
    summary="Enrich, validate and store the enriched archive (published Y)",
    responses=answers(SPEC, BlueprintModelEnvelope, 400, 413, 415, 503),
    dependencies=UPLOAD,
    openapi_extra=requires(PERMISSIONS.write("blueprint-model")),
)
def enrich_and_publish_model(file: Archive, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_model(models.save(file.file, SaveMode.ENRICH_AND_PUBLISH)))


@router.post(
    "/bootstrap",
    summary="Load the starter catalog: model types, resource dictionaries, sample blueprints",
    response_class=Response,
    responses=answers(SPEC, None, content=EMPTY),
    openapi_extra=requires(PERMISSIONS.write("blueprint-model")),
)
def bootstrap_catalog(body: BootstrapRequest, starter: StarterCatalogDep) -> Response:
    starter.load(
        model_types=body.loadModelType,
        dictionaries=body.loadResourceDictionary,
        blueprints=body.loadCBA,
    )
    return reply(None)


@router.post(
    "/workflow-spec",
    summary="Inputs, outputs and data types of one workflow of a stored blueprint",
    responses=answers(SPEC, WorkflowSpec, 404),
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def get_workflow_spec(body: WorkflowSpecRequest, models: BlueprintModelsDep) -> Response:
    return reply(models.workflow_spec(body.blueprintName, body.version, body.workflowName))


async def page_request(
    limit: Annotated[int, Query(ge=1, le=10_000, description="Page size")] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000, description="Page index (not an item offset)")] = 0,
    sort: Annotated[
        str,
        Query(
            description="DATE (default), NAME or VERSION, any case", json_schema_extra=any_case(*MODEL_SORTS)
        ),
    ] = "DATE",
    sortType: Annotated[
        str, Query(description="ASC (default) or DESC, any case", json_schema_extra=any_case("ASC", "DESC"))
    ] = "ASC",
    published: Annotated[bool | None, Query(description="true: published only; false: unpublished")] = None,
) -> PageRequest:
    if sort.upper() not in MODEL_SORTS:
        raise BadRequest(f"sort ({sort}) must be one of {', '.join(MODEL_SORTS)}")
    if sortType.upper() not in ("ASC", "DESC"):
        raise BadRequest(f"sortType ({sortType}) must be ASC or DESC")
    return PageRequest(
        limit=limit,
        page=offset,
        sort=sort.upper(),
        descending=sortType.upper() == "DESC",
        published=None if published is None else ("Y" if published else "N"),
    )


Paging = Annotated[PageRequest, Depends(page_request)]


@router.get(
    "/paged",
    summary="One page of blueprint models",
    responses=answers(SPEC, BlueprintModelPage),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def paged_models(models: BlueprintModelsDep, query: Paging) -> Response:
    records, total = models.page(query)
    return reply(bodies.page(records, total, query.limit, query.page))


@router.get(
    "/paged/meta-data/{keyword}",
    summary="One page of the models one of whose meta-data items is the keyword",
    responses=answers(SPEC, BlueprintModelPage),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def paged_models_with_keyword(models: BlueprintModelsDep, keyword: Name, query: Paging) -> Response:
    records, total = models.page(replace(query, keyword=keyword))
    return reply(bodies.page(records, total, query.limit, query.page))


@router.get(
    "/meta-data/{keyword}",
    summary="Models one of whose meta-data items is the keyword (whole word, any case)",
    responses=answers(SPEC, list[BlueprintModelEnvelope]),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def models_with_keyword(keyword: Name, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_models(models.with_keyword(keyword)))


@router.get(
    "/search/{tags}",
    summary="Models whose tags contain the text (any case)",
    responses=answers(SPEC, list[BlueprintModelEnvelope]),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def models_with_tags(tags: Name, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_models(models.with_tag_text(tags)))


@router.get(
    "/by-name/{name}/version/{version}",
    summary="One model by name and version",
    responses=answers(SPEC, BlueprintModelEnvelope, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def model_by_name(name: Name, version: Name, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_model(models.by_name(name, version)))


@router.get(
    "/download/by-name/{name}/version/{version}",
    summary="The stored archive of a model, by name and version",
    response_class=Response,
    responses=answers(SPEC, None, 404, description="The archive", content=ZIP_CONTENT),
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def download_by_name(name: Name, version: Name, models: BlueprintModelsDep) -> StreamingResponse:
    record = models.by_name(name, version)
    return _download(models.open_content(record), record)


@router.get(
    "/download/{id}",
    summary="The stored archive of a model, by id",
    response_class=Response,
    responses=answers(SPEC, None, 404, description="The archive", content=ZIP_CONTENT),
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def download_by_id(id: Name, models: BlueprintModelsDep) -> StreamingResponse:
    record = models.by_id(id)
    return _download(models.open_content(record), record)


def _download(content: IO[bytes], record: ModelRecord) -> StreamingResponse:
    filename = f"{record.artifact_name}_{record.artifact_version}.zip"
    return StreamingResponse(
        _chunks(content),
        media_type=ZIP,
        headers={
            "Content-Disposition": f'attachment; filename="{filename}"',
            "Content-Length": str(record.blob_size),
        },
    )


def _chunks(content: IO[bytes]) -> Iterator[bytes]:
    with content:
        while chunk := content.read(CHUNK_SIZE):
            yield chunk


@router.get(
    "/workflows/blueprint-name/{name}/version/{version}",
    summary="The workflow names of a stored blueprint",
    responses=answers(SPEC, WorkflowList, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def workflows_of_model(name: Name, version: Name, models: BlueprintModelsDep) -> Response:
    record = models.by_name(name, version)
    return reply({"blueprintName": name, "version": version, "workflows": record.workflows})


@router.get(
    "/{id}",
    summary="One model by id",
    responses=answers(SPEC, BlueprintModelEnvelope, 404),
    dependencies=[REPLAYABLE],
    openapi_extra=requires(PERMISSIONS.read("blueprint-model")),
)
def model_by_id(id: Name, models: BlueprintModelsDep) -> Response:
    return reply(bodies.wrapped_model(models.by_id(id)))


@router.delete(
    "/name/{name}/version/{version}",
    summary="Delete a model by name and version (also when absent)",
    response_class=Response,
    responses=answers(SPEC, None, content=EMPTY),
    openapi_extra=requires(PERMISSIONS.write("blueprint-model")),
)
def delete_by_name(name: Name, version: Name, models: BlueprintModelsDep) -> Response:
    models.delete_by_name(name, version)
    return reply(None)


@router.delete(
    "/{id}",
    summary="Delete a model by id",
    response_class=Response,
    responses=answers(SPEC, None, 404, content=EMPTY),
    openapi_extra=requires(PERMISSIONS.write("blueprint-model")),
)
def delete_by_id(id: Name, models: BlueprintModelsDep) -> Response:
    models.delete_by_id(id)
    return reply(None)
