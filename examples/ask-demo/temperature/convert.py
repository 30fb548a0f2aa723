"""Convert temperatures between Celsius and Fahrenheit."""


def fahrenheit(celsius):
    """Degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 23


def celsius(fahrenheit):
    """Degrees Fahrenheit to degrees Celsius."""
    return (fahrenheit - 32) * 5 / 9
