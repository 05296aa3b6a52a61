"""Sign-in, session cookie, CSRF and sign-out rules over plain HTTP."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from netplatform.console import create_app
from netplatform.console.apis import base_urls
from netplatform.settings import Settings

from ..blueprints.conftest import named, unenriched_files
from ..support.servers import LiveServer, ServeProcess, free_port
from .conftest import ADMIN, READER, console_settings

TOKEN = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(response: httpx.Response) -> str:
    found = TOKEN.search(response.text)
    assert found, response.text
    return found.group(1)


@pytest.fixture
def anonymous(console: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=console, timeout=30) as client:
        yield client


def signed_in(client: httpx.Client, user: str = "admin", password: str = "admin") -> str:  # noqa: S107
    """Sign in and return the CSRF token of the session's pages."""
    form = client.get("/signin")
    answer = client.post("/signin", data={"csrf": csrf_of(form), "user": user, "password": password})
    assert answer.status_code == 303, answer.text
    return csrf_of(client.get("/"))


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/policy",
        "/policy/types/x/versions/1.0.0",
        "/policy/new",
        "/bus",
        "/router",
        "/distribution/feeds/1",
    ],
)
def test_pages_redirect_to_sign_in_without_a_session(anonymous: httpx.Client, path: str) -> None:
    answer = anonymous.get(path)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("/signin?next=" + path.split("?")[0])


