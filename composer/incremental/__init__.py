"""What lets a build skip work: :mod:`~composer.incremental.manifest` (what the last build read and
wrote) and :mod:`~composer.incremental.cache` (rendered panels and typeset text under digests of
everything they depend on)."""
