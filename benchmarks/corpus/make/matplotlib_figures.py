"""Makes the corpus's matplotlib files with settings other than composer's own panels use (text kept as text,
hatches, rasterized artists, Type 42 / Type 3 fonts, transparency, images, 3-D, polar, mathtext).

    python benchmarks/corpus/make/matplotlib_figures.py      (from the repository
    matplotlib as installed)

Deterministic: fixed seeds, ``svg.hashsalt`` and no dates in the metadata.
"""

from pathlib import Path

import matplotlib

matplotlib.use("agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "matplotlib"
rng = np.random.default_rng(23)
x = np.linspace(0, 4 * np.pi, 200)


def hatches(ax):
    for i, h in enumerate(["/", "\\\\", "x", "o", ".", "*", "-", "+|"]):
        ax.bar(i, 1 + i % 3, hatch=h, fill=False, edgecolor=f"C{i}")


def rasterized_scatter(ax):
    ax.scatter(rng.normal(size=3000), rng.normal(size=3000), s=4, alpha=0.3, rasterized=True)
    ax.plot([-3, 3], [-3, 3], "k--")


def imshow_colorbar(ax):
    im = ax.imshow(np.sin(np.add.outer(x[:60], x[:40])), cmap="RdBu_r", interpolation="nearest")
    ax.figure.colorbar(im, ax=ax)


def mathtext(ax):
    ax.plot(x, np.sin(x) * np.exp(-x / 8))
    ax.set_title(r"$\alpha_i > \beta_i,\ \sum_{k=0}^{\infty} \frac{x^k}{k!} = e^x$")
    ax.set_xlabel(r"time $t$ ($\mu$s)")
    ax.set_ylabel(r"$\sqrt{\langle v^2 \rangle}$")


def errorbars_log(ax):
    xs = np.logspace(0, 3, 12)
    ax.errorbar(xs, xs**0.5, yerr=xs**0.3, fmt="o", capsize=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(True, which="both", lw=0.3)


def fill_alpha_legend(ax):
    for i in range(3):
        y = np.sin(x + i)
        ax.fill_between(x, y - 0.3, y + 0.3, alpha=0.25, color=f"C{i}")
        ax.plot(x, y, color=f"C{i}", label=f"phase {i}", lw=1.5, ls=["-", "--", ":"][i])
    ax.legend(frameon=False, ncols=3, loc="upper center")


def contour_labels(ax):
    X, Y = np.meshgrid(np.linspace(-3, 3, 80), np.linspace(-2, 2, 60))
    Z = np.exp(-(X**2) - Y**2) - np.exp(-((X - 1) ** 2) - (Y - 1) ** 2)
    cs = ax.contourf(X, Y, Z, 12, cmap="viridis")
    ax.clabel(ax.contour(X, Y, Z, 6, colors="k", linewidths=0.5), fontsize=6)
    ax.figure.colorbar(cs, ax=ax)


def text_fonts(ax):
    ax.axis("off")
    for i, (fam, w, s) in enumerate(
        [
            ("DejaVu Sans", "normal", "normal"),
            ("DejaVu Serif", "bold", "normal"),
            ("DejaVu Sans Mono", "normal", "italic"),
            ("sans-serif", "light", "oblique"),
        ]
    ):
        ax.text(0.02, 0.85 - i * 0.22, f"{fam} {w} {s}: Δλ = 5 µm, ±3 °C", family=fam, weight=w, style=s, size=11)
    ax.text(0.98, 0.05, "rotated", rotation=30, ha="right")


def boxplot_violin(ax):
    data = [rng.normal(m, 1, 80) for m in range(4)]
    ax.violinplot(data, showmedians=True)
    ax.boxplot(data, widths=0.15, patch_artist=True)


def pcolormesh_rasterized(ax):
    ax.pcolormesh(rng.random((40, 50)), cmap="magma", rasterized=True)


def hist_step(ax):
    for i in range(3):
        ax.hist(rng.normal(i, 1, 500), bins=30, histtype="step", lw=1.2)
    ax.hist(rng.normal(1, 2, 500), bins=30, alpha=0.3, hatch="//")


def quiver_stream(ax):
    Y, X = np.mgrid[-2:2:20j, -2:2:20j]
    ax.streamplot(X, Y, -Y, X, density=0.5, color=np.hypot(X, Y), cmap="plasma")


def annotate_arrows(ax):
    ax.plot(x, np.cos(x))
    ax.annotate(
        "peak", xy=(2 * np.pi, 1), xytext=(8, 0.4), arrowprops=dict(arrowstyle="->", connectionstyle="arc3,rad=.3")
    )
    ax.annotate("trough", xy=(np.pi, -1), xytext=(4, -0.4), arrowprops=dict(facecolor="black", shrink=0.05))
    ax.axvspan(1, 2, color="yellow", alpha=0.3)
    ax.axhline(0, color="grey", lw=0.5)


FIGURES = {  # name: (drawer, {rcParams}, formats)
    "hatches_fonttype_none": (hatches, {"svg.fonttype": "none"}, ("svg",)),
    "hatches_type3": (hatches, {"pdf.fonttype": 3, "hatch.linewidth": 2.0}, ("pdf",)),
    "rasterized_scatter": (rasterized_scatter, {"savefig.dpi": 100}, ("svg", "pdf")),
    "imshow_colorbar_fonttype_none": (
        imshow_colorbar,
        {"svg.fonttype": "none", "image.interpolation": "nearest"},
        ("svg",),
    ),
    "imshow_colorbar_type42": (imshow_colorbar, {"pdf.fonttype": 42}, ("pdf",)),
    "mathtext_fonttype_none": (mathtext, {"svg.fonttype": "none", "mathtext.fontset": "dejavuserif"}, ("svg",)),
    "mathtext_stix_type42": (mathtext, {"pdf.fonttype": 42, "mathtext.fontset": "stix"}, ("pdf",)),
    "errorbars_log_fonttype_none": (errorbars_log, {"svg.fonttype": "none", "font.size": 8}, ("svg",)),
    "fill_alpha_legend": (
        fill_alpha_legend,
        {"svg.fonttype": "none", "axes.prop_cycle": plt.cycler(color=["#1b9e77", "#d95f02", "#7570b3"])},
        ("svg", "pdf"),
    ),
    "contour_labels": (contour_labels, {"pdf.compression": 0}, ("pdf",)),
    "text_fonts_fonttype_none": (text_fonts, {"svg.fonttype": "none"}, ("svg",)),
    "text_fonts_type42": (text_fonts, {"pdf.fonttype": 42}, ("pdf",)),
    "boxplot_violin_style_ggplot": (boxplot_violin, {}, ("svg",)),
    "pcolormesh_rasterized": (pcolormesh_rasterized, {"svg.image_inline": True}, ("svg", "pdf")),
    "hist_step_hatch": (hist_step, {"svg.fonttype": "none", "hatch.color": "#444444"}, ("svg",)),
    "streamplot": (quiver_stream, {"pdf.fonttype": 42}, ("pdf",)),
    "annotate_arrows_xkcd_free": (
        annotate_arrows,
        {"svg.fonttype": "none", "axes.spines.top": False, "axes.spines.right": False},
        ("svg",),
    ),
}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (draw, rc, formats) in FIGURES.items():
        style = "ggplot" if "ggplot" in name else "default"
        with plt.style.context(style), plt.rc_context({"svg.hashsalt": "corpus", **rc}):
            fig = plt.figure(figsize=(4, 3), layout="constrained")
            ax = fig.add_subplot()
            draw(ax)
            for fmt in formats:
                fig.savefig(OUT / f"{name}.{fmt}", metadata={"Date": None} if fmt == "svg" else {"CreationDate": None})
            plt.close(fig)
    with plt.rc_context({"svg.hashsalt": "corpus", "svg.fonttype": "none"}):  # 3-D and polar axes in one PDF
        fig = plt.figure(figsize=(6, 3), layout="constrained")
        ax3 = fig.add_subplot(1, 2, 1, projection="3d")
        X, Y = np.meshgrid(np.linspace(-2, 2, 15), np.linspace(-2, 2, 15))
        ax3.plot_surface(X, Y, np.exp(-(X**2) - Y**2), cmap="coolwarm", linewidth=0)
        axp = fig.add_subplot(1, 2, 2, projection="polar")
        axp.plot(x, 1 + np.sin(3 * x))
        axp.fill(x, 0.5 + 0.2 * np.cos(5 * x), alpha=0.4)
        fig.savefig(OUT / "surface3d_polar.pdf", metadata={"CreationDate": None})
        plt.close(fig)


if __name__ == "__main__":
    main()
