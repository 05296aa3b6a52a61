"""The console in Chromium: sign in, walk the overview and policy views, create, sign out."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import expect

from .conftest import PHONE, assert_fits_phone, assert_labelled, shoot, sign_in

TYPE_YAML = """\
tosca_definitions_version: tosca_simple_yaml_1_1_0
data_types:
  console.datatypes.Window:
    derived_from: tosca.datatypes.Root
    version: 1.0.0
    properties:
      seconds:
        type: integer
        description: length of the window
policy_types:
  console.policies.Throttle:
    derived_from: tosca.policies.Root
    version: 1.0.0
    description: Limits how often an action runs
    properties:
      rate:
        type: integer
        required: true
        description: actions per window
      window:
        type: console.datatypes.Window
"""

POLICY_JSON = """{
  "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
  "topology_template": {"policies": [{"throttle.edge": {
    "type": "console.policies.Throttle", "type_version": "1.0.0", "version": "1.0.0",
    "properties": {"rate": 5, "window": {"seconds": 60}}}}]}
}"""

CHILD_TYPE = {
    "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
    "policy_types": {
        "console.policies.Throttle.Strict": {
            "derived_from": "console.policies.Throttle",
            "version": "1.0.0",
            "description": "a stricter throttle",
        }
    },
}


def test_overview_shows_health_request_counts_and_rates(page: Any, platform: dict[str, str]) -> None:
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    policy = page.locator("#service-policy")
    expect(policy.locator(".badge")).to_have_text("UP")
    assert int(policy.locator('[data-figure="requests"]').inner_text()) >= 1
    expect(policy.get_by_role("img", name="Requests by status class of policy")).to_be_visible()
    expect(page.locator("#service-blueprints .badge")).to_have_text("UP")
    expect(page.locator("#service-router .badge")).to_have_text("UP")
    rate = policy.locator('[data-figure="request-rate"]')
    expect(rate).to_have_text(re.compile(r"^(—|\d+\.\d\d/s)$"))  # — when this console's first look
    for _ in range(5):  # requests between two looks: the policy service's rate cannot be zero
        assert httpx.get(f"{platform['policy']}/health", timeout=10).status_code == 200
    page.reload()
    expect(rate).to_have_text(re.compile(r"^\d+\.\d\d/s$"))
    assert float(rate.inner_text().removesuffix("/s")) > 0
    expect(policy.locator('[data-figure="error-rate"]')).to_have_text(re.compile(r"^\d+\.\d\d/s$"))
    expect(policy.get_by_role("img", name="Request rate of policy, latest samples")).to_be_visible()
    shoot(page, "overview")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling on a phone"
    shoot(page, "overview-phone")


def test_create_a_policy_type_from_yaml_and_see_it_in_the_tree(page: Any, policy_api: httpx.Client) -> None:
    page.get_by_role("link", name="Policy", exact=True).click()
    page.get_by_role("link", name="Create a policy type").click()
    page.get_by_label("Service template (YAML or JSON)").fill(TYPE_YAML)
    shoot(page, "policy-create")
    assert_fits_phone(page)
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("status")).to_have_text("Created.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("console.policies.Throttle")
    expect(page.get_by_role("row", name="rate integer yes actions per window")).to_be_visible()
    expect(page.locator("caption", has_text="console.datatypes.Window 1.0.0")).to_be_visible()
    assert_fits_phone(page)
    assert policy_api.get("/policytypes/console.policies.Throttle/versions/1.0.0").status_code == 200

    assert policy_api.post("/policytypes", json=CHILD_TYPE).status_code == 200
    page.goto("/policy")
    tree = page.get_by_role("navigation", name="Policy type hierarchy")
    parent = tree.locator("li", has=page.get_by_role("link", name="console.policies.Throttle", exact=True))
    expect(parent.get_by_role("link", name="console.policies.Throttle.Strict")).to_be_visible()
    expect(tree.locator(".root", has_text="tosca.policies.Root")).to_be_visible()
    shoot(page, "policy-tree")
    assert_fits_phone(page)


def test_create_a_policy_from_json_then_views(page: Any, policy_api: httpx.Client) -> None:
    if policy_api.get("/policytypes/console.policies.Throttle/versions/1.0.0").status_code != 200:
        policy_api.post("/policytypes", content=TYPE_YAML, headers={"Content-Type": "application/yaml"})
    page.goto("/policy/new?kind=policy")
    expect(page.get_by_label("policy", exact=True)).to_be_checked()
    page.get_by_label("Service template (YAML or JSON)").fill(POLICY_JSON)
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("status")).to_have_text("Created.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("throttle.edge")
    expect(page.get_by_role("row", name="rate 5")).to_be_visible()
    policy_page = page.url.split("?")[0]

    page.get_by_role("link", name="console.policies.Throttle 1.0.0").click()
    page.get_by_role("link", name="throttle.edge").click()
    expect(page, "the type's page links to its policy").to_have_url(policy_page)
    page.get_by_role("link", name="YAML").click()
    expect(page.get_by_label("YAML document")).to_contain_text("type: console.policies.Throttle")
    page.get_by_role("link", name="JSON").click()
    expect(page.get_by_label("JSON document")).to_contain_text('"rate": 5')
    shoot(page, "policy-json")
    assert_fits_phone(page)
    page.goto(policy_page.rsplit("/policies/", 1)[0] + "?view=yaml")
    expect(page.get_by_label("YAML document")).to_contain_text("derived_from: tosca.policies.Root")


def test_the_apis_refusal_is_shown_and_the_text_kept(page: Any) -> None:
    bad = POLICY_JSON.replace("console.policies.Throttle", "no.such.Type").replace(
        "throttle.edge", "throttle.bad"
    )
    page.goto("/policy/new?kind=policy")
    page.get_by_label("Service template (YAML or JSON)").fill(bad)
    page.get_by_role("button", name="Create").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("The API answered 406")
    expect(alert).to_contain_text("no.such.Type")
    expect(page.get_by_label("Service template (YAML or JSON)")).to_have_value(bad)
    shoot(page, "policy-error")
    assert_fits_phone(page)


def test_deep_links_survive_sign_in_and_sign_out_ends_it(browser: Any, console: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=console)
    page = context.new_page()
    try:
        sign_in(page, "/policy/new?kind=policy")
        expect(page).to_have_url(f"{console}/policy/new?kind=policy")
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        page.goto("/policy")
        expect(page).to_have_url(f"{console}/signin?next=/policy")
        page.get_by_label("User name").fill("admin")
        page.get_by_label("Password").fill("wrong")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_have_text("Wrong user name or password.")
        shoot(page, "signin-refused")
    finally:
        context.close()


def test_keyboard_reaches_the_skip_link_then_the_navigation(page: Any) -> None:
    keyboard_from_the_top(page)
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to content")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.tagName") in ("A", "BUTTON")


def test_every_view_fits_a_phone_and_its_navigation_works(browser: Any, console: str) -> None:
    """Signed in on a 390 px wide screen, each view is reached through the main navigation."""
    context = browser.new_context(viewport=PHONE, base_url=console, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto("/signin")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        sign_in(page, "/")
        views = {
            "Overview": "Overview",
            "Policy": "Policy types",
            "Blueprints": "Blueprints",
            "Config tree": None,
            "Distribution": "Distribution",
            "Bus": "Bus",
            "Message router": "Message router",
            "Access": "Access",
        }
        expect(page.get_by_role("heading", level=1)).to_have_text("Overview")
        for link, heading in views.items():
            # Tapping the page's own link (Overview first) reloads it: wait for the new page, so
            # that what follows does not look at the old one while it goes away.
            with page.expect_navigation():
                page.get_by_role("navigation", name="Main").get_by_role("link", name=link, exact=True).tap()
            expect(page.get_by_role("link", name=link, exact=True)).to_have_attribute("aria-current", "page")
            if heading:
                expect(page.get_by_role("heading", level=1)).to_have_text(heading)
            assert_fits_phone(page)
        for path in ("/policy/new?kind=type", "/blueprints/upload", "/router", "/bus"):
            page.goto(path)
            assert_fits_phone(page)
    finally:
        context.close()


def test_keyboard_reaches_every_navigation_link_and_sign_out(page: Any) -> None:
    """Tab alone walks the skip link, the brand, the seven views, Access (an administrator's) and
    the sign-out button."""
    keyboard_from_the_top(page)
    reached = []
    for _ in range(11):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.textContent.trim()"))
    assert reached == [
        "Skip to content",
        "netplatform",
        "Overview",
        "Policy",
        "Blueprints",
        "Config tree",
        "Distribution",
        "Bus",
        "Message router",
        "Access",
        "Sign out",
    ], reached
    page.keyboard.press("Shift+Tab")  # from Sign out back to Access, then follow it
    expect(page.locator(":focus")).to_have_text("Access")
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Access")).to_have_attribute("aria-current", "page")


def keyboard_from_the_top(page: Any) -> None:
    """Give the page the keyboard before the first Tab.

    Under load the sign-in's navigation once left the new document without keyboard focus (the
    Tab then went nowhere, CI run of stop 20): an activated tab always has it.
    """
    page.bring_to_front()
    page.wait_for_function("document.hasFocus()")


def test_every_form_field_has_a_label(page: Any) -> None:
    """Inputs, selects and text areas of each form page are named by a label (not a placeholder)."""
    for path in ("/policy/new?kind=type", "/blueprints/upload", "/blueprints"):
        page.goto(path)
        assert_labelled(page)


REQUESTS_OF_POLICY = "document.querySelector('#service-policy [data-figure=requests]').textContent"


def test_the_overview_refreshes_itself_in_place_when_asked(
    page: Any, console: str, platform: dict[str, str]
) -> None:
    """Opt-in (?refresh=<s> or the checkbox): the figures change without a reload, and the refresh
    stops, saying why, once the session ends."""
    page.goto("/?refresh=2")
    toggle = page.get_by_label("Refresh every 2 s")
    expect(toggle).to_be_checked()
    page.evaluate("window.sameDocument = true")
    before = int(page.evaluate(REQUESTS_OF_POLICY))
    assert httpx.get(f"{platform['policy']}/health", timeout=10).status_code == 200
    page.wait_for_function(f"n => Number({REQUESTS_OF_POLICY}) > n", arg=before)
    assert page.evaluate("window.sameDocument === true"), "refreshed in place, not reloaded"
    expect(page.locator("#refreshed")).to_have_text(re.compile(r"^Read at \d\d:\d\d:\d\d UTC\.$"))

    toggle.uncheck()
    expect(page).to_have_url(f"{console}/")  # the state is in the URL: off
    page.reload()
    expect(page.get_by_label("Refresh every 30 s")).not_to_be_checked()
    page.get_by_label("Refresh every 30 s").check()
    expect(page).to_have_url(f"{console}/?refresh=30")

    page.goto("/?refresh=2")
    other = page.context.new_page()
    other.goto("/policy")
    other.get_by_role("button", name="Sign out").click()
    expect(other.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.locator("#refreshed")).to_have_text("Signed out: refresh stopped.")
    expect(page.get_by_label("Refresh every 2 s")).not_to_be_checked()


def test_without_javascript_the_overview_is_read_and_refreshed_by_a_link(browser: Any, console: str) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, base_url=console, java_script_enabled=False
    )
    page = context.new_page()
    try:
        sign_in(page, "/?refresh=5")
        expect(page.get_by_role("heading", name="Overview")).to_be_visible()
        expect(page.locator("#service-policy .badge")).to_have_text("UP")
        expect(page.get_by_role("link", name="Refresh now")).to_have_attribute("href", "/?refresh=5")
        expect(page.get_by_role("checkbox")).to_have_count(0)  # the script adds it
        page.get_by_role("link", name="Refresh now").click()
        expect(page.locator("#refreshed")).to_have_text(re.compile(r"^Read at "))
        expect(page).to_have_url(f"{console}/?refresh=5")
    finally:
        context.close()
