import pytest

from scrapers.dates import DateError, find_date, from_timestamp, parse_date


@pytest.mark.parametrize("text, expected", [
    ("October 16, 2026", "2026-10-16"),
    ("Oct 16, 2026", "2026-10-16"),
    ("Sept 3, 2025", "2025-09-03"),
    ("10/16/2026", "2026-10-16"),
    ("10/16/26", "2026-10-16"),
    ("4/9/2026", "2026-04-09"),
    ("2026-10-16", "2026-10-16"),
    ("16 October 2026", "2026-10-16"),
    ("Oct 2026", "2026-10"),
    ("2026-10", "2026-10"),
    ("Jul 26, 2023 10:00", "2023-07-26"),
    ("**August 17, 2026**", "2026-08-17"),
])
def test_parse_date(text, expected):
    assert parse_date(text) == expected


@pytest.mark.parametrize("text", ["", "soon", "13/45/2026", "February 30, 2026", "Neuron 2.30"])
def test_parse_date_refuses(text):
    with pytest.raises(DateError):
        parse_date(text)


def test_find_date_and_timestamp():
    assert find_date("On December 19, 2025, AWS Neuron released 2.27.0") == "2025-12-19"
    assert find_date("no date here") is None
    assert from_timestamp("2026-11-10T08:30:00.000000Z") == "2026-11-10"
