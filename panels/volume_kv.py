"""Panels and text values of the volume_kv method figure.

The figure walks one inference step of the factorized volume head:
``volume_logits[t, z, v, u] = F(u, v) . key(t, z)`` with per-pixel features
``F`` (48-d, from DINO + a 1x1 projection) and keys
``key(t, z) = normalize(t_emb[t] + h_emb[z])``.

Data: ``data/volume_kv.npz`` (see ``data/make_volume_kv.py`` for every key).
Index conventions: ``pixel_feats_unit[c, v, u]``, ``volume_softmax[t, z, v, u]``,
``argmax_voxel[t] = (z, v, u)``, ``gt_pix_*[t] = (u, v)``; u = column, v = row.

Every renderer takes ``t`` (the window step shown) as a keyword; the layout
sets it once in ``[figure] params``, and :func:`values` receives the same ``t``.
Images are drawn with ``interpolation="none"`` and, when small, upsampled by
pixel repetition first: composer renders panels at 72 dpi, so any other
interpolation would resample them to 1 px per pt, and cairosvg ignores
``image-rendering: pixelated`` (it would blur a 56 px map).
"""
from __future__ import annotations

import json

import numpy as np
from matplotlib.colors import LinearSegmentedColormap, TwoSlopeNorm
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

GT_COLOR = "#22c55e"
FRAME_COLOR = "#94a3b8"
SLICE_EDGE = "#64748b"
TEXT_COLOR = "#334155"
F_CMAP = LinearSegmentedColormap.from_list("f_vec", ["#7c3aed", "#ffffff", "#0891b2"])
KEY_CMAP = LinearSegmentedColormap.from_list("key_vec", ["#e11d48", "#ffffff", "#d97706"])


# ─── helpers ──────────────────────────────────────────────────────────────

def _meta(data) -> dict:
    return json.loads(data["meta"].item())


def _gt_cell(data, t: int) -> tuple[int, int]:
    """The GT pixel of step t on the pred grid, (u, v) rounded to a cell."""
    u, v = data["gt_pix_grid"][t]
    return int(round(float(u))), int(round(float(v)))


def _chosen_z(data, t: int, z: int | None) -> int:
    """The height bin whose key is shown: ``z`` if given, else the GT bin of step t."""
    return int(data["gt_z_bin"][t]) if z is None else int(z)


def _blocks(img: np.ndarray, factor: int) -> np.ndarray:
    """Nearest-neighbour upsampling by pixel repetition (exact, no new values)."""
    return np.repeat(np.repeat(img, factor, axis=0), factor, axis=1)


def _pca_rgb(x: np.ndarray) -> np.ndarray:
    """(n, d) -> (n, 3) top-3 PCA scores, min-max scaled per channel; signs fixed."""
    xc = x - x.mean(axis=0, keepdims=True)
    _, _, vt = np.linalg.svd(xc, full_matrices=False)
    vt = vt[:3]
    sign = np.sign(vt[np.arange(3), np.abs(vt).argmax(axis=1)])
    pc = xc @ (vt * sign[:, None]).T
    lo, hi = pc.min(axis=0), pc.max(axis=0)
    return (pc - lo) / (hi - lo)


def _image_axes(fig, frame_pt: float = 0.0, color: str = FRAME_COLOR):
    """Axes filling the figure, inset by half a frame line so the frame is not cut."""
    w_pt, h_pt = fig.get_size_inches() * 72.0
    dx, dy = frame_pt / 2 / w_pt, frame_pt / 2 / h_pt
    ax = fig.add_axes([dx, dy, 1 - 2 * dx, 1 - 2 * dy])
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(frame_pt > 0)
        spine.set_linewidth(frame_pt)
        spine.set_color(color)
    return ax


def _text_width_pt(text: str, size_pt: float) -> float:
    """Width of ``text`` in the current rcParams font at ``size_pt``."""
    w, _, _ = TextToPath().get_text_width_height_descent(text, FontProperties(size=size_pt), ismath=False)
    return w


def _strip(ax, vec: np.ndarray, cmap, frame_pt: float) -> None:
    """One 1xN strip of cells, white = 0, symmetric colour scale per strip."""
    vmax = float(np.abs(vec).max())
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-vmax, vmax=vmax)
    ax.pcolormesh(np.arange(len(vec) + 1), [0, 1], vec[None, :], cmap=cmap, norm=norm,
                  edgecolors="none", antialiased=False)
    ax.set_xlim(0, len(vec))
    ax.set_ylim(0, 1)
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_linewidth(frame_pt)
        spine.set_color(FRAME_COLOR)


# ─── panels ───────────────────────────────────────────────────────────────

