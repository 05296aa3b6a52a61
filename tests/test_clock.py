from datetime import UTC, datetime, timedelta, timezone

from netplatform.clock import now_ms, utc_now, wire_time, wire_time_ms


def test_wire_form_is_utc_with_milliseconds() -> None:
    assert wire_time(datetime(2024, 3, 7, 14, 2, 11, 93_456)) == "2024-03-07T14:02:11.093Z"
    paris = timezone(timedelta(hours=1))
    assert wire_time(datetime(2024, 3, 7, 15, 2, 11, 93_000, tzinfo=paris)) == "2024-03-07T14:02:11.093Z"
    assert wire_time_ms(1709820131093) == "2024-03-07T14:02:11.093Z"


def test_now_agrees_with_itself() -> None:
    assert abs(now_ms() - utc_now().replace(tzinfo=UTC).timestamp() * 1000) < 1000
