"""Authorization in the console, in Chromium through the real platform: a page offers only what
the signed-in identity's roles allow, the services refuse a forged form anyway (their 403 shown),
and an administrator manages identities and memberships on the Access page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ADMIN, READER, VIEWS, WAIT_MS, assert_fits_phone, assert_labelled, shoot, sign_in

TYPE = {
    "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
    "policy_types": {
        "console.access.Quota": {"derived_from": "tosca.policies.Root", "version": "1.0.0"},
    },
}
FORGED = (
    '{"tosca_definitions_version": "tosca_simple_yaml_1_1_0", "policy_types": '
    '{"console.forged.Type": {"derived_from": "tosca.policies.Root", "version": "1.0.0"}}}'
)
# Submits a form built in the page, as a page of another origin or a replayed request would post
# it: the console's CSRF check passes (the token is the session's own, read from the sign-out
# form), so only the service's permission check stands between the reader and the write.
FORGE = """([action, fields]) => {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = action;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden'; input.name = name; input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}"""


@pytest.fixture(scope="module")
def policy_type(platform: dict[str, str]) -> str:
    with httpx.Client(base_url=platform["policy"] + "/policy/api/v1", auth=ADMIN, timeout=30) as client:
        assert client.post("/policytypes", json=TYPE).status_code == 200
    return "/policy/types/console.access.Quota/versions/1.0.0"


@pytest.fixture
def signed_in_as(browser: Any, console: str) -> Iterator[Any]:
    """Sign in as someone else in a browser context of their own: ``signed_in_as(user, password)``."""
    contexts: list[Any] = []

    def open_page(user: str, password: str, path: str = "/") -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=console)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        sign_in(page, path, user, password)
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
        return page

    try:
        yield open_page
    finally:
        for context in contexts:
            context.close()


def forge(page: Any, action: str, fields: dict[str, str]) -> Any:
    """Post ``fields`` to ``action`` with the session's CSRF token; the response of the post."""
    token = page.locator("form.signout input[name=csrf]").get_attribute("value")
    with page.expect_navigation() as navigation:
        page.evaluate(FORGE, [action, {"csrf": token, **fields}])
    return navigation.value


def test_a_policy_reader_sees_no_forms_and_the_service_refuses_a_forged_create(
    signed_in_as: Any, policy_type: str, policy_api: httpx.Client
) -> None:
    page = signed_in_as(*READER, "/policy")
    expect(page.get_by_role("heading", level=1)).to_have_text("Policy types")
    expect(page.get_by_role("link", name="console.access.Quota")).to_be_visible()
    expect(page.get_by_role("link", name="Create a policy type")).to_have_count(0)
    expect(page.get_by_role("link", name="Create a policy", exact=True)).to_have_count(0)
    # No Access in the navigation: a policy reader may not read the authz API.
    expect(page.get_by_role("navigation", name="Main").get_by_role("link")).to_have_count(VIEWS)
    page.goto(policy_type)
    expect(page.get_by_role("heading", level=1)).to_contain_text("console.access.Quota")
    expect(page.get_by_role("link", name="Create a policy", exact=True)).to_have_count(0)

    page.goto("/policy/new?kind=type")
    expect(page.locator("#not-permitted")).to_contain_text("platform.policy.api|policytypes|write")
    expect(page.locator("main form")).to_have_count(0)
    assert_fits_phone(page, VIEWS)

    answer = forge(page, "/policy/new", {"kind": "type", "document": FORGED})
    assert answer.status == 403
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("The API answered 403")
    expect(alert).to_contain_text(
        "User reader does not have permission platform.policy.api|policytypes|write"
    )
    expect(page.locator("main form")).to_have_count(0)
    shoot(page, "access-refused")
    assert policy_api.get("/policytypes/console.forged.Type").status_code == 404


def test_the_overview_reads_only_the_metrics_the_user_may_read(signed_in_as: Any) -> None:
    page = signed_in_as(*READER)
    expect(page.get_by_role("heading", level=1)).to_have_text("Overview")
    expect(page.locator('#service-policy [data-figure="requests"]')).to_be_visible()
    bus = page.locator("#service-bus")
    expect(bus.locator(".badge")).to_have_text("UP")
    expect(bus).to_contain_text("Reading its metrics needs platform.bus.api|metrics|read.")
    expect(bus.locator('[data-figure="requests"]')).to_have_count(0)


def test_an_administrator_creates_an_identity_and_a_membership_which_it_then_uses(
    page: Any, signed_in_as: Any, policy_type: str
) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Access").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Access")
    identities = page.locator("#identity-list")
    expect(identities.get_by_role("row", name="reader configured policy.reader")).to_be_visible()
    expect(page.locator("#role-platform\\.admin")).to_contain_text("*|*|*")

    page.get_by_label("Identity name").fill("carol")
    page.get_by_label("Its password").fill("carol-secret-1")
    page.get_by_role("button", name="Create identity").click()
    expect(page.get_by_role("status")).to_have_text("Identity carol created.")
    expect(identities.get_by_role("row", name="carol stored none")).to_be_visible()
    for role in ("policy.writer", "authz.reader"):
        page.get_by_label("Identity", exact=True).select_option("carol")
        page.get_by_label("Role", exact=True).select_option(role)
        page.get_by_role("button", name="Add membership").click()
        expect(page.get_by_role("status")).to_have_text(f"carol is now a member of {role}.")
    expect(identities.get_by_role("row", name="carol stored")).to_contain_text("policy.writer")
    members = page.locator("#role-policy\\.writer")
    expect(members.get_by_role("button", name="Remove carol from policy.writer")).to_be_visible()
    assert_labelled(page)
    shoot(page, "access")
    assert_fits_phone(page)

    # Carol signs in and is offered what her roles allow: policy writes, the Access page to read.
    carol = signed_in_as("carol", "carol-secret-1", "/policy")
    expect(carol.get_by_role("link", name="Create a policy type")).to_be_visible()
    expect(carol.get_by_role("navigation", name="Main").get_by_role("link")).to_have_count(VIEWS + 1)
    carol.goto("/blueprints")
    expect(carol.get_by_role("heading", level=1)).to_have_text("Blueprints")
    expect(carol.get_by_role("link", name="Upload a blueprint")).to_have_count(0)
    carol.get_by_role("link", name="Access").click()
    expect(carol.locator("#role-list")).to_contain_text("carol")
    expect(carol.locator("main form")).to_have_count(0)  # reads only: no identity, no membership forms
    answer = forge(carol, "/admin/access/memberships", {"user": "carol", "role": "platform.admin"})
    assert answer.status == 403
    expect(carol.get_by_role("alert")).to_contain_text(
        "does not have permission platform.authz.api|userRole|write"
    )
    expect(carol.locator("#role-platform\\.admin")).not_to_contain_text("carol")

    # The administrator takes the policy writes back; carol's pages follow within seconds.
    page.reload()
    page.get_by_role("button", name="Remove carol from policy.writer").click()
    expect(page.get_by_role("status")).to_have_text("carol is no longer a member of policy.writer.")
    expect(members).not_to_contain_text("carol")
    assert_offered_no_more(carol, "/policy", "Create a policy type")


def assert_offered_no_more(page: Any, path: str, link: str) -> None:
    """Reload ``path`` until ``link`` is gone: the console reads a session's permissions again a
    few seconds after it last did (what a person does: look again)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        page.goto(path)
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        if page.get_by_role("link", name=link).count() == 0:
            return
        assert time.monotonic() < deadline, f"{link} still offered on {path}"
