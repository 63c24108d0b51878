"""composer's version: ``compose --version`` prints it, and the manifest and the panel cache are stamped with it.

A module of its own at the bottom of the package, so that what needs the number (the incremental
build's fingerprint, the command) imports it without importing ``composer/__init__.py``, whose
functions reach the whole pipeline. The distribution's version in ``pyproject.toml`` says the same.
"""

__version__ = "0.1.0"
