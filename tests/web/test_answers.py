"""The kernel's one way to render an answer (web/answers.py) and to document it (web/openapi.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, Field
from starlette.responses import Response

from netplatform.web.answers import Reply, reply
from netplatform.web.errors import plain_text_renderer
from netplatform.web.openapi import SUCCESS, answers
from netplatform.web.service import ServiceSpec

SPEC = ServiceSpec(name="things", title="Things", version="1", render_error=plain_text_renderer)


class Thing(BaseModel):
    kind: str = Field(alias="class")
    note: str | None = None
    size: int = 0


@dataclass(frozen=True)
class Negotiated:
    body: bytes
    media_type: str


def content_type(response: Response) -> str | None:
    return response.headers.get("content-type")


def test_a_model_is_its_json_by_alias_with_null_members_kept() -> None:
    answer = reply(Thing(**{"class": "ünï"}), 201)
    assert answer.status_code == 201
    assert answer.body == '{"class":"ünï","note":null,"size":0}'.encode()
    assert content_type(answer) == "application/json"


def test_a_service_that_drops_null_members_binds_it_once() -> None:
    answer = Reply(drop_none=True)([Thing(**{"class": "a"}), Thing(**{"class": "b"}, note="n")])
    assert answer.body == b'[{"class":"a","size":0},{"class":"b","note":"n","size":0}]'


def test_a_dict_or_list_is_written_as_it_is_compactly() -> None:
    assert reply({"name": "é", "items": [1, None]}).body == '{"name":"é","items":[1,null]}'.encode()
    assert reply([]).body == b"[]"
    assert reply(["a", "b"]).body == b'["a","b"]'


def test_json_may_name_a_vendor_media_type_and_carry_headers() -> None:
    answer = reply([{"n": 1}], media_type="application/vnd.x+json", headers={"Location": "/x/1"})
    assert answer.body == b'[{"n":1}]'
    assert content_type(answer) == "application/vnd.x+json"
    assert answer.headers["location"] == "/x/1"


def test_text_and_bytes_are_sent_as_they_are_in_their_media_type() -> None:
    text = reply('{"stored": "as is"}', media_type="application/json")
    assert text.body == b'{"stored": "as is"}'
    assert content_type(text) == "application/json"
    assert content_type(reply("<a/>", media_type="text/plain")) == "text/plain; charset=utf-8"
    assert reply(b"PK\x03\x04", media_type="application/zip").body == b"PK\x03\x04"


def test_a_negotiated_body_is_sent_in_its_own_media_type() -> None:
    answer = reply(Negotiated(b"name: x\n", "application/yaml"), 404)
    assert (answer.status_code, answer.body, content_type(answer)) == (404, b"name: x\n", "application/yaml")


def test_none_is_an_answer_without_a_body() -> None:
    for status in (200, 204, 307):
        answer = reply(None, status, headers={"Location": "/there"} if status == 307 else None)
        assert answer.status_code == status
        assert answer.body == b""
        assert content_type(answer) is None
    assert reply(None, 307, headers={"Location": "/there"}).headers["location"] == "/there"


YAML: dict[str, Any] = {"application/yaml": {}}


def documented(responses: dict[int | str, dict[str, Any]]) -> dict[str, Any]:
    app = FastAPI()

    @app.get("/one", responses=responses)
    def one() -> None: ...

    @app.get("/two", responses=answers(SPEC, list[Thing], content=YAML))
    def two() -> None: ...

    paths: dict[str, Any] = app.openapi()["paths"]
    return paths


def test_every_success_entry_is_described_alike() -> None:
    paths = documented(answers(SPEC, Thing, 404, status=201, content=YAML))
    created = paths["/one"]["get"]["responses"]["201"]
    assert created["description"] == SUCCESS == "Successful Response"
    assert created["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Thing"}
    assert set(paths["/one"]["get"]["responses"]) >= {"201", "404"}
    # Both routes were given one content (FastAPI copies it): each documents its own model in it.
    listed = paths["/two"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert listed["type"] == "array"


def test_an_answer_without_a_body_may_say_what_it_means() -> None:
    paths = documented(answers(SPEC, None, status=204, description="Removed"))
    assert paths["/one"]["get"]["responses"]["204"] == {"description": "Removed"}
