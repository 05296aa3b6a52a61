"""Finding models: whole-keyword meta-data search, tag substring search, pages."""

from __future__ import annotations

import httpx
import pytest

from .conftest import MODELS, assert_error, named, sample_files, upload


@pytest.fixture
def catalog(client: httpx.Client) -> httpx.Client:
    for name, version, tags in [
        ("alpha", "1.0.0", "edge, router"),
        ("bravo", "2.0.0", "core, Router"),
        ("charlie", "1.5.0", "edge-lab"),
    ]:
        assert upload(client, "", named(sample_files(), name, version, tags)).status_code == 200
    return client


def names(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    body = response.json()
    items = body["content"] if isinstance(body, dict) else [item["blueprintModel"] for item in body]
    return [item["artifactName"] for item in items]


def test_meta_data_matches_whole_keywords_ignoring_case(catalog: httpx.Client) -> None:
    assert sorted(names(catalog.get(f"{MODELS}/meta-data/edge"))) == ["alpha"]
    assert sorted(names(catalog.get(f"{MODELS}/meta-data/ROUTER"))) == ["alpha", "bravo"]
    assert names(catalog.get(f"{MODELS}/meta-data/edg")) == []
    assert names(catalog.get(f"{MODELS}/meta-data/edge-lab")) == ["charlie"]
    assert names(catalog.get(f"{MODELS}/meta-data/2.0.0")) == ["bravo"]
    assert len(names(catalog.get(f"{MODELS}/meta-data/sdnc_model"))) == 3
    assert len(names(catalog.get(f"{MODELS}/meta-data/netplatform starter catalog"))) == 3


def test_search_matches_parts_of_tags(catalog: httpx.Client) -> None:
    assert sorted(names(catalog.get(f"{MODELS}/search/edg"))) == ["alpha", "charlie"]
    assert sorted(names(catalog.get(f"{MODELS}/search/OUTE"))) == ["alpha", "bravo"]
    assert names(catalog.get(f"{MODELS}/search/%25")) == []  # a literal %, not a wildcard
    assert names(catalog.get(f"{MODELS}/search/nothing")) == []


def test_paged_listing_sorts_and_pages_by_page_index(catalog: httpx.Client) -> None:
    first = catalog.get(f"{MODELS}/paged", params={"limit": 2, "sort": "NAME"})
    page = first.json()
    assert names(first) == ["alpha", "bravo"]
    assert page["totalElements"] == 3 and page["totalPages"] == 2
    assert page["size"] == 2 and page["number"] == 0 and page["numberOfElements"] == 2
    assert page["first"] is True and page["last"] is False and page["empty"] is False
    assert page["pageable"] == {
        "sort": {"empty": False, "sorted": True, "unsorted": False},
        "offset": 0,
        "pageNumber": 0,
        "pageSize": 2,
        "paged": True,
        "unpaged": False,
    }
    second = catalog.get(f"{MODELS}/paged", params={"limit": 2, "offset": 1, "sort": "NAME"})
    assert names(second) == ["charlie"]
    assert second.json()["pageable"]["offset"] == 2 and second.json()["last"] is True
    assert "blueprintModel" not in second.json()["content"][0]
    beyond = catalog.get(f"{MODELS}/paged", params={"limit": 2, "offset": 5}).json()
    assert beyond["content"] == [] and beyond["empty"] is True


def test_paged_listing_sort_fields_and_direction(catalog: httpx.Client) -> None:
    assert names(catalog.get(f"{MODELS}/paged", params={"sort": "name", "sortType": "desc"})) == [
        "charlie",
        "bravo",
        "alpha",
    ]
    assert names(catalog.get(f"{MODELS}/paged", params={"sort": "VERSION"})) == ["alpha", "charlie", "bravo"]
    assert names(catalog.get(f"{MODELS}/paged")) == ["alpha", "bravo", "charlie"]  # DATE ascending
    assert names(catalog.get(f"{MODELS}/paged", params={"sortType": "DESC"})) == ["charlie", "bravo", "alpha"]


def test_paged_listing_filters_on_published(bootstrapped: httpx.Client) -> None:
    upload(bootstrapped, "", named(sample_files(), "draft"))
    upload(bootstrapped, "/publish", named(sample_files(), "released"))
    assert names(bootstrapped.get(f"{MODELS}/paged", params={"published": "true"})) == ["released"]
    assert names(bootstrapped.get(f"{MODELS}/paged", params={"published": "false"})) == ["draft"]


def test_paged_keyword_listing(catalog: httpx.Client) -> None:
    response = catalog.get(
        f"{MODELS}/paged/meta-data/router", params={"limit": 1, "sort": "NAME", "sortType": "DESC"}
    )
    assert names(response) == ["bravo"]
    assert response.json()["totalElements"] == 2


@pytest.mark.parametrize(
    "params",
    [
        {"sort": "SIZE"},
        {"sortType": "SIDEWAYS"},
        {"limit": 0},
        {"limit": "ten"},
        {"offset": -1},
        {"published": "perhaps"},
    ],
)
def test_bad_paging_parameters_are_400(client: httpx.Client, params: dict[str, str | int]) -> None:
    assert_error(client.get(f"{MODELS}/paged", params=params), 400, "INVALID_REQUEST_FORMAT")
