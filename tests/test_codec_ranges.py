"""A fixed tuple of numbers or strings (a provider's record ranges) is written as the list of its values, as a tuple of
other values is, and read back the same."""

from __future__ import annotations

from scanner.inventory.codec import decoder_of, encode, encoder_of
from scanner.kinds.sessions import SessionProvider
from scanner.model import Confidence


def test_a_providers_record_ranges_are_written_as_lists_and_read_back() -> None:
    provider = SessionProvider(
        "anthropic", None, "messages", 7, Confidence.HIGH, None, None, (), ("openai",),
        record_ranges=((1, 3), (5, 9)), visible_records=((2, 2),),
    )
    written = encoder_of(SessionProvider)(provider)
    assert written["record_ranges"] == [[1, 3], [5, 9]] == [encode(r) for r in provider.record_ranges]
    assert written["visible_records"] == [[2, 2]]
    assert "encrypted_records" not in written  # an empty run list is left out, as before
    assert decoder_of(SessionProvider)(written) == provider
