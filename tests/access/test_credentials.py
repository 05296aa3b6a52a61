import pytest

from netplatform.access.credentials import Credentials, UserDirectory, parse_basic
from netplatform.web.auth import basic_header


def test_basic_header_round_trip() -> None:
    assert parse_basic(basic_header("ann", "pa:ss")) == Credentials("ann", "pa:ss")


@pytest.mark.parametrize("value", [None, "", "Basic", "Basic ***", "Digest abc", "Basic " + "bm9jb2xvbg=="])
def test_malformed_headers_give_no_credentials(value: str | None) -> None:
    assert parse_basic(value) is None


def test_directory_accepts_only_exact_pairs() -> None:
    directory = UserDirectory({"ann": "one", "bob": "two"})
    assert directory.authenticate(Credentials("ann", "one")) == "ann"
    assert directory.authenticate(Credentials("bob", "two")) == "bob"
    assert directory.authenticate(Credentials("ann", "two")) is None
    assert directory.authenticate(Credentials("carl", "one")) is None
    assert directory.authenticate(Credentials("ann", "one ")) is None
    assert directory.authenticate(None) is None
