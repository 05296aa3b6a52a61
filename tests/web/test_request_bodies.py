"""A request body of a media type its operation does not declare is 415, and a request a page on
another site could send unasked is 403 (web/bodytypes.py), before the service runs."""

from __future__ import annotations

import uuid

from ..conftest import ServiceStarter
from ..support.answers import ok

EVIL = {"Origin": "http://evil.example"}
JSON_TEXT = '{"name": "org.csrf.%s"}'


def role_body(kind: str) -> str:
    return JSON_TEXT % f"{kind}-{uuid.uuid4().hex[:8]}"


def test_a_form_or_text_body_to_a_json_operation_is_415(start_service: ServiceStarter) -> None:
    authz = start_service("authz")
    with authz.client() as admin:
        for headers in ({"Content-Type": "text/plain"}, {"Content-Type": "text/plain", **EVIL}):
            refused = admin.post("/authz/role", content=role_body("text"), headers=headers)
            assert refused.status_code == 415, refused.text
            assert refused.json()["code"] == 415 and "application/json" in refused.json()["message"]
        form = {"Content-Type": "application/x-www-form-urlencoded", **EVIL}
        assert admin.post("/authz/role", content="name=org.csrf.form", headers=form).status_code == 415
        untyped = admin.post("/authz/role", content=role_body("untyped"))
        assert untyped.status_code == 415 and "needs a Content-Type" in untyped.json()["message"]
        # An empty cross-site form is one too.
        assert admin.post("/authz/role", headers=form).status_code == 415
        # Nothing was created.
        names = [role["name"] for role in ok(admin.get("/authz/roles"))["role"]]
        assert not [name for name in names if name.startswith("org.csrf.")]
        # JSON is taken, from a client (no Origin), the service's own page, or even another site
        # (a browser asks first, and is never told yes).
        own = {"Origin": authz.url}
        for headers in ({}, own, EVIL):
            ok(
                admin.post("/authz/role", json={"name": f"org.json.{uuid.uuid4().hex[:8]}"}, headers=headers),
                201,
            )


def test_a_text_publish_from_another_site_is_refused(start_service: ServiceStarter) -> None:
    router = start_service("router")
    topic = f"org.example.t{uuid.uuid4().hex[:12]}.events"
    with router.client() as admin:
        ok(admin.post("/topics/create", json={"topicName": topic}))
        text = {"Content-Type": "text/plain"}
        forged = admin.post(f"/events/{topic}", content='{"messageID": "x"}', headers={**text, **EVIL})
        assert forged.status_code == 403 and "evil.example" in forged.text
        form = {"Content-Type": "application/x-www-form-urlencoded", **EVIL}
        assert admin.post(f"/events/{topic}", content="a=1", headers=form).status_code == 415
        # The reference's text publish from a client stays as it was.
        assert ok(admin.post(f"/events/{topic}", content="one\ntwo", headers=text))["count"] == 2
        fetched = ok(admin.get(f"/events/{topic}/g/c", params={"timeout": 0}))
    assert fetched == ["one", "two"]


def test_operations_that_check_their_own_bodies_keep_their_order(start_service: ServiceStarter) -> None:
    distribution = start_service("distribution")
    with distribution.client() as admin:
        headers = {"X-BUS-DR-ON-BEHALF-OF": "opsteam", "Content-Type": "text/plain"}
        # The reference's order: a bad subscription id (400) before the media type (415) ...
        assert admin.put("/subs/x", content=b"", headers=headers).status_code == 400
        # ... unless the request comes from another site, which the kernel refuses first.
        assert admin.put("/subs/x", content=b"{}", headers={**headers, **EVIL}).status_code == 415


def test_a_body_to_an_operation_without_one_is_left_alone_unless_cross_site(
    start_service: ServiceStarter,
) -> None:
    authz = start_service("authz")
    with authz.client() as admin:
        json_body = {"Content-Type": "application/json"}
        assert (
            admin.request("DELETE", "/authz/role/org.none", content=b"{}", headers=json_body).status_code
            == 404
        )
        cross = {"Content-Type": "text/plain", **EVIL}
        assert admin.request("DELETE", "/authz/role/org.none", content=b"x", headers=cross).status_code == 415


def test_an_untyped_post_from_another_site_is_refused(start_service: ServiceStarter) -> None:
    authz = start_service("authz")
    with authz.client() as admin:
        forged = admin.post("/authz/role", headers=EVIL)
        assert forged.status_code == 403 and "another site" in forged.json()["message"]
        assert admin.post("/authz/role").status_code == 400  # a client's: the service says what is wrong
        # Other methods from another site need a browser's preflight first: left to the service.
        assert admin.delete("/authz/role/org.none", headers=EVIL).status_code == 404
