"""The print check: rules measured on a composed figure (``compose check``); receives a composition, never runs the pipeline."""

from composer.lint.rules import RULES, Finding, Report, font_findings, lint

__all__ = ["RULES", "Finding", "Report", "font_findings", "lint"]
