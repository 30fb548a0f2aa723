import unittest

from temperature.convert import celsius


class CelsiusTest(unittest.TestCase):
    def test_freezing(self):
        self.assertEqual(celsius(32), 0)


if __name__ == "__main__":
    unittest.main()
