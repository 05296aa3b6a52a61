"""A real ``netplatform serve`` (every API service), the console on a random port, and Chromium.

The console is pointed at the serve process with console_api_urls; test_sessions points one
service at a closed port for the overview's UNREACHABLE state.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from netplatform.console import create_app
from netplatform.settings import SERVICE_NAMES, Settings

from ..support.databases import temporary_database
from ..support.receiver import Receiver
from ..support.required import unavailable
from ..support.servers import LiveServer, ServeProcess, free_port
from ..support.tls import TlsFiles, make_tls_files

SERVED = ("policy", "configtree", "blueprints", "bus", "router", "distribution", "authz")
# The first entry is the bootstrap administrator (platform.admin); the others hold exactly the
# roles they list: the console offers each only what those roles allow.
USERS = (
    "admin:admin,operator:op-secret:router.reader|bus.reader|distribution.reader,"
    "reader:read-secret:policy.reader"
)
ADMIN = ("admin", "admin")
OPERATOR = ("operator", "op-secret")  # reads the router, the bus and the distribution service
READER = ("reader", "read-secret")  # policy.reader: reads the policy API, writes nothing
# The main navigation's links: the seven views, and Access for those who may read the authz API.
VIEWS = 7
ADMIN_LINKS = VIEWS + 1
# Screenshots go to docs/console/ only when asked (NETPLATFORM_TEST_DOCS_SHOTS=1, to renew the
# pictures of docs/console.md); otherwise to a temporary folder, so no run writes into the tracked tree.
DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "console"
SHOTS = (
    DOCS_SHOTS
    if os.environ.get("NETPLATFORM_TEST_DOCS_SHOTS") == "1"
    else Path(tempfile.gettempdir()) / f"netplatform-console-shots-{os.getpid()}"
)
# What a person waits for on a loaded 2-core machine (a publish that enriches a CBA, an overview
# asking every service): Playwright's 5 s default for assertions is too short there, and a test
# that fails only under load tells nothing. Actions already get the page's 15 s (below).
WAIT_MS = 15_000
expect.set_options(timeout=WAIT_MS)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    """The CA the distribution service trusts for deliveries to the test's HTTPS sinks."""
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def sink(tls: TlsFiles) -> Iterator[Receiver]:
    """An HTTPS subscriber endpoint: 204 to files under /ok/, 404 (not retryable) to the rest."""
    receiver = Receiver(tls, lambda request: (204 if request.path.startswith("/ok/") else 404, {})).start()
    try:
        yield receiver
    finally:
        receiver.stop()


# The data dir and database of the running platform: the console shares its database (its
# sign-outs are kept there, console/signouts.py), as a deployment's console instances do.
PLATFORM_STORE: dict[str, Any] = {}


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory, tls: TlsFiles) -> Iterator[dict[str, str]]:
    """Base URL of each API service the console may call (closed ports for those not served)."""
    tmp = tmp_path_factory.mktemp("serve")
    ports = {name: free_port() for name in SERVED}
    with temporary_database() as database_url:
        env = {
            **{f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()},
            "NETPLATFORM_DATA_DIR": str(tmp / "data"),
            "NETPLATFORM_USERS": USERS,
            "NETPLATFORM_ACCESS_LOG": "false",
            "NETPLATFORM_INSTANCE_NAME": "console-test",
            "NETPLATFORM_DELIVERY_CA_BUNDLE": str(tls.ca_bundle),
            "NETPLATFORM_DELIVERY_RETRY_INITIAL_S": "0.2",
            "NETPLATFORM_DELIVERY_RETRY_MAX_S": "0.4",
            "NETPLATFORM_DELIVERY_POLL_S": "0.2",
            "NETPLATFORM_BUS_ROUTER_TIMEOUT_S": "3",
        }
        if database_url:
            env["NETPLATFORM_DATABASE_URL"] = database_url
        args = [arg for name in SERVED for arg in ("--only", name)]
        process = ServeProcess(env, args, log_path=tmp / "serve.log").start(wait_ports=list(ports.values()))
        closed = f"http://127.0.0.1:{free_port()}"
        urls = {name: closed for name in SERVICE_NAMES if name != "console"}
        urls.update({name: f"http://127.0.0.1:{port}" for name, port in ports.items()})
        PLATFORM_STORE.update(data_dir=tmp / "data", database_url=database_url)
        try:
            yield urls
        finally:
            process.stop()
            PLATFORM_STORE.clear()


