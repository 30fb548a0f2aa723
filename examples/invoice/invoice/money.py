"""Formatting amounts for people."""


def format_money(cents: int, currency: str = "EUR") -> str:
    """1234 -> 'EUR 12.34'."""
    euros, rest = divmod(cents, 100)
    return f"{currency} {euros}.{rest:02d}"