def rgb_crosshair(fig, data, *, t: int, trajectory: bool = True):
    """(a) The RGB input with a crosshair on the GT pixel of step t.

    With ``trajectory``, the GT pixels of all steps are drawn as a faint dotted
    path so the chosen step reads as one point of the episode.
    Anchors: ``gt`` (the GT pixel, 504-pixel data coordinates).
    """
    rgb = np.transpose(data["rgb"], (1, 2, 0))
    h, w = rgb.shape[:2]
    ax = _image_axes(fig)
    ax.imshow(rgb, interpolation="none")
    u, v = (float(c) for c in data["gt_pix_504"][t])
    if trajectory:
        path = data["gt_pix_504"]
        ax.plot(path[:, 0], path[:, 1], ls=(0, (1, 1.5)), lw=0.7, color="white", alpha=0.9)
        ax.plot(path[:, 0], path[:, 1], "o", ms=2.0, mfc="white", mec=GT_COLOR, mew=0.5)
    ax.axhline(v, color=GT_COLOR, lw=0.6, alpha=0.85)
    ax.axvline(u, color=GT_COLOR, lw=0.6, alpha=0.85)
    ax.plot([u], [v], "o", ms=4.5, color=GT_COLOR, mec="white", mew=0.8)
    ax.set_xlim(-0.5, w - 0.5)
    ax.set_ylim(h - 0.5, -0.5)
    return {"gt": (ax, u, v)}


def dino_pca(fig, data, *, frame: float = 0.8):
    """The first three PCs of the 384-d DINO features as RGB (56x56, nearest)."""
    pca = data["dino_pca_rgb"]
    ax = _image_axes(fig, frame_pt=frame)
    n = pca.shape[0]
    ax.imshow(_blocks(pca, 8), interpolation="none", extent=(-0.5, n - 0.5, n - 0.5, -0.5))
    return {}


def f_map(fig, data, *, t: int):
    """(b) Per-pixel features F: PCA of the 48-d vectors as RGB, marker at the GT pixel.

    Anchors: ``pixel`` (centre of the chosen cell, grid data coordinates).
    """
    feats = data["pixel_feats_unit"]                       # (c, v, u)
    c, nv, nu = feats.shape
    img = _pca_rgb(feats.reshape(c, -1).T).reshape(nv, nu, 3)
    ax = _image_axes(fig)
    ax.imshow(_blocks(img, 8), interpolation="none", extent=(-0.5, nu - 0.5, nv - 0.5, -0.5))
    u, v = _gt_cell(data, t)
    ax.plot([u], [v], "o", ms=5.0, mfc="none", mec="white", mew=1.6)
    ax.plot([u], [v], "o", ms=5.0, mfc="none", mec=GT_COLOR, mew=0.8)
    ax.set_xlim(-0.5, nu - 0.5)
    ax.set_ylim(nv - 0.5, -0.5)
    return {"pixel": (ax, u, v)}


def f_vec(fig, data, *, t: int, frame: float = 0.6):
    """(c) The 48-d feature vector F(u, v) at the chosen pixel, one cell per channel.

    Anchors: ``first`` / ``last`` (centres of the first and last cells).
    """
    u, v = _gt_cell(data, t)
    vec = data["pixel_feats_unit"][:, v, u]
    ax = _image_axes(fig, frame_pt=frame)
    _strip(ax, vec, F_CMAP, frame)
    return {"first": (ax, 0.5, 0.5), "last": (ax, len(vec) - 0.5, 0.5)}


def keys(fig, data, *, t: int, z: int | None = None, label_size: float = 6.0,
         gap: float = 0.55, frame: float = 0.6):
    """(d) key(t, z) = normalize(t_emb[t] + h_emb[z]) as three stacked 48-cell strips.

    ``z`` defaults to the GT height bin of step t. Each strip has its own
    symmetric colour scale (white = 0); row labels sit left of the strips, and
    the left margin is measured from them. ``gap`` is the space between strips
    as a fraction of a strip's height.
    Anchors: ``key`` (centre of the key strip), ``key_e`` (its right end).
    """
    z = _chosen_z(data, t, z)
    rows = [
        (f"t_emb[{t}]", data["t_emb"][t]),
        (f"+ h_emb[{z}]", data["h_emb"][z]),
        (f"= key({t},{z})", data["keys_unit"][t, z]),
    ]
    w_pt, h_pt = fig.get_size_inches() * 72.0
    pad_pt = 2.5
    left = (max(_text_width_pt(lab, label_size) for lab, _ in rows) + pad_pt) / w_pt
    inset_x, inset_y = frame / 2 / w_pt, frame / 2 / h_pt
    n = len(rows)
    row_h = (1 - 2 * inset_y) / (n + (n - 1) * gap)
    axes = []
    for i, (label, vec) in enumerate(rows):
        bottom = 1 - inset_y - (i + 1) * row_h - i * gap * row_h
        ax = fig.add_axes([left, bottom, 1 - left - inset_x, row_h])
        _strip(ax, np.asarray(vec, dtype=float), KEY_CMAP, frame)
        ax.text(-pad_pt / (w_pt * (1 - left - inset_x)), 0.5, label, transform=ax.transAxes,
                ha="right", va="center", fontsize=label_size, color=TEXT_COLOR)
        axes.append(ax)
    key_ax, n_key = axes[-1], len(rows[-1][1])
    return {"key": (key_ax, n_key / 2, 0.5), "key_e": (key_ax, n_key, 0.5)}


