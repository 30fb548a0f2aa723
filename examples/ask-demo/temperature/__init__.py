"""Temperature conversions for the salve ask demo."""
