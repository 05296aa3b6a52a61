"""``/api/v1/blueprint-model``: archives (save, publish, enrich), search, paging, download, delete."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Annotated, Any

from fastapi import APIRouter, Depends, File, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ...store.blobs import CHUNK_SIZE
from ...web.errors import BadRequest, ServiceUnavailable
from .. import repository
from ..bootstrap import bootstrap
from ..catalog import BlueprintCatalog, SaveMode
from ..enrich import EnrichmentFailed
from ..errors import IO_FILE_INTERRUPT
from ..schemas import (
    BlueprintModelEnvelope,
    BlueprintModelPage,
    BootstrapRequest,
    WorkflowList,
    WorkflowSpec,
    WorkflowSpecRequest,
)
from ..validate import ValidationFailed
from ..workflows import workflow_spec
from . import _render as render
from ._http import EMPTY_OK, Name, any_case, empty_ok, errors, ok, require_multipart

router = APIRouter(prefix="/api/v1/blueprint-model", tags=["blueprint models"])

ZIP = "application/zip"
ZIP_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"description": "The archive", "content": {ZIP: {"schema": {"type": "string", "format": "binary"}}}}
}
UPLOAD = {"dependencies": [Depends(require_multipart)]}
SORTS = tuple(repository.MODEL_SORT_COLUMNS)


def the_catalog(request: Request) -> BlueprintCatalog:
    catalog: BlueprintCatalog = request.app.state.blueprint_catalog
    return catalog


Catalog = Annotated[BlueprintCatalog, Depends(the_catalog)]
Archive = Annotated[UploadFile, File(description="The CBA, a zip archive")]


@router.get("", summary="All blueprint models", response_model=list[BlueprintModelEnvelope])
def list_models(catalog: Catalog) -> JSONResponse:
    with catalog.db.read() as session:
        return ok(render.wrapped_models(repository.all_models(session)))


@router.post(
    "",
    summary="Save an archive without validating it (published N)",
    response_model=BlueprintModelEnvelope,
    responses=errors(400, 413, 415),
    **UPLOAD,
)
def save_model(file: Archive, catalog: Catalog) -> JSONResponse:
    return ok(render.wrapped_model(catalog.save(file.file, SaveMode.SAVE)))


@router.post(
    "/publish",
    summary="Validate an (enriched) archive and store it (published Y)",
    response_model=BlueprintModelEnvelope,
    responses=errors(400, 413, 415),
    **UPLOAD,
)
def publish_model(file: Archive, catalog: Catalog) -> JSONResponse:
    return ok(render.wrapped_model(catalog.save(file.file, SaveMode.PUBLISH)))


@router.post(
    "/enrich",
    summary="Complete an archive's type definitions from the catalog; nothing is stored",
    response_class=Response,
    responses={**ZIP_RESPONSE, **errors(400, 413, 415)},
    **UPLOAD,
)
def enrich_model(file: Archive, catalog: Catalog) -> Response:
    return Response(
        catalog.enrich(file.file),
        media_type=ZIP,
        headers={"Content-Disposition": 'attachment; filename="enhanced-cba.zip"'},
    )


@router.post(
    "/enrichandpublish",
    summary="Enrich, validate and store the enriched archive (published Y)",
    response_model=BlueprintModelEnvelope,
    responses=errors(400, 413, 415, 503),
    **UPLOAD,
)
def enrich_and_publish_model(file: Archive, catalog: Catalog) -> JSONResponse:
    try:
        record = catalog.save(file.file, SaveMode.ENRICH_AND_PUBLISH)
    except (EnrichmentFailed, ValidationFailed) as failure:
        raise ServiceUnavailable(failure.message, code=IO_FILE_INTERRUPT, extra=failure.extra) from failure
    return ok(render.wrapped_model(record))


@router.post(
    "/bootstrap",
    summary="Load the starter catalog: model types, resource dictionaries, sample blueprints",
    response_class=Response,
    responses=EMPTY_OK,
)
def bootstrap_catalog(body: BootstrapRequest, catalog: Catalog) -> Response:
    bootstrap(
        catalog,
        model_types=body.loadModelType,
        dictionaries=body.loadResourceDictionary,
        blueprints=body.loadCBA,
    )
    return empty_ok()


@router.post(
    "/workflow-spec",
    summary="Inputs, outputs and data types of one workflow of a stored blueprint",
    response_model=WorkflowSpec,
    responses=errors(404),
)
def get_workflow_spec(body: WorkflowSpecRequest, catalog: Catalog) -> JSONResponse:
    record = catalog.by_name(body.blueprintName, body.version)
    cba = catalog.stored_cba(record)
    return ok(workflow_spec(cba, body.blueprintName, body.version, body.workflowName))


@dataclass(frozen=True)
class PageQuery:
    limit: int
    page: int
    sort: str
    descending: bool
    published: str | None


def page_query(
    limit: Annotated[int, Query(ge=1, le=10_000, description="Page size")] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000, description="Page index (not an item offset)")] = 0,
    sort: Annotated[
        str,
        Query(description="DATE (default), NAME or VERSION, any case", json_schema_extra=any_case(*SORTS)),
    ] = "DATE",
    sortType: Annotated[
        str, Query(description="ASC (default) or DESC, any case", json_schema_extra=any_case("ASC", "DESC"))
    ] = "ASC",
    published: Annotated[bool | None, Query(description="true: published only; false: unpublished")] = None,
) -> PageQuery:
    if sort.upper() not in SORTS:
        raise BadRequest(f"sort ({sort}) must be one of {', '.join(SORTS)}")
    if sortType.upper() not in ("ASC", "DESC"):
        raise BadRequest(f"sortType ({sortType}) must be ASC or DESC")
    return PageQuery(
        limit=limit,
        page=offset,
        sort=sort.upper(),
        descending=sortType.upper() == "DESC",
        published=None if published is None else ("Y" if published else "N"),
    )


Paging = Annotated[PageQuery, Depends(page_query)]


@router.get("/paged", summary="One page of blueprint models", response_model=BlueprintModelPage)
def paged_models(catalog: Catalog, query: Paging) -> JSONResponse:
    return _page(catalog, None, query)


@router.get(
    "/paged/meta-data/{keyword}",
    summary="One page of the models one of whose meta-data items is the keyword",
    response_model=BlueprintModelPage,
)
def paged_models_with_keyword(catalog: Catalog, keyword: Name, query: Paging) -> JSONResponse:
    return _page(catalog, keyword, query)


def _page(catalog: BlueprintCatalog, keyword: str | None, query: PageQuery) -> JSONResponse:
    with catalog.db.read() as session:
        records, total = repository.page_of_models(
            session,
            keyword=keyword,
            published=query.published,
            sort=query.sort,
            descending=query.descending,
            limit=query.limit,
            page=query.page,
        )
    return ok(render.page(records, total, query.limit, query.page))


@router.get(
    "/meta-data/{keyword}",
    summary="Models one of whose meta-data items is the keyword (whole word, any case)",
    response_model=list[BlueprintModelEnvelope],
)
def models_with_keyword(keyword: Name, catalog: Catalog) -> JSONResponse:
    with catalog.db.read() as session:
        return ok(render.wrapped_models(repository.models_with_keyword(session, keyword)))


@router.get(
    "/search/{tags}",
    summary="Models whose tags contain the text (any case)",
    response_model=list[BlueprintModelEnvelope],
)
def models_with_tags(tags: Name, catalog: Catalog) -> JSONResponse:
    with catalog.db.read() as session:
        return ok(render.wrapped_models(repository.models_with_tag_text(session, tags)))


@router.get(
    "/by-name/{name}/version/{version}",
    summary="One model by name and version",
    response_model=BlueprintModelEnvelope,
    responses=errors(404),
)
def model_by_name(name: Name, version: Name, catalog: Catalog) -> JSONResponse:
    return ok(render.wrapped_model(catalog.by_name(name, version)))


@router.get(
    "/download/by-name/{name}/version/{version}",
    summary="The stored archive of a model, by name and version",
    response_class=Response,
    responses={**ZIP_RESPONSE, **errors(404)},
)
def download_by_name(name: Name, version: Name, catalog: Catalog) -> StreamingResponse:
    record = catalog.by_name(name, version)
    return _download(catalog.open_content(record), record)


@router.get(
    "/download/{id}",
    summary="The stored archive of a model, by id",
    response_class=Response,
    responses={**ZIP_RESPONSE, **errors(404)},
)
def download_by_id(id: Name, catalog: Catalog) -> StreamingResponse:
    record = catalog.by_id(id)
    return _download(catalog.open_content(record), record)


def _download(content: IO[bytes], record: repository.ModelRecord) -> StreamingResponse:
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
    response_model=WorkflowList,
    responses=errors(404),
)
def workflows_of_model(name: Name, version: Name, catalog: Catalog) -> JSONResponse:
    record = catalog.by_name(name, version)
    return ok({"blueprintName": name, "version": version, "workflows": record.workflows})


@router.get("/{id}", summary="One model by id", response_model=BlueprintModelEnvelope, responses=errors(404))
def model_by_id(id: Name, catalog: Catalog) -> JSONResponse:
    return ok(render.wrapped_model(catalog.by_id(id)))


@router.delete(
    "/name/{name}/version/{version}",
    summary="Delete a model by name and version (also when absent)",
    response_class=Response,
    responses=EMPTY_OK,
)
def delete_by_name(name: Name, version: Name, catalog: Catalog) -> Response:
    catalog.delete_by_name(name, version)
    return empty_ok()


@router.delete(
    "/{id}", summary="Delete a model by id", response_class=Response, responses={**EMPTY_OK, **errors(404)}
)
def delete_by_id(id: Name, catalog: Catalog) -> Response:
    catalog.delete_by_id(id)
    return empty_ok()
