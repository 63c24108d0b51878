"""The ``compose`` command and what only the command does: watch mode and the project's list of figures."""

from composer.cli.main import main

__all__ = ["main"]
