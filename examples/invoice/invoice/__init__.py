"""Tiny invoicing helpers used by the billing command."""

from .money import format_money
from .totals import Line, invoice_total

__all__ = ["Line", "format_money", "invoice_total"]
