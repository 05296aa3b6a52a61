"""Log routes: GET /feedlog/{feedId} and /sublog/{subId} with the filters of spec 4.2."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...clock import now_ms
from ...web.answers import reply
from ...web.openapi import answers, stated_request
from ...web.permissions import requires
from ..deps import LogbookDep
from ..errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from ..log_model import ExpiryReason, LogRecord, RecordType
from ..log_query import parse_log_query
from ..media_types import LOG_LIST_CONTENT_TYPE, LOG_LIST_MEDIA_TYPE, require_log_list_acceptable
from ..schemas import LogRecordBody
from ..spec import PERMISSIONS, SPEC
from ._common import FeedId, SubId, inline_schema, parse_object_id, refuse_methods

router = APIRouter(prefix="", tags=["logs"])

_LOG_LIST_RESPONSE = answers(
    SPEC,
    None,
    406,
    description="Log records, oldest first",
    content={LOG_LIST_MEDIA_TYPE: {"schema": {"type": "array", "items": inline_schema(LogRecordBody)}}},
)


_DATE = "(19|20)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
_TIME = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?"
_MOMENT = f"^([0-9]{{1,15}}|{_DATE}T{_TIME}(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9]))$"


def _query(name: str, description: str, schema: dict[str, object]) -> dict[str, object]:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


# The filters are read from the raw query by parse_log_query (the reference's 400 texts); the
# document states what it takes (the handler also takes other spellings: any case, offsets up to 23h).
_FILTERS = (
    _query("type", "Record type", {"type": "string", "enum": [str(kind) for kind in RecordType]}),
    _query("publishId", "Records of this publish", {"type": "string", "pattern": "^[^']*$"}),
    _query(
        "start",
        "From (epoch ms or RFC 3339); default 24 h before end",
        {"type": "string", "pattern": _MOMENT},
    ),
    _query(
        "end",
        "Until (epoch ms or RFC 3339); default 24 h after start",
        {"type": "string", "pattern": _MOMENT},
    ),
    _query(
        "statusCode",
        "success, redirect, failure, -1 (no status) or one status code",
        {"type": "string", "pattern": "^(success|redirect|failure|-1|[1-5][0-9]{2})$"},
    ),
    _query(
        "expiryReason",
        "Expiry records of this reason",
        {"type": "string", "enum": [str(reason) for reason in ExpiryReason]},
    ),
)
_READ = requires(PERMISSIONS.read("logs"))
_FEED_LOG_FILTERS = {
    **stated_request(
        parameters=(*_FILTERS, _query("filename", "Records of this file name", {"type": "string"}))
    ),
    **_READ,
}
_SUBSCRIPTION_LOG_FILTERS = {**stated_request(parameters=_FILTERS), **_READ}


def _log_response(records: list[LogRecord]) -> Response:
    return reply([record.wire() for record in records], media_type=LOG_LIST_CONTENT_TYPE)


@router.get(
    "/feedlog/{feed_id}",
    summary="Log records of a feed",
    responses=_LOG_LIST_RESPONSE,
    openapi_extra=_FEED_LOG_FILTERS,
)
def feed_log(
    request: Request,
    feed_id: FeedId,
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


@router.get(
    "/sublog/{sub_id}",
    summary="Log records of a subscription",
    responses=_LOG_LIST_RESPONSE,
    openapi_extra=_SUBSCRIPTION_LOG_FILTERS,
)
def subscription_log(
    request: Request,
    sub_id: SubId,
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
