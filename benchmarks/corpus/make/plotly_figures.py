"""Makes the corpus's plotly files: plotly.py figures exported by Kaleido (which drives a Chromium), SVG for
all and PDF for a few. Data: the sample data sets shipped with plotly (``plotly.express.data``).

    BROWSER_PATH=/usr/bin/chromium python benchmarks/corpus/make/plotly_figures.py

Needs ``pip install plotly kaleido pandas`` (made with plotly 7.1.0, Kaleido 1.5.1, Debian's chromium) in a
venv of its own; not one of composer's dependencies. plotly writes random clip ids: each run differs.
"""

from pathlib import Path

import numpy as np
import plotly.express as px
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

OUT = Path(__file__).resolve().parent.parent / "plotly"
pio.defaults.mathjax = None  # no network: MathJax would come from a CDN
rng = np.random.default_rng(23)
iris, tips, gap = px.data.iris(), px.data.tips(), px.data.gapminder()


def figures():
    yield "scatter_species", px.scatter(iris, x="sepal_width", y="sepal_length", color="species", symbol="species")
    yield (
        "line_gapminder",
        px.line(gap[gap.continent == "Oceania"], x="year", y="lifeExp", color="country", markers=True),
    )
    yield (
        "bar_grouped",
        px.bar(
            tips.groupby(["day", "sex"], as_index=False)["total_bill"].sum(),
            x="day",
            y="total_bill",
            color="sex",
            barmode="group",
            text_auto=".2s",
        ),
    )
    yield "box_points", px.box(tips, x="time", y="tip", color="smoker", points="all", notched=True)
    yield (
        "violin_split",
        go.Figure(
            [
                go.Violin(x=tips.day[tips.sex == s], y=tips.total_bill[tips.sex == s], side=side, name=s, legendgroup=s)
                for s, side in (("Male", "negative"), ("Female", "positive"))
            ]
        ),
    )
    yield "histogram_marginal", px.histogram(tips, x="total_bill", color="sex", marginal="rug", opacity=0.6)
    yield (
        "heatmap_annotated",
        px.imshow(np.round(rng.random((6, 8)), 2), text_auto=True, color_continuous_scale="Viridis"),
    )
    yield (
        "contour_filled",
        go.Figure(
            go.Contour(
                z=np.sin(np.add.outer(np.linspace(0, 4, 12), np.linspace(0, 3, 16))),
                contours_coloring="fill",
                line_smoothing=0.85,
            )
        ),
    )
    yield "sunburst", px.sunburst(tips, path=["day", "time", "sex"], values="total_bill")
    yield (
        "treemap",
        px.treemap(
            gap[(gap.year == 2007) & (gap.continent == "Europe")],
            path=["continent", "country"],
            values="pop",
            color="lifeExp",
        ),
    )
    yield (
        "sankey",
        go.Figure(
            go.Sankey(
                node=dict(label=["reads", "mapped", "unmapped", "unique", "multi"]),
                link=dict(source=[0, 0, 1, 1], target=[1, 2, 3, 4], value=[80, 20, 65, 15]),
            )
        ),
    )
    yield (
        "polar_bar",
        px.bar_polar(px.data.wind(), r="frequency", theta="direction", color="strength", template="plotly_dark"),
    )
    yield (
        "table",
        go.Figure(
            go.Table(
                header=dict(values=["gene", "log2FC", "p"]),
                cells=dict(values=[["TP53", "MYC", "EGFR"], [1.2, -0.8, 2.1], ["1e-5", "0.003", "2e-8"]]),
            )
        ),
    )
    sub = make_subplots(rows=1, cols=2, subplot_titles=("log axis", "error bars"))
    sub.add_trace(go.Scatter(x=np.logspace(0, 3, 20), y=np.arange(20), mode="lines+markers"), 1, 1)
    sub.add_trace(
        go.Scatter(
            x=list(range(6)), y=[2, 3, 5, 4, 6, 7], error_y=dict(type="data", array=[0.5, 0.4, 0.8, 0.3, 0.6, 0.5])
        ),
        1,
        2,
    )
    sub.update_xaxes(type="log", row=1, col=1)
    sub.update_layout(showlegend=False, font_family="Courier New", title_text="subplots, Courier New")
    yield "subplots_fonts", sub
    yield (
        "scattergl_webgl",
        go.Figure(
            go.Scattergl(
                x=rng.normal(size=2000), y=rng.normal(size=2000), mode="markers", marker=dict(size=3, opacity=0.5)
            )
        ),
    )
    yield (
        "area_stacked",
        px.area(
            gap[gap.continent == "Europe"].groupby("year", as_index=False)[["pop"]].sum().assign(a=1),
            x="year",
            y="pop",
            line_shape="spline",
        ),
    )


PDF = {"scatter_species", "heatmap_annotated", "sunburst", "subplots_fonts", "box_points"}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, fig in figures():
        size = (360, 260) if "webgl" in name else (520, 380)  # WebGL traces come out as one PNG image
        fig.write_image(OUT / f"{name}.svg", width=size[0], height=size[1])
        if name in PDF:
            fig.write_image(OUT / f"{name}.pdf", width=520, height=380)


if __name__ == "__main__":
    main()