def console_settings(platform: dict[str, str], **overrides: Any) -> Settings:
    urls = ",".join(f"{name}={url}" for name, url in platform.items())
    return Settings(users=USERS, console_api_urls=urls, access_log=False, **{**PLATFORM_STORE, **overrides})


@pytest.fixture(scope="module")
def console(platform: dict[str, str]) -> Iterator[str]:
    with LiveServer(create_app(console_settings(platform))) as server:
        yield server.url


@pytest.fixture
def policy_api(platform: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=platform["policy"] + "/policy/api/v1", auth=ADMIN, timeout=30) as client:
        yield client


def chromium_path() -> str | None:
    for candidate in (
        os.environ.get("NETPLATFORM_TEST_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        unavailable("no Chromium at /usr/bin/chromium (run .ci/chromium as root to install Debian's package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any, console: str) -> Iterator[Any]:
    """A fresh browser context at 1280 px, signed in as admin."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=console)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    sign_in(page, "/")
    # Signed in once the overview is there: a test's first key press must not race the page load.
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    try:
        yield page
    finally:
        context.close()


def sign_in(page: Any, path: str, user: str = "admin", password: str = "admin") -> None:  # noqa: S107
    page.goto(path)
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


PHONE = {"width": 390, "height": 844}
# The outermost elements that stick out of the viewport on the right: what a failure names.
WIDEST = """[...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .filter(e => !e.parentElement.closest('.scroll, pre, .raw'))
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40))"""


def assert_fits_phone(page: Any, links: int = ADMIN_LINKS) -> None:
    """At a phone width the page does not scroll sideways (wide tables and charts scroll inside
    their own box), and the main navigation (``links`` links: an administrator's by default) and
    the sign-out button are on screen; then, at the test's width again, its text is readable
    (assert_readable)."""
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        page.evaluate("window.scrollTo(0, 0)")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{page.url} scrolls sideways by {overflow} px: {page.evaluate(WIDEST)}"
        nav = page.get_by_role("navigation", name="Main").get_by_role("link")
        expect(nav).to_have_count(links)
        for link in nav.all():
            box = link.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], link
            assert box["height"] >= 24, f"{link.inner_text()} is too small to tap"
        expect(page.get_by_role("button", name="Sign out")).to_be_in_viewport()
    finally:
        page.set_viewport_size(size)
    assert_readable(page)


# Text whose contrast with the background behind it is below WCAG AA (4.5:1; 3:1 for large text),
# as "tag: text ratio". The background is the nearest ancestor's opaque one; SVG text is skipped
# (its colour is a fill), as are hidden elements.
LOW_CONTRAST = """(() => {
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || c[3] > 0) return c.slice(0, 3); } return [255, 255, 255]; };
  const low = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg') || !e.getClientRects().length) continue;
    const text = [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent.trim()).join('');
    if (!text) continue;
    const style = getComputedStyle(e);
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    const [a, b] = [lum(rgb(style.color).slice(0, 3)), lum(behind(e))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) low.push(e.tagName + ': ' + text.slice(0, 30) + ' ' + ratio.toFixed(2));
  }
  return low;
})()"""


def assert_readable(page: Any) -> None:
    """Every text of the page meets WCAG AA contrast against what is behind it."""
    low = page.evaluate(LOW_CONTRAST)
    assert not low, f"{page.url}: low contrast: {low[:8]}"


def assert_labelled(page: Any) -> None:
    """Every input, select and text area of the page is named by a label (not a placeholder)."""
    fields = page.locator("main input:not([type=hidden]), main select, main textarea")
    expect(fields.first).to_be_attached()
    for index in range(fields.count()):
        field = fields.nth(index)
        labels = field.evaluate("element => [...element.labels].map(label => label.textContent.trim())")
        assert labels and all(labels), f"{page.url}: field {field.get_attribute('name')} has no label"


def shoot(page: Any, name: str) -> None:
    """A screenshot (for docs/console.md, under NETPLATFORM_TEST_DOCS_SHOTS=1)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
