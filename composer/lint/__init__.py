"""The print check (``compose check``): rules measured on a composed figure.

It receives a composition (figure, geometry, canvas SVG) and never runs the pipeline.
"""

from composer.lint.rules import RULES, Finding, Report, font_findings, lint

__all__ = ["RULES", "Finding", "Report", "font_findings", "lint"]
