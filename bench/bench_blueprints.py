"""Blueprint catalog: enrich-and-publish of a realistic CBA, and paged listing over 10,000 models.

Run by hand: ``.venv/bin/python bench/bench_blueprints.py [seconds]``. Starts ``netplatform
serve --only blueprints`` on a free port with a throwaway data dir (SQLite), loads the starter
model types and dictionaries, then measures over loopback:

* ``enrichandpublish`` of the starter sample CBA as its author writes it (TOSCA.meta, entry
  definition, mapping file, template, script; no type files), each upload under a new name, so
  every request enriches, validates, writes a blob and a row;
* listing with 10,000 models stored: pages by date and by name (first and deep pages), a page of
  a keyword, and the whole-keyword search. The 10,000 models are seeded straight through the
  catalog's repository (meta-data rows and keyword rows, one shared placeholder blob name),
  because the listing reads only meta-data and 10,000 uploads would measure uploads instead.

Prints the figures, writes docs/performance/blueprints.md and bench/results/blueprints.json.
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import sys
import time
import uuid
import zipfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import aiohttp
import httpx

from common import AUTH, TABLE_HEADER, LoadResult, Request, drive, get, serve, write_fragment, write_results
from netplatform.blueprints.catalog.enrich import is_generated_definition
from netplatform.blueprints.repository.blueprint_models import BlueprintModelRepository, ModelRecord
from netplatform.blueprints.starter_catalog import STARTER
from netplatform.clock import utc_now
from netplatform.settings import Settings
from netplatform.store.db import database_for

MODELS = 10_000
SAMPLE = STARTER / "blueprints" / "edge-router-cfg"
SAMPLE_ENTRY = "Definitions/edge_router_cfg.json"


def author_cba(name: str) -> bytes:
    """The sample CBA as written by hand (no generated type files), under a given name."""
    files = {
        p.relative_to(SAMPLE).as_posix(): p.read_bytes()
        for p in sorted(SAMPLE.rglob("*"))
        if p.is_file() and not is_generated_definition(p.relative_to(SAMPLE).as_posix())
    }
    entry = json.loads(files[SAMPLE_ENTRY])
    entry.pop("imports", None)
    files[SAMPLE_ENTRY] = json.dumps(entry).encode()
    meta = (
        files["TOSCA-Metadata/TOSCA.meta"]
        .decode()
        .replace("Template-Name: edge-router-cfg", f"Template-Name: {name}")
    )
    files["TOSCA-Metadata/TOSCA.meta"] = meta.encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry_name, data in files.items():
            archive.writestr(entry_name, data)
    return buffer.getvalue()


def bootstrap(base: str) -> None:
    with httpx.Client(base_url=base, headers=AUTH, timeout=60) as client:
        kinds = {"loadModelType": True, "loadResourceDictionary": True}
        client.post("/api/v1/blueprint-model/bootstrap", json=kinds).raise_for_status()


def seed_models(data_dir: Path, count: int) -> float:
    """``count`` models with realistic meta-data, through the repository, in batches."""
    db = database_for(Settings(data_dir=data_dir))
    started = time.perf_counter()
    base = utc_now() - timedelta(days=30)
    for first in range(0, count, 1000):
        with db.write() as session:
            for i in range(first, min(first + 1000, count)):
                record = ModelRecord(
                    id=str(uuid.uuid4()),
                    artifact_name=f"seeded-{i:05d}",
                    artifact_version=f"{1 + i % 3}.{i % 10}.0",
                    artifact_type="SDNC_MODEL",
                    artifact_description=f"Controller Blueprint for seeded-{i:05d}",
                    published="Y" if i % 4 else "N",
                    updated_by=f"designer-{i % 20}@example.net",
                    tags=f"bench, group-{i % 100}, {('edge', 'core', 'access')[i % 3]}",
                    created_date=base + timedelta(seconds=i),
                    blob_name="0" * 32,
                    blob_size=0,
                    workflows=["resource-assignment", "config-deploy"],
                )
                BlueprintModelRepository(session).replace(record)
    return time.perf_counter() - started


def upload_request(base: str) -> Request:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        form = aiohttp.FormData()
        form.add_field("file", author_cba(f"bench-cba-{n}-{uuid.uuid4().hex[:6]}"), filename="cba.zip")
        async with session.post(f"{base}/api/v1/blueprint-model/enrichandpublish", data=form) as response:
            await response.read()
            return response.status

    return request


LISTINGS: dict[str, Callable[[int], str]] = {
    "page 1 by date": lambda n: "/api/v1/blueprint-model/paged?limit=20",
    "deep page by name, desc": lambda n: (
        f"/api/v1/blueprint-model/paged?limit=20&offset={400 + n % 90}&sort=NAME&sortType=DESC"
    ),
    "page of a keyword": lambda n: (
        f"/api/v1/blueprint-model/paged/meta-data/group-{n % 100}?limit=20&offset=2"
    ),
    "whole-keyword search": lambda n: f"/api/v1/blueprint-model/meta-data/group-{n % 100}",
}


async def measure(base: str, seconds: float) -> list[LoadResult]:
    results = []
    for concurrency in (1, 4):
        results.append(
            await drive("enrichandpublish", upload_request(base), concurrency, seconds, max_requests=2000)
        )
        print(results[-1].row(), flush=True)
    return results


def _url(base: str, path_of: Callable[[int], str], n: int) -> str:
    return base + path_of(n)


async def measure_listing(base: str, seconds: float) -> list[LoadResult]:
    results = []
    for label, path_of in LISTINGS.items():
        for concurrency in (1, 8, 32):
            results.append(
                await drive(label, get(functools.partial(_url, base, path_of)), concurrency, seconds)
            )
            print(results[-1].row(), flush=True)
    return results


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    with serve(["blueprints"]) as served:
        base = served.url("blueprints")
        bootstrap(base)
        print(TABLE_HEADER)
        publishing = asyncio.run(measure(base, seconds))
        seed_seconds = seed_models(served.data_dir, MODELS)
        with httpx.Client(base_url=base, headers=AUTH) as client:
            total = client.get("/api/v1/blueprint-model/paged?limit=1").json()["totalElements"]
        listing = asyncio.run(measure_listing(base, seconds))
    results = publishing + listing
    archive_size = len(author_cba("bench-cba-0"))
    body = f"""
Figures from `bench/bench_blueprints.py` ({seconds:.0f} s per row, loopback, SQLite, one
`netplatform serve --only blueprints` process; the load generator runs on the same 2 cores,
which other work shared while measuring: read the figures as lower bounds, give or take a third).

**enrichandpublish** of the starter sample CBA as its author writes it ({archive_size:,} bytes
zipped: entry definition with 3 node templates and 2 workflows, a mapping file of 6
assignments, a template, a script). Each request enriches it from the stored model types and
dictionaries (10 node types, 4 artifact types, 2 data types, 1 relationship type, 6 resource
definitions), validates the result, fsyncs the blob and commits the row.

{TABLE_HEADER}
{chr(10).join(r.row() for r in publishing)}

**Listing with {total:,} models stored** ({MODELS:,} seeded through the repository in
{seed_seconds:.1f} s, plus the published ones above). Pages are `limit=20`; the deep page is
around page 450 of 500 sorted by name descending; keywords match 100 models each (whole-keyword
lookup in the indexed keyword table, then sort and page in SQL).

{TABLE_HEADER}
{chr(10).join(r.row() for r in listing)}
"""
    path = write_fragment("blueprints", "Blueprint catalog", body)
    write_results("blueprints", results)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
