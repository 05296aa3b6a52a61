"""Domain rules of the distribution service, without HTTP: addresses, outcomes, backoff, headers, ids."""

from __future__ import annotations

import pytest

from netplatform.distribution.addresses import address_allowed, is_valid_address
from netplatform.distribution.delivery.outcomes import Outcome, Verdict, judge, next_delay
from netplatform.distribution.file_headers import captured_headers
from netplatform.distribution.publishing import PublishIds, check_file_id, check_metadata
from netplatform.web.errors import BadRequest, NotFound


@pytest.mark.parametrize(
    "text", ["10.0.0.1", "10.0.0.0/8", "10.1.2.3/32", "0.0.0.0/0", "::1", "2001:db8::/32", "fe80::1/128"]
)
def test_valid_addresses(text: str) -> None:
    assert is_valid_address(text)


@pytest.mark.parametrize(
    "text",
    ["", "10.0.0", "10.0.0.256", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "::1/129", "a.b", "10.0.0.0/8/8"],
)
def test_invalid_addresses(text: str) -> None:
    assert not is_valid_address(text)


def test_address_matching_covers_hosts_subnets_and_mapped_ipv4() -> None:
    allowed = ["10.0.0.0/8", "192.168.1.7", "2001:db8::/32"]
    assert address_allowed("10.200.3.4", allowed)
    assert address_allowed("192.168.1.7", allowed)
    assert not address_allowed("192.168.1.8", allowed)
    assert address_allowed("2001:db8::5", allowed)
    assert address_allowed("::ffff:10.1.1.1", allowed)
    assert not address_allowed("not-an-ip", allowed)


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (200, Outcome.DELIVERED),
        (204, Outcome.DELIVERED),
        (299, Outcome.DELIVERED),
        (400, Outcome.REFUSED),
        (404, Outcome.REFUSED),
        (429, Outcome.RETRY),
        (500, Outcome.RETRY),
        (503, Outcome.RETRY),
        (-1, Outcome.RETRY),
        (301, Outcome.REFUSED),
    ],
)
def test_outcome_of_each_status(status: int, outcome: Outcome) -> None:
    verdict = judge(status, None, follow_redirect=False, delivered_url="https://a/in/f", file_name="f")
    assert verdict.outcome is outcome


def test_redirects_are_learned_only_when_they_point_at_the_same_file_elsewhere() -> None:
    def verdict(location: str | None, follow: bool = True) -> Verdict:
        return judge(
            302, location, follow_redirect=follow, delivered_url="https://a/in/f.txt", file_name="f.txt"
        )

    learned = verdict("https://b/new/f.txt")
    assert (learned.outcome, learned.redirect_base) == (Outcome.REDIRECTED, "https://b/new")
    assert verdict("https://b/new/f.txt", follow=False).outcome is Outcome.REFUSED
    assert verdict("https://a/in/f.txt").outcome is Outcome.REFUSED
    assert verdict("https://b/new/other.txt").outcome is Outcome.REFUSED
    assert verdict("http://b/new/f.txt").outcome is Outcome.REFUSED
    assert verdict(None).outcome is Outcome.REFUSED


def test_backoff_doubles_from_the_initial_delay_up_to_the_maximum() -> None:
    delays = [0.0]
    for _ in range(6):
        delays.append(next_delay(delays[-1], 10, 60))
    assert delays[1:] == [10, 20, 40, 60, 60, 60]


def test_publish_ids_increase_strictly_even_within_one_millisecond() -> None:
    ids = PublishIds("dist-a")
    issued = [ids.next() for _ in range(1000)]
    stamps = [stamp for _, stamp in issued]
    assert stamps == sorted(set(stamps))
    assert all(text == f"{stamp}.dist-a" for text, stamp in issued)


@pytest.mark.parametrize("name", ["a.csv", "report 08:00.gz", "ü-ñ", "...x", "a..b"])
def test_plain_file_names_pass(name: str) -> None:
    assert check_file_id(name) == name


def test_unsafe_file_names_are_refused() -> None:
    with pytest.raises(NotFound):
        check_file_id("")
    for name in (".", "..", "a/b", "a\x00b", "a\nb", "\x7f"):
        with pytest.raises(BadRequest):
            check_file_id(name)


def test_metadata_must_be_one_flat_object_of_at_most_4096_characters() -> None:
    for good in (None, "{}", '{"a":1,"b":"x","c":null,"d":false,"e":1.5}', '{"k":"' + "v" * 4086 + '"}'):
        check_metadata(good)
    for bad in ("x" * 4097, "[]", '"text"', '{"a":{}}', '{"a":[1]}', "{"):
        with pytest.raises(BadRequest):
            check_metadata(bad)


def test_forwarded_headers() -> None:
    given = [
        ("content-type", "text/csv"),
        ("content-md5", "abc"),
        ("x-bus-dr-meta", "{}"),
        ("x-bus-dr-secret", "no"),
        ("x-trace", "t1"),
        ("x-invocationid", "publisher's"),
        ("authorization", "Basic xyz"),
        ("x-platform-requestid", "req-1"),
    ]
    kept = captured_headers(
        given,
        request_id="generated",
        source_ip="10.0.0.1",
        local_ip="10.0.0.2",
        received_ms=0,
        with_content=True,
    )
    assert kept == {
        "Content-Type": "text/csv",
        "Content-MD5": "abc",
        "X-BUS-DR-META": "{}",
        "x-trace": "t1",
        "X-PLATFORM-RequestID": "req-1",
        "X-BUS-DR-RECEIVED": "1970-01-01T00:00:00.000Z;from=10.0.0.1;by=10.0.0.2",
    }
    bare = captured_headers(
        [], request_id="gen", source_ip="a", local_ip="b", received_ms=0, with_content=True
    )
    assert bare["Content-Type"] == "application/octet-stream" and bare["X-PLATFORM-RequestID"] == "gen"
    retraction = captured_headers(
        given, request_id="g", source_ip="a", local_ip="b", received_ms=0, with_content=False
    )
    assert "Content-Type" not in retraction and "Content-MD5" not in retraction
