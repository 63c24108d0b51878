"""Panels of the lint fixture set: one clean panel and one planted fault per panel rule."""

import numpy as np


def clean(fig, data, labelsize=7.0):
    """A line plot with 7 pt tick labels and 0.8 pt lines, inside its box."""
    ax = fig.add_subplot()
    ax.plot([0, 1, 2, 3], [0, 1, 4, 9], color="#0072b2", lw=1.0)
    ax.tick_params(labelsize=labelsize)
    fig.subplots_adjust(left=0.25, bottom=0.25, right=0.95, top=0.95)


def tiny_text(fig, data):
    """Planted fault: 4 pt tick labels."""
    clean(fig, data, labelsize=4.0)


def hairline(fig, data):
    """Planted fault: a 0.1 pt line (ticks and spines off, so it is the only thin stroke)."""
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.plot([0, 1], [0, 1], color="#000000", lw=0.1)
    ax.set_axis_off()


def coarse_image(fig, data):
    """Planted fault: an 8x8 image drawn over the whole panel with no resampling (8 px per panel width)."""
    ax = fig.add_axes([0, 0, 1, 1])
    ax.imshow(np.arange(64).reshape(8, 8) % 2, interpolation="none", cmap="gray")
    ax.set_axis_off()


def spill(fig, data):
    """Planted fault: a text placed right of the figure, outside the panel's box."""
    ax = fig.add_axes([0.1, 0.1, 0.5, 0.8])
    ax.set_axis_off()
    fig.text(1.05, 0.5, "outside", fontsize=7)


def other_font(fig, data):
    """Planted fault: a text in a font that is not installed (matplotlib substitutes one)."""
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.set_axis_off()
    ax.text(0.5, 0.5, "substituted", fontsize=7, fontfamily="Composer Lint Missing Font", ha="center")


def rotated_ticks(fig, data, spacing_pt=16.0, rotation=45.0):
    """Two x tick labels rotated by ``rotation`` degrees, ``spacing_pt`` apart along the axis.

    The axis runs in pt (data unit = 1 pt), so the spacing is exact. Parallel labels of one
    alignment are ``spacing_pt * sin(rotation)`` apart across their baselines: at 16 pt and 45
    degrees 11.3 pt, more than their ink is tall (6.2 pt, parentheses of 7 pt text): apart, though
    their axis-aligned extents overlap by most of their width; at 6 pt, 4.2 pt: their glyphs
    run into each other.
    """
    ax = fig.add_axes([0.1, 0.62, 0.8, 0.33])
    width_pt = fig.get_figwidth() * 72 * 0.8
    ax.set_xlim(0, width_pt)
    ax.set_yticks([])
    x = width_pt / 2
    ax.set_xticks([x, x + spacing_pt], ["SQ water-fill (b=3)", "Random Haar (b=3)"], rotation=rotation,
                  ha="right", fontsize=7)
