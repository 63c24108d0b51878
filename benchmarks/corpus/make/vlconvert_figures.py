"""Makes the corpus's vl-convert files: Vega-Lite specs (``vl-convert/src/``, from the vega-lite repository's
examples, BSD-3-Clause, data inline) drawn by vl-convert (Vega in Deno, PDF through svg2pdf), PDF for every
spec and SVG for a few, as Altair's ``chart.save("x.pdf")`` writes them.

    python benchmarks/corpus/make/vlconvert_figures.py     (own venv: pip install vl-convert-python)

Made with vl-convert-python 1.9.0 (Vega-Lite 5 as it bundles). Not one of composer's dependencies.
"""

import json
from pathlib import Path

import vl_convert as vlc

FOLDER = Path(__file__).resolve().parent.parent / "vl-convert"
SVG_TOO = {"area_horizon", "layer_line_exponential", "time_custom_step"}


def main() -> None:
    for spec_path in sorted((FOLDER / "src").glob("*.vl.json")):
        name = spec_path.name.removesuffix(".vl.json")
        spec = json.loads(spec_path.read_text())
        (FOLDER / f"{name}.pdf").write_bytes(vlc.vegalite_to_pdf(spec))
        if name in SVG_TOO:
            (FOLDER / f"{name}.svg").write_text(vlc.vegalite_to_svg(spec))


if __name__ == "__main__":
    main()
