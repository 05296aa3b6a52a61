"""``/api/v1/devices``: the device inventory config deploy reaches; ``/api/v1/deploys``: what
config-deploy steps did on each device. Device secrets are write-only: no answer holds them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import DevicesDep
from ..devices import deploy_body, device_body
from ..names import checked_name
from ..schemas import Device, DeviceCheck, DeviceCreate, DeviceDeploy, DeviceSettings, TrustHostKey
from ..spec import PERMISSIONS, SPEC
from ._common import EMPTY, Name

router = APIRouter(prefix="/api/v1", tags=["devices"])
READ = requires(PERMISSIONS.read("devices"))
WRITE = requires(PERMISSIONS.write("devices"))
QueryName = Annotated[str | None, Query(max_length=255)]
Limit = Annotated[int, Query(ge=1, le=500)]


@router.get(
    "/devices", summary="Every device, by name", responses=answers(SPEC, list[Device]), openapi_extra=READ
)
def list_devices(devices: DevicesDep, site: QueryName = None) -> Response:
    return reply([device_body(record) for record in devices.listing(site)])


@router.post(
    "/devices",
    summary="Add a device (its password or private key is sealed, never answered)",
    responses=answers(SPEC, Device, 400, 409, status=201),
    status_code=201,
    openapi_extra=WRITE,
)
def create_device(devices: DevicesDep, body: DeviceCreate) -> Response:
    return reply(device_body(devices.create(body)), status=201)


@router.get("/devices/{name}", summary="One device", responses=answers(SPEC, Device, 404), openapi_extra=READ)
def get_device(devices: DevicesDep, name: Name) -> Response:
    return reply(device_body(devices.get(checked_name("name", name))))


@router.put(
    "/devices/{name}",
    summary="Change a device's settings (an absent password or private key is kept)",
    responses=answers(SPEC, Device, 400, 404),
    openapi_extra=WRITE,
)
def update_device(devices: DevicesDep, name: Name, body: DeviceSettings) -> Response:
    return reply(device_body(devices.update(checked_name("name", name), body)))


@router.delete(
    "/devices/{name}",
    summary="Remove a device (its deploy records stay)",
    response_class=Response,
    responses=answers(SPEC, None, 404, status=204, content=EMPTY),
    status_code=204,
    openapi_extra=WRITE,
)
def delete_device(devices: DevicesDep, name: Name) -> Response:
    devices.delete(checked_name("name", name))
    return reply(None, status=204)


@router.post(
    "/devices/{name}/check",
    summary="Connect (the pinned host key checked first) and answer the device's NETCONF capabilities",
    responses=answers(SPEC, DeviceCheck, 404),
    openapi_extra=WRITE,
)
def check_device(devices: DevicesDep, name: Name) -> Response:
    return reply(devices.check(checked_name("name", name)))


@router.post(
    "/devices/{name}/trust-host-key",
    summary="Pin the host key the device presents now, if its fingerprint is the one given (administrators)",
    responses=answers(SPEC, Device, 400, 404, 409),
    openapi_extra=requires(PERMISSIONS.admin("devices")),
)
def trust_host_key(devices: DevicesDep, name: Name, body: TrustHostKey) -> Response:
    return reply(device_body(devices.trust(checked_name("name", name), body.fingerprint)))


@router.get(
    "/devices/{name}/deploys",
    summary="The latest config deploys, checks and rollbacks of one device, newest first",
    responses=answers(SPEC, list[DeviceDeploy]),
    openapi_extra=READ,
)
def device_deploys(devices: DevicesDep, name: Name, limit: Limit = 50) -> Response:
    return reply([deploy_body(r) for r in devices.deploys(device=name, limit=limit)])


@router.get(
    "/deploys",
    summary="Config deploy results of a run (requestId, subRequestId) or a device, newest first",
    responses=answers(SPEC, list[DeviceDeploy]),
    openapi_extra=READ,
)
def deploys(
    devices: DevicesDep,
    requestId: QueryName = None,
    subRequestId: QueryName = None,
    device: QueryName = None,
    limit: Limit = 50,
) -> Response:
    found = devices.deploys(device=device, request_id=requestId, sub_request_id=subRequestId, limit=limit)
    return reply([deploy_body(r) for r in found])
