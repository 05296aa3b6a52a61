"""The kernel through real HTTP, on a small app built the way every service is built."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import text
from starlette.responses import JSONResponse

from netplatform.access.permissions import ServicePermissions
from netplatform.settings import Settings
from netplatform.store.db import Database
from netplatform.store.errors import WRITE_CONFLICT_MESSAGE, WriteConflict
from netplatform.web.app import build_app
from netplatform.web.auth import PUBLIC
from netplatform.web.errors import ApiError, Conflict
from netplatform.web.health import HealthCheck
from netplatform.web.permissions import per_object, requires
from netplatform.web.requestid import REQUEST_ID_HEADER
from netplatform.web.service import ServiceSpec

from ..support.databases import migrate
from ..support.servers import LiveServer, http_client


class Thing(BaseModel):
    name: str = Field(max_length=5)
    size: int


def render(request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse(
        {"kind": error.reason, "text": error.message}, status_code=error.status, headers=error.headers
    )


router = APIRouter()
PERMISSIONS = ServicePermissions("kernel-test")


@router.post("/things", openapi_extra=requires(PERMISSIONS.write("things")))
def create_thing(thing: Thing) -> Thing:
    return thing


@router.get("/things/{name}", openapi_extra=requires(PERMISSIONS.read("things")))
def get_thing(name: str, verbose: bool = False) -> dict[str, object]:
    if name == "taken":
        raise Conflict("thing taken")
    if name == "raced":
        raise WriteConflict()
    if name == "boom":
        raise RuntimeError("unexpected")
    if name in ("db-down", "db-down-wrapped"):
        _query_a_database_that_is_down(wrapped=name.endswith("wrapped"))
    return {"name": name, "verbose": verbose}


def _query_a_database_that_is_down(wrapped: bool) -> None:
    """A real connection attempt to a port where no PostgreSQL listens (a database restarting)."""
    database = Database("postgresql://postgres@127.0.0.1:1/nowhere")
    try:
        with database.read() as session:
            session.execute(text("SELECT 1"))
    except Exception as error:
        if wrapped:  # service code that re-raises with the database error as its cause
            raise RuntimeError("could not load the thing") from error
        raise
    finally:
        database.engine.dispose()


@router.get("/open/{name}", openapi_extra=PUBLIC)
def open_route(name: str, request: Request) -> dict[str, object]:
    return {"name": name, "user": request.scope["state"].get("user")}


@router.get("/whoami", openapi_extra=per_object("any authenticated identity"))
def whoami(request: Request) -> dict[str, object]:
    return {"user": request.scope["state"]["user"]}


@router.get("/undeclared")
def undeclared() -> dict[str, object]:
    return {"reached": True}


SPEC = ServiceSpec(
    name="kernel-test",
    title="kernel test",
    version="0.0.1",
    render_error=render,
    response_headers=lambda rid: [("X-Test-Header", "yes")],
    max_body_bytes=1000,
)


@pytest.fixture
def service(settings: Settings) -> Iterator[str]:
    migrate(settings)
    with LiveServer(build_app(SPEC, settings, [router])) as server:
        yield server.url


def test_a_caller_without_the_declared_permission_gets_403_in_the_service_shape(service: str) -> None:
    # ``operator`` (the second NETPLATFORM_USERS entry of the suite) holds no role.
    with http_client(service, auth=("operator", "op-secret")) as client:
        refused = client.post("/things", json={"name": "abc", "size": 3})
        read = client.get("/things/x")
        open_to_all = client.get("/whoami")
    assert refused.status_code == 403
    assert refused.json() == {
        "kind": "FORBIDDEN",
        "text": "User operator does not have permission platform.kernel-test.api|things|write",
    }
    assert read.status_code == 403
    assert "platform.kernel-test.api|things|read" in read.json()["text"]
    assert open_to_all.status_code == 200
    assert open_to_all.json() == {"user": "operator"}


def test_a_route_that_declares_no_permission_is_nobodys(service: str) -> None:
    with http_client(service) as client:  # the bootstrap administrator: platform.admin
        response = client.get("/undeclared")
    assert response.status_code == 403
    assert "declares no permission" in response.json()["text"]


def test_roles_listed_in_netplatform_users_are_held(make_settings) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(users="admin:admin,reader:pw:kernel-test.reader")
    migrate(settings)
    with (
        LiveServer(build_app(SPEC, settings, [router])) as server,
        http_client(server.url, auth=("reader", "pw")) as client,
    ):
        # kernel-test has no built-in roles: the role is held, and grants nothing.
        assert client.get("/things/x").status_code == 403
        assert client.get("/whoami").json() == {"user": "reader"}


def test_valid_request_passes_with_credentials(service: str) -> None:
    with http_client(service) as client:
        response = client.post("/things", json={"name": "abc", "size": 3})
    assert response.status_code == 200
    assert response.json() == {"name": "abc", "size": 3}


@pytest.mark.parametrize(
    "body",
    [{"name": "abc"}, {"name": "toolongname", "size": 1}, {"name": "abc", "size": "many"}, [1, 2]],
)
def test_validation_failures_are_400_in_the_service_shape(service: str, body: object) -> None:
    with http_client(service) as client:
        response = client.post("/things", json=body)
    assert response.status_code == 400
    assert response.json()["kind"] == "BAD_REQUEST"


def test_malformed_json_is_400(service: str) -> None:
    with http_client(service) as client:
        response = client.post("/things", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400


def test_bad_query_parameter_is_400(service: str) -> None:
    with http_client(service) as client:
        response = client.get("/things/x", params={"verbose": "perhaps"})
    assert response.status_code == 400
    assert "verbose" in response.json()["text"]


def test_missing_and_wrong_credentials_are_401_with_challenge(service: str) -> None:
    for auth in (None, ("admin", "wrong"), ("nobody", "admin")):
        with http_client(service, auth=auth) as client:
            response = client.get("/whoami")
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Basic realm="kernel-test"'
        assert response.json()["kind"] == "UNAUTHORIZED"


def test_malformed_authorization_header_is_401(service: str) -> None:
    for value in ("Basic !!!", "Bearer abc", "Basic " + "YWRtaW4="):  # last: no colon
        with http_client(service, auth=None) as client:
            response = client.get("/whoami", headers={"Authorization": value})
        assert response.status_code == 401


def test_unknown_paths_need_credentials_too(service: str) -> None:
    with http_client(service, auth=None) as client:
        assert client.get("/no/such/path").status_code == 401
    with http_client(service) as client:
        response = client.get("/no/such/path")
    assert response.status_code == 404
    assert response.json()["kind"] == "NOT_FOUND"


def test_every_configured_user_is_accepted(service: str) -> None:
    for user, password in (("admin", "admin"), ("operator", "op-secret")):
        with http_client(service, auth=(user, password)) as client:
            assert client.get("/whoami").json() == {"user": user}


def test_public_routes_need_no_credentials(service: str) -> None:
    with http_client(service, auth=None) as client:
        response = client.get("/open/x")
        assert response.status_code == 200
        assert response.json() == {"name": "x", "user": None}
        assert client.get("/health").json() == {"service": "kernel-test", "status": "UP"}
        assert client.get("/openapi.json").status_code == 200


def test_method_not_allowed_is_rendered_by_the_service(service: str) -> None:
    with http_client(service) as client:
        response = client.delete("/things")
    assert response.status_code == 405
    assert response.json()["kind"] == "METHOD_NOT_ALLOWED"


def test_api_errors_keep_their_status(service: str) -> None:
    with http_client(service) as client:
        response = client.get("/things/taken")
    assert response.status_code == 409
    assert response.json() == {"kind": "CONFLICT", "text": "thing taken"}


def test_a_write_that_kept_losing_its_race_is_a_409_in_the_service_shape(service: str) -> None:
    with http_client(service) as client:
        response = client.get("/things/raced")
    assert response.status_code == 409
    assert response.json() == {"kind": "CONFLICT", "text": WRITE_CONFLICT_MESSAGE}


def test_unexpected_failures_are_500_in_the_service_shape_with_headers(service: str) -> None:
    with http_client(service) as client:
        response = client.get("/things/boom")
    assert response.status_code == 500
    assert response.json()["kind"] == "INTERNAL_SERVER_ERROR"
    assert "unexpected" not in response.text
    assert response.headers[REQUEST_ID_HEADER]
    assert response.headers["X-Test-Header"] == "yes"


@pytest.mark.parametrize("name", ["db-down", "db-down-wrapped"])
def test_a_database_that_cannot_serve_is_503_not_500(service: str, name: str) -> None:
    """The database down or restarting is no bug of the request: 503, which a client retries."""
    with http_client(service) as client:
        response = client.get(f"/things/{name}")
    assert response.status_code == 503, response.text
    assert response.json() == {
        "kind": "SERVICE_UNAVAILABLE",
        "text": "The database is unavailable; try again later",
    }
    assert response.headers[REQUEST_ID_HEADER]
    assert response.headers["X-Test-Header"] == "yes"


def test_request_id_is_echoed_or_generated(service: str) -> None:
    with http_client(service) as client:
        given = client.get("/things/a", headers={REQUEST_ID_HEADER: "req-42"})
        generated = client.get("/things/a")
        unauthorised = client.get("/whoami", auth=("x", "y"), headers={REQUEST_ID_HEADER: "req-43"})
    assert given.headers[REQUEST_ID_HEADER] == "req-42"
    uuid.UUID(generated.headers[REQUEST_ID_HEADER])
    assert unauthorised.headers[REQUEST_ID_HEADER] == "req-43"
    assert unauthorised.headers["X-Test-Header"] == "yes"


def test_oversized_bodies_are_413(service: str) -> None:
    with http_client(service) as client:
        announced = client.post("/things", content=b"x" * 2000, headers={"content-type": "application/json"})

        def chunks() -> Iterator[bytes]:
            for _ in range(20):
                yield b"x" * 100

        streamed = client.post("/things", content=chunks(), headers={"content-type": "application/json"})
    assert announced.status_code == 413
    assert streamed.status_code == 413


def test_openapi_documents_400_and_401_instead_of_422(service: str) -> None:
    with http_client(service) as client:
        document = client.get("/openapi.json").json()
    create = document["paths"]["/things"]["post"]
    assert "422" not in create["responses"]
    assert {"400", "401"} <= set(create["responses"])
    assert document["components"]["securitySchemes"]["basicAuth"] == {"type": "http", "scheme": "basic"}
    public = document["paths"]["/open/{name}"]["get"]
    assert public["security"] == []
    assert "401" not in public["responses"]
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_metrics_count_requests_by_route(service: str) -> None:
    with http_client(service) as client:
        client.get("/things/a")
        client.get("/things/b")
        text = client.get("/metrics").text
    assert (
        'http_requests_total{method="GET",route="/things/{name}",service="kernel-test",status="200"} 2.0'
        in text
    )
    assert "http_request_duration_seconds_bucket" in text


def test_nul_in_path_or_query_is_400_before_any_service_code(service: str) -> None:
    with http_client(service) as client:
        in_path = client.get("/things/a%00b")
        in_query = client.get("/things/a", params={"verbose": "\x00"})
    assert in_path.status_code == 400
    assert in_query.status_code == 400
    assert "NUL" in in_path.json()["text"]


def test_trailing_slash_is_not_redirected(service: str) -> None:
    with http_client(service) as client:
        response = client.post("/things/", json={"name": "abc", "size": 3})
    assert response.status_code == 404


def test_service_middleware_runs_inside_the_kernel_context(settings: Settings) -> None:
    from starlette.middleware import Middleware

    seen: list[tuple[str, str]] = []

    class Recorder:
        def __init__(self, app, *, tag: str) -> None:  # type: ignore[no-untyped-def]
            self.app = app
            self.tag = tag

        async def __call__(self, scope, receive, send):  # type: ignore[no-untyped-def]
            if scope["type"] == "http":
                seen.append((self.tag, scope["state"]["user"]))
            await self.app(scope, receive, send)

    migrate(settings)
    app = build_app(SPEC, settings, [router], middleware=[Middleware(Recorder, tag="outer")])
    with LiveServer(app) as server, http_client(server.url) as client:
        assert client.get("/whoami").status_code == 200
        assert client.get("/whoami", auth=("x", "y")).status_code == 401
    assert seen == [("outer", "admin")]


def test_echoed_headers_are_copied_or_generated(settings: Settings) -> None:
    import dataclasses

    migrate(settings)
    spec = dataclasses.replace(SPEC, echoed_headers=("X-Correlation",))
    with LiveServer(build_app(spec, settings, [router])) as server, http_client(server.url) as client:
        echoed = client.get("/things/a", headers={"X-Correlation": "c-1"})
        generated = client.get("/things/a", auth=("x", "y"))
    assert echoed.headers["X-Correlation"] == "c-1"
    uuid.UUID(generated.headers["X-Correlation"])


def test_405_allow_lists_every_method_of_the_resource(service: str) -> None:
    with http_client(service) as client:
        response = client.put("/things/a")
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET"
    with http_client(service) as client:
        collection = client.get("/things")
    assert collection.headers["Allow"] == "POST"


def test_health_is_503_when_the_database_does_not_answer(make_settings) -> None:  # type: ignore[no-untyped-def]
    unreachable = make_settings(database_url="postgresql://postgres@127.0.0.1:1/nowhere")
    with (
        LiveServer(build_app(SPEC, unreachable, [router])) as server,
        http_client(server.url, auth=None) as client,
    ):
        response = client.get("/health")
    assert response.status_code == 503
    assert response.json() == {"service": "kernel-test", "status": "DOWN", "reason": "database unreachable"}


def test_health_includes_the_checks_a_service_adds(settings: Settings) -> None:
    migrate(settings)
    app = build_app(SPEC, settings, [router])
    reachable = [True]

    async def engine_answers() -> bool:
        return reachable[0]

    app.state.health.add(HealthCheck("engine", "jetstream", engine_answers))
    app.state.health.max_age_s = 0.0  # every poll probes, so the test sees each change at once
    with LiveServer(app) as server, http_client(server.url, auth=None) as client:
        up = client.get("/health")
        reachable[0] = False
        down = client.get("/health")
    assert up.status_code == 200
    assert up.json() == {"service": "kernel-test", "status": "UP", "engine": "jetstream"}
    assert down.status_code == 503
    assert down.json() == {
        "service": "kernel-test",
        "status": "DOWN",
        "engine": "jetstream",
        "reason": "engine jetstream unreachable",
    }


def test_health_is_a_kernel_request_like_any_other(settings: Settings) -> None:
    from starlette.middleware import Middleware

    seen: list[str] = []

    class Recorder:
        def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
            self.app = app

        async def __call__(self, scope, receive, send):  # type: ignore[no-untyped-def]
            if scope["type"] == "http":
                seen.append(scope["path"])
            await self.app(scope, receive, send)

    migrate(settings)
    app = build_app(SPEC, settings, [router], middleware=[Middleware(Recorder)])
    with LiveServer(app) as server:
        with http_client(server.url, auth=None) as anonymous:
            health = anonymous.get("/health", headers={REQUEST_ID_HEADER: "req-h"})
        with http_client(server.url) as client:
            wrong_method = client.post("/health")
            text = client.get("/metrics").text
    assert health.json() == {"service": "kernel-test", "status": "UP"}
    assert health.headers[REQUEST_ID_HEADER] == "req-h"
    assert health.headers["X-Test-Header"] == "yes"
    assert health.headers["content-type"] == "application/json"
    assert wrong_method.status_code == 405
    assert wrong_method.headers["Allow"] == "GET"
    assert seen[:2] == ["/health", "/health"]
    assert 'method="GET",route="/health",service="kernel-test",status="200"} 1.0' in text


def test_credentials_stay_checked_once_remembered(service: str) -> None:
    with http_client(service) as client:
        assert client.get("/whoami").status_code == 200
        assert client.get("/whoami").status_code == 200
        assert client.get("/whoami", auth=("admin", "wrong")).status_code == 401
        assert client.get("/whoami").json() == {"user": "admin"}


def test_chunked_bodies_within_the_limit_reach_the_service(service: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "abc", '
        yield b'"size": 3}'

    with http_client(service) as client:
        response = client.post("/things", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 200
    assert response.json() == {"name": "abc", "size": 3}


def test_access_log_records_each_request_with_its_fields(
    make_settings: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    settings = make_settings(access_log=True)
    migrate(settings)
    caplog.set_level(logging.INFO, "netplatform.access")
    with LiveServer(build_app(SPEC, settings, [router])) as server, http_client(server.url) as client:
        client.get("/whoami", headers={REQUEST_ID_HEADER: "req-log-1"})
        client.get("/things/a", auth=("admin", "wrong"), headers={REQUEST_ID_HEADER: "req-log-2"})
    records = {r.request_id: r for r in caplog.records if r.name == "netplatform.access"}  # type: ignore[attr-defined]
    ok, refused = records["req-log-1"], records["req-log-2"]
    assert ok.getMessage().startswith("GET /whoami admin 200 ")
    assert ok.getMessage().endswith("ms")
    assert (ok.service, ok.method, ok.path, ok.status, ok.client) == (  # type: ignore[attr-defined]
        "kernel-test",
        "GET",
        "/whoami",
        200,
        "127.0.0.1",
    )
    assert ok.duration_ms >= 0  # type: ignore[attr-defined]
    assert ok.levelname == "INFO"
    assert refused.getMessage().startswith("GET /things/a - 401 ")
    assert refused.created >= ok.created
