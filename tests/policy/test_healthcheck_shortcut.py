"""``GET /healthcheck`` answered by the kernel's shortcut (issue 26), with the route's guarantees."""

from __future__ import annotations

import socket

import httpx
import yaml

from netplatform.policy import create_app
from netplatform.settings import Settings
from netplatform.web.health import HealthShortcut

from ..conftest import OPERATOR, RunningService
from .conftest import API

HEALTHCHECK = f"{API}/healthcheck"
REPORT = {"name": "Policy API", "url": socket.gethostname(), "healthy": True, "code": 200, "message": "alive"}


def test_the_policy_app_answers_its_healthcheck_by_a_shortcut(settings: Settings) -> None:
    app = create_app(settings)
    shortcuts = [m.kwargs["path"] for m in app.user_middleware if m.cls is HealthShortcut]  # type: ignore[comparison-overlap]
    assert HEALTHCHECK in shortcuts


def test_the_shortcut_answers_the_report_in_either_media_type(client: httpx.Client) -> None:
    as_json = client.get(HEALTHCHECK)
    as_yaml = client.get(HEALTHCHECK, headers={"Accept": "application/yaml"})
    assert (as_json.status_code, as_json.json()) == (200, REPORT)
    assert as_yaml.headers["content-type"].startswith("application/yaml")
    assert yaml.safe_load(as_yaml.text) == REPORT


def test_the_shortcut_still_needs_credentials_and_the_read_permission(service: RunningService) -> None:
    with service.client(auth=None) as anonymous, service.client(auth=OPERATOR) as no_roles:
        assert anonymous.get(HEALTHCHECK).status_code == 401
        refused = no_roles.get(HEALTHCHECK)
    assert refused.status_code == 403
    assert "platform.policy.api|healthcheck|read" in refused.text
