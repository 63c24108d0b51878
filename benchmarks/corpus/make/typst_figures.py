"""Makes the corpus's own Typst files from ``typst/src/*.typ`` (written for this corpus, no packages): SVG for
each, PDF for a few. Typst as the ``typst`` Python package embeds it (0.15.2 when made).

    python benchmarks/corpus/make/typst_figures.py     (own venv: pip install typst)
"""

from pathlib import Path

import typst

FOLDER = Path(__file__).resolve().parent.parent / "typst"
PDF_TOO = {"table", "scripts"}


def main() -> None:
    for source in sorted((FOLDER / "src").glob("*.typ")):
        name = f"corpus-{source.stem}"
        (FOLDER / f"{name}.svg").write_bytes(typst.compile(str(source), format="svg"))
        if source.stem in PDF_TOO:
            (FOLDER / f"{name}.pdf").write_bytes(typst.compile(str(source), format="pdf"))


if __name__ == "__main__":
    main()
