"""Feeds, publishers and subscribers, provisioned into the REAL distribution service over HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.secrets import sealer_for

from ..conftest import ServiceStarter
from ..support.answers import ok
from ..support.servers import free_port
from .conftest import BUS_SETTINGS, api_error

FEED = {
    "feedName": "pm-counters",
    "feedVersion": "1.0",
    "owner": "opsteam",
    "asprClassification": "unclassified",
}


@dataclass
class Pair:
    """The bus controller and the distribution service it provisions."""

    bus: httpx.Client
    dist_url: str

    def there(self, path: str, behalf: str = "opsteam") -> httpx.Response:
        return httpx.get(
            self.dist_url + path, auth=("admin", "admin"), headers={"X-BUS-DR-ON-BEHALF-OF": behalf}
        )

    def point_at(self, url: str) -> None:
        ok(self.bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": url}))

    def publishes(self, feed_id: str, user: str, password: str) -> bool:
        """Whether the distribution service takes a file from these endpoint credentials (it
        shows no endpoint password: they are stored hashed there)."""
        answer = httpx.put(
            f"{self.dist_url}/publish/{feed_id}/probe.txt",
            content=b"x",
            auth=(user, password),
            headers={"Content-Type": "application/octet-stream"},
        )
        assert answer.status_code in (204, 401, 403), (answer.status_code, answer.text)
        return answer.status_code == 204


@pytest.fixture
def pair(start_service: ServiceStarter) -> Pair:
    distribution = start_service("distribution")
    bus = start_service("bus").client()
    result = Pair(bus, distribution.url)
    result.point_at(distribution.url)
    return result


MASK = "********"


def masked(obj: dict[str, Any]) -> dict[str, Any]:
    """An object as every answer but the one that created it shows it to a writer (issue 36): the
    passwords of it, its publishers and its subscribers masked."""
    shown = {**obj}
    if shown.get("userpwd") is not None:
        shown["userpwd"] = MASK
    for members in ("pubs", "subs"):
        if members in shown:
            shown[members] = [masked(member) for member in shown[members]]
    return shown


def closed_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


def sub_body(feed_id: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "feedId": feed_id,
        "svcLocationName": "edge-1",
        "deliveryURL": "https://sink.example:9443/in",
        "username": "rxuser",
        "userpwd": "rx-pass",
        **fields,
    }


def test_feed_is_created_there_with_a_generated_publisher(pair: Pair) -> None:
    ok(pair.bus.post("/svcLocations", json={"svcLocationName": "dc-central-1", "svcLayer": "central"}))
    feed = ok(pair.bus.post("/feeds/", json={**FEED, "feedDescription": "hourly", "formatUuid": "fmt-1"}))
    assert feed["status"] == "VALID"
    assert feed["publishURL"] == f"{pair.dist_url}/publish/{feed['feedId']}"
    assert feed["subscribeURL"] == f"{pair.dist_url}/subscribe/{feed['feedId']}"
    assert feed["logURL"] == f"{pair.dist_url}/feedlog/{feed['feedId']}"
    assert feed["formatUuid"] == "fmt-1"
    assert feed["suspended"] is False
    assert feed["subs"] == []
    (pub,) = feed["pubs"]
    assert pub["svcLocationName"] == "dc-central-1"
    assert pub["pubId"].startswith(feed["feedId"] + ".") and len(pub["pubId"]) == len(feed["feedId"]) + 6
    assert pub["username"].startswith("tmp_") and len(pub["username"]) == 19
    assert len(pub["userpwd"]) == 15
    assert pub["status"] == "VALID"
    there = ok(pair.there(f"/feed/{feed['feedId']}"))
    assert there["name"] == "pm-counters" and there["description"] == "hourly"
    assert there["publisher"] == "opsteam"
    assert there["authorization"]["endpoint_ids"] == [{"id": pub["username"]}]
    assert pair.publishes(feed["feedId"], pub["username"], pub["userpwd"])
    assert not pair.publishes(feed["feedId"], pub["username"], "wrong")
    assert ok(pair.bus.get(f"/feeds/{feed['feedId']}")) == masked(feed)


def test_feed_required_fields_and_conflicts(pair: Pair) -> None:
    for missing in ("feedName", "feedVersion", "owner", "asprClassification"):
        error = api_error(pair.bus.post("/feeds", json={**FEED, missing: None}), 400)
        assert error == {"code": 400, "message": "missing required field", "fields": missing, "is2xx": False}
    created = ok(pair.bus.post("/feeds", json=FEED))
    conflict = api_error(pair.bus.post("/feeds", json=FEED), 409)
    assert conflict["message"] == "feed already exists"
    assert conflict["fields"] == "feedName=pm-counters + feedVersion=1.0"
    assert ok(pair.bus.post("/feeds/", params={"useExisting": "true"}, json=FEED)) == masked(created)


def test_feed_refused_there_is_not_stored_here(pair: Pair) -> None:
    error = api_error(pair.bus.post("/feeds", json={**FEED, "owner": "far-too-long-owner"}), 400)
    assert error["message"] == "X-BUS-DR-ON-BEHALF-OF header too long"
    api_error(pair.bus.post("/feeds", json={**FEED, "feedName": "n" * 21}), 400)
    assert ok(pair.bus.get("/feeds")) == []


def test_feed_filters(pair: Pair) -> None:
    for name, version in (("pm-counters", "1.0"), ("pm-counters", "2.0"), ("fault-log", "1.0")):
        ok(pair.bus.post("/feeds", json={**FEED, "feedName": name, "feedVersion": version}))

    def names(**params: str) -> list[tuple[str, str]]:
        return [(f["feedName"], f["feedVersion"]) for f in ok(pair.bus.get("/feeds", params=params))]

    assert len(names()) == 3
    assert names(feedName="pm-counters") == [("pm-counters", "1.0"), ("pm-counters", "2.0")]
    assert names(feedName="pm", match="startsWith") == [("pm-counters", "1.0"), ("pm-counters", "2.0")]
    assert names(feedName="log", match="contains") == [("fault-log", "1.0")]
    assert names(feedName="pm") == []
    assert names(feedName="pm-counters", version="2.0") == [("pm-counters", "2.0")]
    missing = api_error(pair.bus.get("/feeds/999"), 404)
    assert missing == {"code": 404, "message": "feed not found", "fields": "feedId=999", "is2xx": False}


def test_feed_update_and_delete_reach_the_distribution_service(pair: Pair) -> None:
    feed = ok(pair.bus.post("/feeds", json={**FEED, "feedDescription": "old", "formatUuid": "f1"}))
    feed_id = feed["feedId"]
    ok(pair.bus.post("/dr_subs", json=sub_body(feed_id)))
    updated = ok(pair.bus.put(f"/feeds/{feed_id}", json={"feedDescription": "new", "suspended": True}))
    assert updated["feedDescription"] == "new"
    assert updated["suspended"] is True
    assert updated["formatUuid"] == "f1"
    assert ok(pair.there(f"/feed/{feed_id}"))["suspend"] is True
    kept = ok(pair.bus.put(f"/feeds/{feed_id}", json={"formatUuid": "f2"}))
    assert kept["suspended"] is True and kept["formatUuid"] == "f2"
    api_error(pair.bus.put("/feeds/999", json={}), 404)
    sub_id = kept["subs"][0]["subId"]
    ok(pair.bus.delete(f"/feeds/{feed_id}"), 204)
    assert pair.there(f"/feed/{feed_id}").status_code == 404
    assert pair.there(f"/subs/{sub_id}", behalf="busctl").status_code == 404
    api_error(pair.bus.get(f"/feeds/{feed_id}"), 404)
    assert ok(pair.bus.get("/dr_subs")) == []
    api_error(pair.bus.delete(f"/feeds/{feed_id}"), 404)


def test_publishers(pair: Pair) -> None:
    feed = ok(pair.bus.post("/feeds", json=FEED))
    feed_id = feed["feedId"]
    assert api_error(pair.bus.post("/dr_pubs", json={"svcLocationName": "x"}), 400)["fields"] == "feedName"
    assert api_error(pair.bus.post("/dr_pubs", json={"feedName": "none", "svcLocationName": "x"}), 404)[
        "fields"
    ] == ("feedName")
    assert api_error(pair.bus.post("/dr_pubs", json={"feedId": feed_id}), 400)["fields"] == "svcLocationName"
    assert api_error(pair.bus.post("/dr_pubs", json={"feedId": "999", "svcLocationName": "x"}), 404)[
        "fields"
    ] == ("feedId=999")
    by_name = ok(pair.bus.post("/dr_pubs", json={"feedName": "pm-counters", "svcLocationName": "edge-1"}))
    assert by_name["feedId"] == feed_id and by_name["status"] == "VALID"
    chosen = ok(
        pair.bus.post(
            "/dr_pubs/",
            json={"feedId": feed_id, "svcLocationName": "e2", "username": "pub2", "userpwd": "pw2"},
        )
    )
    assert (chosen["username"], chosen["userpwd"]) == ("pub2", "pw2")
    ids = [e["id"] for e in ok(pair.there(f"/feed/{feed_id}"))["authorization"]["endpoint_ids"]]
    assert ids == [feed["pubs"][0]["username"], by_name["username"], "pub2"]
    assert ok(pair.bus.get(f"/dr_pubs/{chosen['pubId']}")) == masked(chosen)
    assert len(ok(pair.bus.get("/dr_pubs"))) == 3
    changed = ok(pair.bus.put(f"/dr_pubs/{chosen['pubId']}", json={"userpwd": "pw3"}))
    assert changed["userpwd"] == MASK and changed["username"] == "pub2"
    assert pair.publishes(feed_id, "pub2", "pw3")
    assert not pair.publishes(feed_id, "pub2", "pw2")
    # The mask sent back (a GET's answer, edited and PUT) keeps the password.
    renamed = ok(pair.bus.put(f"/dr_pubs/{chosen['pubId']}", json={**changed, "svcLocationName": "e3"}))
    assert renamed["svcLocationName"] == "e3"
    assert pair.publishes(feed_id, "pub2", "pw3")
    missing = api_error(pair.bus.put("/dr_pubs/nope", json={}), 404)
    assert missing["message"] == "DR_Pub with pubId = nope not found"
    ok(pair.bus.delete(f"/dr_pubs/{chosen['pubId']}"), 204)
    ok(pair.bus.delete(f"/dr_pubs/{by_name['pubId']}"), 204)
    assert len(ok(pair.there(f"/feed/{feed_id}"))["authorization"]["endpoint_ids"]) == 1
    last = api_error(pair.bus.delete(f"/dr_pubs/{feed['pubs'][0]['pubId']}"), 400)
    assert last["message"] == "Can't delete the last publisher of a feed"
    api_error(pair.bus.delete(f"/dr_pubs/{chosen['pubId']}"), 404)


def stored_passwords(settings: Settings, table: str) -> list[str]:
    """The ``userpwd`` of each row of ``table``, opened with the platform key (they are sealed)."""
    with database_for(settings).read() as session:
        stored = session.execute(sa.text(f"SELECT userpwd FROM {table} ORDER BY id")).scalars().all()  # noqa: S608
    return [sealer_for(settings).open(value) for value in stored]


def test_subscribers(pair: Pair, settings: Settings) -> None:
    feed_id = ok(pair.bus.post("/feeds", json=FEED))["feedId"]
    refused = api_error(pair.bus.post("/dr_subs", json=sub_body(feed_id, deliveryURL="http://plain/in")), 400)
    assert refused["message"] == "delivery URL is not HTTPS"
    assert ok(pair.bus.get("/dr_subs")) == []
    assert api_error(pair.bus.post("/dr_subs", json=sub_body(feed_id, svcLocationName=None)), 400)[
        "fields"
    ] == ("svcLocationName")
    api_error(pair.bus.post("/dr_subs", json=sub_body("999")), 404)
    sub = ok(pair.bus.post("/dr_subs", json=sub_body(None, feedName="pm-counters", use100=True)))
    assert sub["status"] == "VALID"
    assert sub["feedId"] == feed_id
    assert sub["owner"] == "busctl"
    assert sub["use100"] is True
    assert sub["logURL"] == f"{pair.dist_url}/sublog/{sub['subId']}"
    assert sub["decompress"] is False and sub["guaranteedDelivery"] is False
    there = ok(pair.there(f"/subs/{sub['subId']}", behalf="busctl"))
    assert there["delivery"] == {
        "url": "https://sink.example:9443/in",
        "user": "rxuser",
        "password": "********",  # read back, distribution masks it (docs/distribution.md)
        "use100": True,
    }
    assert ok(pair.bus.get(f"/dr_subs/{sub['subId']}")) == masked(sub)
    replaced = ok(
        pair.bus.put(
            f"/dr_subs/{sub['subId']}",
            json={**masked(sub), "deliveryURL": "https://other/in", "use100": False},
        )
    )
    assert replaced["deliveryURL"] == "https://other/in" and replaced["use100"] is False
    assert replaced["userpwd"] == MASK
    assert ok(pair.there(f"/subs/{sub['subId']}", behalf="busctl"))["delivery"]["url"] == "https://other/in"
    assert stored_passwords(settings, "bus_subs") == ["rx-pass"]  # the mask sent back kept it
    assert (
        api_error(pair.bus.put(f"/dr_subs/{sub['subId']}", json={**sub, "feedId": None}), 400)["fields"]
        == "feedId"
    )
    api_error(pair.bus.put(f"/dr_subs/{sub['subId']}", json={**sub, "feedId": "999"}), 404)
    missing = api_error(pair.bus.put("/dr_subs/999", json=sub), 404)
    assert missing == {"code": 404, "message": "subId 999 not found", "fields": "subId", "is2xx": False}
    ok(pair.bus.delete(f"/dr_subs/{sub['subId']}"), 204)
    assert pair.there(f"/subs/{sub['subId']}", behalf="busctl").status_code == 404
    api_error(pair.bus.delete(f"/dr_subs/{sub['subId']}"), 404)


def test_subscribing_by_an_ambiguous_name_conflicts(pair: Pair) -> None:
    ok(pair.bus.post("/feeds", json=FEED))
    ok(pair.bus.post("/feeds", json={**FEED, "feedVersion": "2.0"}))
    body = sub_body(None, feedName="pm-counters")
    assert api_error(pair.bus.post("/dr_subs", json=body), 409)["fields"] == "feedName"
    assert ok(pair.bus.post("/dr_subs", json={**body, "feedVersion": "2.0"}))["status"] == "VALID"


def test_distribution_down_gives_invalid_and_a_later_post_retries(pair: Pair) -> None:
    pair.point_at(closed_url())
    body = {**FEED, "subs": [sub_body(None)]}
    failed = ok(pair.bus.post("/feeds", json=body))
    assert failed["status"] == "INVALID"
    assert "unreachable" in failed["statusReason"]
    assert "feedId" not in failed and "publishURL" not in failed
    assert failed["pubs"][0]["status"] == "INVALID" and "pubId" not in failed["pubs"][0]
    assert failed["subs"][0]["status"] == "INVALID"
    assert [f["status"] for f in ok(pair.bus.get("/feeds"))] == ["INVALID"]
    pair.point_at(pair.dist_url)
    retried = ok(pair.bus.post("/feeds", json=body))
    assert retried["status"] == "VALID"
    assert "statusReason" not in retried
    assert retried["pubs"][0]["pubId"].startswith(retried["feedId"] + ".")
    assert retried["subs"][0]["status"] == "VALID" and retried["subs"][0]["subId"]
    assert ok(pair.there(f"/feed/{retried['feedId']}"))["name"] == "pm-counters"
    assert len(ok(pair.bus.get("/feeds"))) == 1


def test_distribution_down_on_update_then_a_later_update_retries(pair: Pair) -> None:
    feed = ok(pair.bus.post("/feeds", json=FEED))
    feed_id = feed["feedId"]
    pair.point_at(closed_url())
    failed = ok(pair.bus.put(f"/feeds/{feed_id}", json={"feedDescription": "while down"}))
    assert failed["status"] == "INVALID" and failed["feedDescription"] == "while down"
    pub = ok(pair.bus.post("/dr_pubs", json={"feedId": feed_id, "svcLocationName": "e1"}))
    assert pub["status"] == "INVALID" and pub["pubId"].startswith(feed_id)
    pending_sub = ok(pair.bus.post("/dr_subs", json=sub_body(feed_id)))
    assert pending_sub["status"] == "INVALID" and "subId" not in pending_sub
    pair.point_at(pair.dist_url)
    fixed = ok(pair.bus.put(f"/feeds/{feed_id}", json={}))
    assert fixed["status"] == "VALID"
    assert [p["status"] for p in fixed["pubs"]] == ["VALID", "VALID"]
    assert fixed["subs"][0]["status"] == "VALID"
    there = ok(pair.there(f"/feed/{feed_id}"))
    assert there["description"] == "while down"
    assert len(there["authorization"]["endpoint_ids"]) == 2


def test_distribution_down_on_delete_keeps_deleted_until_a_repeated_delete(pair: Pair) -> None:
    feed_id = ok(pair.bus.post("/feeds", json=FEED))["feedId"]
    sub = ok(pair.bus.post("/dr_subs", json=sub_body(feed_id)))
    pair.point_at(closed_url())
    ok(pair.bus.delete(f"/dr_subs/{sub['subId']}"), 204)
    assert ok(pair.bus.get(f"/dr_subs/{sub['subId']}"))["status"] == "DELETED"
    ok(pair.bus.delete(f"/feeds/{feed_id}"), 204)
    pending = ok(pair.bus.get(f"/feeds/{feed_id}"))
    assert pending["status"] == "DELETED" and pending["statusReason"]
    api_error(pair.bus.put(f"/feeds/{feed_id}", json={}), 404)
    assert ok(pair.there(f"/feed/{feed_id}"))["name"] == "pm-counters"
    pair.point_at(pair.dist_url)
    ok(pair.bus.delete(f"/feeds/{feed_id}"), 204)
    api_error(pair.bus.get(f"/feeds/{feed_id}"), 404)
    assert pair.there(f"/feed/{feed_id}").status_code == 404
    assert pair.there(f"/subs/{sub['subId']}", behalf="busctl").status_code == 404
