import unittest

from invoice import Line, format_money, invoice_total


class InvoiceTotalTest(unittest.TestCase):
    def test_tax_is_added(self):
        lines = [Line("widget", 1000, quantity=2)]
        self.assertEqual(invoice_total(lines, tax_rate=0.2), 2400)

    def test_discount_is_taken_off(self):
        lines = [Line("widget", 1000)]
        self.assertEqual(invoice_total(lines, tax_rate=0, discount_percent=10), 900)

    def test_money_format(self):
        self.assertEqual(format_money(1234), "EUR 12.34")


if __name__ == "__main__":
    unittest.main()
