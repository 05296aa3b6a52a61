import pytest
from pydantic import BaseModel, ValidationError

from netplatform.web.text import StorableStr, is_storable


class Named(BaseModel):
    name: StorableStr


def test_ordinary_text_is_storable() -> None:
    assert is_storable("ünïcode ✓ text")
    assert Named(name="ok").name == "ok"


@pytest.mark.parametrize("value", ["a\x00b", "\ud800", "x\udfff"])
def test_nul_and_lone_surrogates_are_refused(value: str) -> None:
    assert not is_storable(value)
    with pytest.raises(ValidationError):
        Named(name=value)
