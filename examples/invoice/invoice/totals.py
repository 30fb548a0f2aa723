"""Invoice arithmetic.

Amounts are integers in cents, so rounding happens in one place only.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    description: str
    unit_cents: int
    quantity: int = 1

    @property
    def total_cents(self) -> int:
        return self.unit_cents * self.quantity


def subtotal(lines: list[Line]) -> int:
    return sum(line.total_cents for line in lines)


def apply_discount(amount: int, percent: float) -> int:
    if not 0 <= percent <= 100:
        raise ValueError(f"discount must be between 0 and 100, got {percent}")
    return round(amount * (100 - percent) / 100)


def add_tax(amount: int, rate: float) -> int:
    return round(amount * (1 + rate))


def invoice_total(lines: list[Line], tax_rate: float, discount_percent: float = 0) -> int:
    """The amount due: subtotal, plus tax, minus the discount."""
    amount = subtotal(lines)
    amount = add_tax(amount, tax_rate)
    return apply_discount(amount, discount_percent)
