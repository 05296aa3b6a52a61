"""Log routes: GET /feedlog/{feedId} and /sublog/{subId} with the filters of spec 4.2."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ...clock import now_ms
from ...web.openapi import error_responses
from ..app import SPEC
from ..deps import LogbookDep
from ..errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from ..log_query import parse_log_query
from ..log_records import LogRecord
from ..media_types import LOG_LIST_CONTENT_TYPE, LOG_LIST_MEDIA_TYPE, require_log_list_acceptable
from ..schemas import LogRecordBody
from ._common import inline_schema, parse_object_id, refuse_methods

router = APIRouter(prefix="", tags=["logs"])

_LOG_LIST_RESPONSE = {
    200: {
        "description": "Log records, oldest first",
        "content": {
            LOG_LIST_MEDIA_TYPE: {"schema": {"type": "array", "items": inline_schema(LogRecordBody)}}
        },
    },
    **error_responses(SPEC, 406),
}


def _log_response(records: list[LogRecord]) -> Response:
    return JSONResponse([record.wire() for record in records], media_type=LOG_LIST_CONTENT_TYPE)


@router.get("/feedlog/{feed_id}", summary="Log records of a feed", responses=_LOG_LIST_RESPONSE)
def feed_log(
    request: Request,
    feed_id: str,
    logbook: LogbookDep,
    type: str | None = None,
    publishId: str | None = None,
    start: str | None = None,
    end: str | None = None,
    statusCode: str | None = None,
    expiryReason: str | None = None,
    filename: str | None = None,
) -> Response:
    require_log_list_acceptable(request.headers.get("accept"))
    number = parse_object_id(feed_id, FEED_NOT_FOUND)
    query = parse_log_query(request.query_params, now_ms(), by_file_name=True)
    return _log_response(logbook.feed_log(number, query))


@router.get("/sublog/{sub_id}", summary="Log records of a subscription", responses=_LOG_LIST_RESPONSE)
def subscription_log(
    request: Request,
    sub_id: str,
    logbook: LogbookDep,
    type: str | None = None,
    publishId: str | None = None,
    start: str | None = None,
    end: str | None = None,
    statusCode: str | None = None,
    expiryReason: str | None = None,
) -> Response:
    require_log_list_acceptable(request.headers.get("accept"))
    number = parse_object_id(sub_id, SUBSCRIPTION_NOT_FOUND)
    query = parse_log_query(request.query_params, now_ms(), by_file_name=False)
    return _log_response(logbook.subscription_log(number, query))


refuse_methods(router, "/feedlog/{feed_id}", ["PUT", "POST", "DELETE"], "logURL")
refuse_methods(router, "/sublog/{sub_id}", ["PUT", "POST", "DELETE"], "logURL")