def test_sign_in_sets_an_http_only_same_site_cookie_without_the_password(anonymous: httpx.Client) -> None:
    form = anonymous.get("/signin")
    answer = anonymous.post(
        "/signin",
        data={"csrf": csrf_of(form), "user": "operator", "password": "op-secret", "next": "/policy"},
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/policy"
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith("np_console="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    assert "op-secret" not in cookie and "operator" not in cookie
    assert "operator" in anonymous.get("/").text


def test_wrong_password_is_refused_by_the_service(anonymous: httpx.Client) -> None:
    form = anonymous.get("/signin")
    answer = anonymous.post("/signin", data={"csrf": csrf_of(form), "user": "admin", "password": "nope"})
    assert answer.status_code == 401
    assert "Wrong user name or password" in answer.text
    assert anonymous.get("/").status_code == 303


def test_an_identity_without_roles_signs_in_and_is_offered_nothing(
    anonymous: httpx.Client, platform: dict[str, str]
) -> None:
    """Sign-in asks the authz service, not a service's /metrics (which needs a permission): an
    identity created through /authn/cred with no role signs in, and sees no action."""
    made = httpx.post(
        f"{platform['authz']}/authn/cred", json={"id": "norole", "password": "nr-secret"}, auth=ADMIN
    )
    assert made.status_code == 201, made.text
    signed_in(anonymous, "norole", "nr-secret")
    overview = anonymous.get("/")
    assert overview.status_code == 200
    assert "Reading its metrics needs platform.policy.api|metrics|read." in overview.text
    assert 'href="/admin/access"' not in overview.text
    policy = anonymous.get("/policy")
    assert policy.status_code == 403 and "The API answered 403" in policy.text
    assert "Create a policy type" not in policy.text


def test_a_deleted_identitys_session_ends(anonymous: httpx.Client, platform: dict[str, str]) -> None:
    """The console reads a session's permissions again every few seconds: once the authz service
    no longer knows the identity (401), the session is over."""
    cred = f"{platform['authz']}/authn/cred"
    assert httpx.post(cred, json={"id": "gone", "password": "g-secret"}, auth=ADMIN).status_code == 201
    signed_in(anonymous, "gone", "g-secret")
    assert httpx.delete(f"{cred}/gone", auth=ADMIN).status_code == 200
    deadline = time.monotonic() + 15
    # /policy/new calls no service: each look costs the console little but its permission check.
    while (answer := anonymous.get("/policy/new")).status_code == 200:
        assert time.monotonic() < deadline, "the session outlived its identity"
    assert answer.status_code == 303 and answer.headers["location"].startswith("/signin")


def test_sign_in_says_so_when_the_authz_service_does_not_answer(platform: dict[str, str]) -> None:
    closed = {**platform, "authz": f"http://127.0.0.1:{free_port()}"}
    with (
        LiveServer(create_app(console_settings(closed))) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        form = client.get("/signin")
        data = {"csrf": csrf_of(form), "user": "admin", "password": "admin"}
        answer = client.post("/signin", data=data)
    assert answer.status_code == 503
    assert "The authz service could not check the credentials" in answer.text


def test_sign_in_without_its_token_is_403(anonymous: httpx.Client) -> None:
    anonymous.get("/signin")
    answer = anonymous.post("/signin", data={"csrf": "forged", "user": "admin", "password": "admin"})
    assert answer.status_code == 403
    assert anonymous.get("/").status_code == 303


def test_no_open_redirect_after_sign_in(anonymous: httpx.Client) -> None:
    form = anonymous.get("/signin")
    data = {"csrf": csrf_of(form), "user": "admin", "password": "admin", "next": "//evil.example/x"}
    assert anonymous.post("/signin", data=data).headers["location"] == "/"


def test_forms_without_the_session_token_are_403_and_change_nothing(
    anonymous: httpx.Client, policy_api: httpx.Client
) -> None:
    signed_in(anonymous)
    document = (
        '{"tosca_definitions_version": "tosca_simple_yaml_1_1_0", "policy_types": {"csrf.Type": '
        '{"derived_from": "tosca.policies.Root", "version": "1.0.0"}}}'
    )
    for token in (None, "wrong"):
        data = {"kind": "type", "document": document, **({"csrf": token} if token else {})}
        answer = anonymous.post("/policy/new", data=data)
        assert answer.status_code == 403
        assert "security token" in answer.text
    assert policy_api.get("/policytypes/csrf.Type").status_code == 404


def test_sign_out_needs_its_token_and_ends_the_session(anonymous: httpx.Client) -> None:
    token = signed_in(anonymous)
    stolen = anonymous.cookies["np_console"]
    assert anonymous.post("/signout", data={"csrf": "wrong"}).status_code == 403
    answer = anonymous.post("/signout", data={"csrf": token})
    assert answer.status_code == 303 and answer.headers["location"] == "/signin"
    assert anonymous.get("/").status_code == 303
    anonymous.cookies.set("np_console", stolen)
    assert anonymous.get("/").status_code == 303, "a signed-out session must not come back"


def test_a_tampered_cookie_is_no_session(anonymous: httpx.Client) -> None:
    signed_in(anonymous)
    value = anonymous.cookies["np_console"]
    anonymous.cookies.set("np_console", value[:-4] + ("AAAA" if not value.endswith("AAAA") else "BBBB"))
    assert anonymous.get("/").status_code == 303


def test_session_cookie_is_secure_under_tls(platform: dict[str, str]) -> None:
    settings = console_settings(platform, tls_cert="cert.pem", tls_key="key.pem")
    with LiveServer(create_app(settings)) as server, httpx.Client(base_url=server.url) as client:
        form = client.get("/signin")
        assert "Secure" in form.headers["set-cookie"]
        token = csrf_of(form)
        # A client keeps Secure cookies off plain HTTP: send it by hand, as a browser would over TLS.
        answer = client.post(
            "/signin",
            data={"csrf": token, "user": "admin", "password": "admin"},
            headers={"Cookie": f"np_console_signin={token}"},
        )
        assert answer.status_code == 303
        assert "Secure" in answer.headers["set-cookie"]


def test_sessions_survive_a_restart_with_a_configured_secret(platform: dict[str, str]) -> None:
    settings = console_settings(platform, console_secret="s3cret")
    with LiveServer(create_app(settings)) as server, httpx.Client(base_url=server.url) as client:
        signed_in(client)
    with LiveServer(create_app(settings)) as server, httpx.Client(base_url=server.url) as client2:
        client2.cookies.set("np_console", client.cookies["np_console"])
        assert client2.get("/").status_code == 200
    with (
        LiveServer(create_app(console_settings(platform))) as server,
        httpx.Client(base_url=server.url) as client3,
    ):
        client3.cookies.set("np_console", client.cookies["np_console"])
        assert client3.get("/").status_code == 303


def test_api_urls_default_to_this_process_and_accept_overrides() -> None:
    urls = base_urls(
        Settings(
            host="0.0.0.0",  # noqa: S104
            policy_port=9999,
            console_api_urls="bus=https://bus.example:1/",
        )
    )
    assert urls["policy"] == "http://127.0.0.1:9999"
    assert urls["bus"] == "https://bus.example:1"
    with pytest.raises(ValueError, match="unknown service"):
        base_urls(Settings(console_api_urls="nope=http://x"))


def test_pages_carry_security_headers(anonymous: httpx.Client) -> None:
    answer = anonymous.get("/signin")
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == "no-store"
    assert anonymous.get("/health").json() == {"service": "console", "status": "UP"}


def test_a_service_that_does_not_answer_is_unreachable_on_the_overview(platform: dict[str, str]) -> None:
    closed = {**platform, "router": f"http://127.0.0.1:{free_port()}"}
    with (
        LiveServer(create_app(console_settings(closed))) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        signed_in(client)
        page = client.get("/").text
    router = page[page.index('id="service-router"') :]
    assert re.search(r'class="badge unreachable">UNREACHABLE<', router.split("</li>")[0])
    assert 'class="badge up">UP<' in page[page.index('id="service-policy"') :].split("</li>")[0]
    assert 'id="failures"' in page, "the distribution service answered: its failures are listed"


def test_without_the_distribution_service_the_overview_says_so_in_place_of_the_failures(
    platform: dict[str, str],
) -> None:
    closed = {**platform, "distribution": f"http://127.0.0.1:{free_port()}"}
    with (
        LiveServer(create_app(console_settings(closed))) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        signed_in(client)
        answer = client.get("/")
    assert answer.status_code == 200
    failures = answer.text[answer.text.index('id="delivery-failures"') :]
    assert re.search(r'role="alert"><p>distribution did not answer: ', failures), failures
    assert 'id="failures"' not in failures
    assert 'class="badge up">UP<' in answer.text[answer.text.index('id="service-bus"') :].split("</li>")[0]


def test_netplatform_serve_starts_the_console_and_it_finds_the_services_by_their_ports(
    platform: dict[str, str], tmp_path: Path
) -> None:
    """``serve --only console`` with the services' ports in its environment and no URL overrides:
    the console reaches each service on this host's listener and the overview shows them UP."""
    port = free_port()
    env = {
        **{f"NETPLATFORM_{name.upper()}_PORT": url.rsplit(":", 1)[1] for name, url in platform.items()},
        "NETPLATFORM_CONSOLE_PORT": str(port),
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_HOST": "127.0.0.1",
        "NETPLATFORM_CONSOLE_API_URLS": "",
    }
    process = ServeProcess(env, ["--only", "console"], log_path=tmp_path / "serve.log").start([port])
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert client.get("/health").json() == {"service": "console", "status": "UP"}
            signed_in(client)
            page = client.get("/").text
        for name in platform:
            assert re.search(rf'id="service-{name}">\s*<h2>{name} <span class="badge up">UP</span>', page), (
                name
            )
    finally:
        process.stop()


def form_action(page: httpx.Response) -> str:
    found = re.search(r'<form method="post" action="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1).replace("&amp;", "&")


def test_an_upload_without_the_session_token_is_403_and_stores_nothing(
    anonymous: httpx.Client, platform: dict[str, str]
) -> None:
    token = signed_in(anonymous)
    archive = named(unenriched_files(), "csrf-cba", "1.0.0", "csrf")
    stored = f"{platform['blueprints']}/api/v1/blueprint-model/by-name/csrf-cba/version/1.0.0"
    for forged in (None, "wrong"):
        data = {"action": "save", **({"csrf": forged} if forged else {})}
        answer = anonymous.post("/blueprints/upload", data=data, files={"file": ("cba.zip", archive)})
        assert answer.status_code == 403
        assert httpx.get(stored, auth=("admin", "admin"), timeout=30).status_code == 404
    # The same form with the session's token stores it: the 403s above were the token's doing.
    answer = anonymous.post(
        "/blueprints/upload", data={"action": "save", "csrf": token}, files={"file": ("cba.zip", archive)}
    )
    assert answer.status_code == 303, answer.text
    assert httpx.get(stored, auth=("admin", "admin"), timeout=30).status_code == 200


def test_a_config_write_without_the_session_token_is_403_and_writes_nothing(
    anonymous: httpx.Client, platform: dict[str, str]
) -> None:
    token = signed_in(anonymous)
    root = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/"
    new = anonymous.get(root + "?form=new&child=GENERIC-RESOURCE-API:brg-allotted-resource")
    assert new.status_code == 200, new.text
    action = form_action(new)
    # The console's paths are the service's RESTCONF paths.
    entry = f"{platform['configtree']}{root}GENERIC-RESOURCE-API:brg-allotted-resource/ar-csrf/"
    for forged in (None, "wrong"):
        data = {"allotted-resource-id": "ar-csrf", **({"csrf": forged} if forged else {})}
        assert anonymous.post(action, data=data).status_code == 403
        assert httpx.get(entry, auth=("admin", "admin"), timeout=30).status_code == 404
    answer = anonymous.post(action, data={"allotted-resource-id": "ar-csrf", "csrf": token})
    assert answer.status_code == 303, answer.text
    assert httpx.get(entry, auth=("admin", "admin"), timeout=30).status_code == 200


def test_forms_a_reader_posts_anyway_get_the_services_403_shown(
    anonymous: httpx.Client, platform: dict[str, str]
) -> None:
    """Hidden forms posted with the session's own token: the console passes them on, each service
    refuses, and the page shows its 403 (as a 403, not a failure of the console)."""
    token = signed_in(anonymous, *READER)
    archive = named(unenriched_files(), "reader-cba", "1.0.0", "reader")
    upload = anonymous.post(
        "/blueprints/upload", data={"action": "save", "csrf": token}, files={"file": ("cba.zip", archive)}
    )
    assert upload.status_code == 403, upload.text
    assert "does not have permission platform.blueprints.api|blueprint-model|write" in upload.text
    stored = f"{platform['blueprints']}/api/v1/blueprint-model/by-name/reader-cba/version/1.0.0"
    assert httpx.get(stored, auth=ADMIN, timeout=30).status_code == 404

    root = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/"
    action = root + "?form=new&child=GENERIC-RESOURCE-API:brg-allotted-resource"
    written = anonymous.post(action, data={"allotted-resource-id": "ar-reader", "csrf": token})
    assert written.status_code == 403, written.text
    assert "The API answered 403" in written.text
    assert "platform.configtree.api|config|write" in written.text
    entry = f"{platform['configtree']}{root}GENERIC-RESOURCE-API:brg-allotted-resource/ar-reader/"
    assert httpx.get(entry, auth=ADMIN, timeout=30).status_code == 404
