"""The statistics report: GET /statistics (reference 5)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.permissions import requires
from ..deps import StatisticsDep
from ..media_types import answer_format, encode
from ..schemas import StatisticsReport
from ..spec import PERMISSIONS
from ..statistics import PREFIX
from ._common import documented

router = APIRouter(prefix=PREFIX, tags=["policy design"])


@router.get(
    "/statistics",
    summary="Counters of API calls",
    responses=documented(StatisticsReport),
    openapi_extra=requires(PERMISSIONS.read("statistics")),
)
def statistics(request: Request, counters: StatisticsDep) -> Response:
    return reply(encode(counters.report(), answer_format(request)))