def _slice_heights(n_bins: int, z_star: int, n_slices: int) -> list[int]:
    """``n_slices`` evenly spread height bins, the nearest one replaced by ``z_star``."""
    spread = [int(round(x)) for x in np.linspace(0, n_bins - 1, n_slices + 2)[1:-1]]
    nearest = min(range(n_slices), key=lambda i: abs(spread[i] - z_star))
    spread[nearest] = z_star
    return sorted(spread)


def response_volume(fig, data, *, t: int, n_slices: int = 4, pool: int = 4, decades: float = 3.0,
                    elev: float = 24.0, azim: float = -58.0, label_size: float = 5.5,
                    zoom: float = 1.05, aspect_z: float = 1.3, right: float = 0.25):
    """(f) softmax(volume_logits[t]) as translucent z-slices, argmax voxel marked.

    Shows ``n_slices`` height bins (evenly spread, one of them the argmax bin);
    each 56x56 slice is max-pooled ``pool`` x ``pool`` (keeps the peak visible,
    keeps the vector output small: (56/pool)^2 quads per slice). Colour and
    opacity follow log10(p / top-1 p) over ``decades`` decades, so the peak is
    dark red and anything ``decades`` orders below it is nearly clear.
    ``right`` is the fraction of the width kept free for the slice labels.
    Anchors: ``argmax`` (the argmax voxel in the axes' 3D data coordinates).
    """
    import matplotlib
    from mpl_toolkits.mplot3d import Axes3D  # noqa: F401  (registers the projection)

    soft = data["volume_softmax"][t].astype(np.float64)   # (z, v, u)
    heights = data["height_meters"]
    n_z, n_v, n_u = soft.shape
    z_star, v_star, u_star = (int(c) for c in data["argmax_voxel"][t])
    zs = _slice_heights(n_z, z_star, n_slices)
    h_lo, h_hi = float(heights.min()), float(heights.max())
    top = float(soft.max())
    cmap = matplotlib.colormaps["YlOrRd"]

    ax = fig.add_axes([0, 0, 1 - right, 1], projection="3d")
    ax.set_proj_type("ortho")
    ax.set_box_aspect((1, 1, aspect_z), zoom=zoom)
    edges_u = np.linspace(0, 1, n_u // pool + 1)
    edges_v = np.linspace(0, 1, n_v // pool + 1)
    X, Y = np.meshgrid(edges_u, edges_v)
    label_x = []
    for z in zs:
        pooled = soft[z].reshape(n_v // pool, pool, n_u // pool, pool).max(axis=(1, 3))
        level = np.clip(1 + np.log10(np.maximum(pooled, 1e-300) / top) / decades, 0, 1)
        face = cmap(0.05 + 0.95 * level)
        face[..., 3] = 0.10 + 0.85 * level
        zn = (float(heights[z]) - h_lo) / (h_hi - h_lo)
        ax.plot_surface(X, Y, np.full_like(X, zn), facecolors=face, shade=False, rstride=1, cstride=1,
                        linewidth=0, antialiased=False)
        ax.plot([0, 1, 1, 0, 0], [0, 0, 1, 1, 0], [zn] * 5, color=SLICE_EDGE, lw=0.45, alpha=0.8)
        label_x.append(zn)
    xa, ya = (u_star + 0.5) / n_u, (v_star + 0.5) / n_v
    za = (float(heights[z_star]) - h_lo) / (h_hi - h_lo)
    ax.scatter([xa], [ya], [za], s=16, c="none", edgecolors=GT_COLOR, linewidths=1.0,
               depthshade=False, zorder=20)
    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)               # v (row) grows away from the viewer like image rows
    lo, hi = min(label_x), max(label_x)
    ax.set_zlim(lo - 0.04 * (hi - lo), hi + 0.04 * (hi - lo))
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_zticks([])
    ax.view_init(elev=elev, azim=azim)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_pane_color((1, 1, 1, 0))
        axis.line.set_linewidth(0)
    ax.grid(False)
    # slice labels, left-aligned just right of each slice's right-most corner
    from mpl_toolkits.mplot3d import proj3d
    proj = ax.get_proj()
    corners = [(1.0, 1.0), (1.0, 0.0), (0.0, 0.0), (0.0, 1.0)]
    cx, cy = max(corners, key=lambda c: proj3d.proj_transform(c[0], c[1], 0.5, proj)[0])
    # orient the reader: u and v along the two front edges of the lowest slice
    fx, fy = min(corners, key=lambda c: proj3d.proj_transform(c[0], c[1], 0.0, proj)[1])
    z0 = min(label_x) - 0.1 * (max(label_x) - min(label_x))
    ax.text(0.5, fy, z0, "u (col)", fontsize=label_size, color=TEXT_COLOR, ha="right", va="top")
    ax.text(fx, 0.5, z0, "v (row)", fontsize=label_size, color=TEXT_COLOR, ha="left", va="top")
    for z, zn in zip(zs, label_x):
        bold = "bold" if z == z_star else "normal"
        ax.text(cx, cy, zn, f"  z={z}\n  {float(heights[z]) * 100:.1f} cm", fontsize=label_size,
                color=TEXT_COLOR, ha="left", va="center", fontweight=bold, linespacing=1.0)
    return {"argmax": (ax, xa, ya, za)}


# ─── text values ──────────────────────────────────────────────────────────

def values(data, *, t: int) -> dict:
    """Every number the figure's text shows, computed from the data for step ``t``.

    Names: t, gt_u, gt_v (GT pixel in 504 space), gt_u_grid, gt_v_grid,
    gt_z, gt_height_cm, u_star, v_star, z_star, height_cm (argmax height),
    top1_pct, match, match_pixel, cos_gt, logit_gt, logit_scale, sample_idx,
    ckpt_epoch, dino_dim, key_dim, pred_size, n_window, n_height_bins,
    n_keys, image_size, patch, bin_spacing_mm, h_min_cm, h_max_cm, source,
    n_steps, n_steps_match (steps whose argmax voxel equals the GT voxel).
    """
    meta = _meta(data)
    heights = data["height_meters"]
    gt_u, gt_v = (float(c) for c in data["gt_pix_504"][t])
    gu, gv = _gt_cell(data, t)
    gz = int(data["gt_z_bin"][t])
    z_star, v_star, u_star = (int(c) for c in data["argmax_voxel"][t])
    pixel_ok = (u_star, v_star) == (gu, gv)
    voxel_ok = pixel_ok and z_star == gz
    f = data["pixel_feats_unit"][:, gv, gu].astype(np.float64)
    k = data["keys_unit"][t, gz].astype(np.float64)
    cos = float(f @ k / (np.linalg.norm(f) * np.linalg.norm(k)))
    n_steps = data["argmax_voxel"].shape[0]
    all_ok = 0
    for s in range(n_steps):
        su, sv = _gt_cell(data, s)
        all_ok += tuple(int(c) for c in data["argmax_voxel"][s]) == (int(data["gt_z_bin"][s]), sv, su)
    n_z = int(meta["n_height_bins"])
    return {
        "t": t,
        "gt_u": gt_u, "gt_v": gt_v, "gt_u_grid": gu, "gt_v_grid": gv,
        "gt_z": gz, "gt_height_cm": float(heights[gz]) * 100,
        "u_star": u_star, "v_star": v_star, "z_star": z_star,
        "height_cm": float(heights[z_star]) * 100,
        "top1_pct": float(data["volume_softmax"][t].max()) * 100,
        "match": "✓ matches GT" if voxel_ok else "✗ differs from GT",
        "match_pixel": "matches" if pixel_ok else "differs from",
        "cos_gt": cos,
        "logit_gt": cos * float(meta["logit_scale_exp"]),
        "logit_scale": float(meta["logit_scale_exp"]),
        "sample_idx": int(meta["sample_idx"]),
        "ckpt_epoch": int(meta["ckpt_epoch"]),
        "dino_dim": int(meta["dino_embed_dim"]),
        "key_dim": int(meta["key_dim"]),
        "pred_size": int(meta["pred_size"]),
        "n_window": int(meta["n_window"]),
        "n_height_bins": n_z,
        "n_keys": int(meta["n_window"]) * n_z,
        "image_size": int(data["rgb"].shape[-1]),
        "patch": int(data["rgb"].shape[-1]) // int(meta["pred_size"]),
        "bin_spacing_mm": (float(heights[-1]) - float(heights[0])) / (n_z - 1) * 1000,
        "h_min_cm": float(heights[0]) * 100,
        "h_max_cm": float(heights[-1]) * 100,
        "source": str(meta["source"]),
        "n_steps": n_steps,
        "n_steps_match": all_ok,
    }
