"""Make ``data/volume_kv.npz``: deterministic example data for the volume_kv figure.

The real extraction (one inference step of the dino_kv volume head) is not
available, so this script builds a small, *self-consistent* stand-in from a
real photograph that ships with matplotlib.  Every array is computed from the
photo and from fixed seeds; the script uses only numpy, PIL and
``matplotlib.cbook`` and writes the same bytes on every run (the zip is written
by hand with fixed timestamps, because ``np.savez_compressed`` stamps entries
with the current time).

Run:  python data/make_volume_kv.py            (writes data/volume_kv.npz)

Data model
----------
Image.  ``grace_hopper.jpg`` (512x600) cropped, without resampling, to the
504x504 window starting at column 4, row 60.  A 504 image is 56x56 patches of
9x9 pixels (the "pred_size" grid).  Coordinates: u = column, v = row; pixel
centres sit on integers in both spaces, so grid = (p504 + 0.5) / 9 - 0.5.

"DINO-like" features (384-d per patch).  Per patch: mean/std of RGB, 3x3
sub-block colour means, hue/saturation, gradient magnitude and an 8-bin
gradient-orientation histogram; the same statistics averaged over the 5x5
patch neighbourhood (context, as a ViT mixes tokens); a weak 2-D sinusoidal
position code.  The z-scored statistics go through a fixed, seeded random
projection + tanh into 384 dims.  ``dino_pca_rgb`` is the top-3 PCA of those
features, each channel min-max scaled to [0, 1].

Keys.  ``t_emb[t]`` and ``h_emb[z]`` are sinusoidal codes in 48 dims,
sin_emb(pos, dim, max_pos): even i -> sin(pos / max_pos**(2i/dim)), odd -> cos,
with max_pos = n_window (8) for t and n_height_bins (32) for z.  The key bank is
``keys_unit[t, z] = normalize(t_emb[t] + h_emb[z])``.

Ground truth.  An end-effector-like trajectory drawn on the photo: 8 points on
a circular arc from the name tag (t=0), up across the face, down to the
ribbon bar (t=7); its height follows a lift-and-place profile in height-bin
units, peaking at t=4.  ``gt_pix_504`` is that arc, ``gt_pix_grid`` the same
points on the 56 grid, ``gt_z_bin`` the rounded height bin.

The "model".  ``pixel_feats_unit = normalize(W @ dino)`` with a 384->48 "1x1
projection" W.  W is a seeded random matrix W0 pulled towards the task by ridge
regression: it minimises  sum_t |W x_t - gain * key(t, gt_z_t)|^2 + lam |W - W0|^2
over the 8 ground-truth patches x_t only.  Nothing else is fitted, so whether
the argmax of the response volume lands on the GT voxel is an outcome, not an
input: ``volume_softmax[t] = softmax over (z, v, u) of logit_scale * F . key(t, z)``
(stored [t, z, v, u]) and ``argmax_voxel[t] = (z, v, u)`` of that.  The script
prints, per t, whether the argmax equals the GT voxel; the figure recomputes it.
"""
from __future__ import annotations

import os

# Pin BLAS threads before numpy loads: identical floating point on every run.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import io
import json
import zipfile
from pathlib import Path

import numpy as np
from matplotlib import cbook
from PIL import Image

OUT = Path(__file__).resolve().parent / "volume_kv.npz"

IMAGE = "grace_hopper.jpg"
CROP = (4, 60)              # (left, top) of the 504x504 window in the 512x600 photo
SIZE = 504
PATCH = 9
PRED = SIZE // PATCH        # 56
N_WINDOW = 8
N_HEIGHT_BINS = 32
KEY_DIM = 48
DINO_DIM = 384
LOGIT_SCALE_EXP = 1.0 / 0.07   # exp(logit_scale) at the CLIP initialisation, ~14.3
HEIGHT_RANGE_M = (0.02, 0.40)  # table-top workspace heights
SAMPLE_IDX = 17
CKPT_EPOCH = 40
SEED = 20250519

# GT trajectory: circular arc in 504-pixel space, angle from 180 deg to 0 deg
ARC_CENTER = (251.0, 445.0)
ARC_RADII = (135.0, 240.0)      # (horizontal, vertical)
ARC_DEG = (180.0, 0.0)
# Height profile in bins: lift, carry, place (peak at t=4)
Z_PROFILE = (4.0, 8.5, 13.0, 16.8, 19.0, 16.0, 11.0, 6.0)

RIDGE_LAMBDA = 3.0
RIDGE_GAIN = 1.0


def load_rgb() -> np.ndarray:
    """(504, 504, 3) uint8 crop of the sample photograph (no resampling)."""
    with Image.open(cbook.get_sample_data(IMAGE)) as im:
        im = im.convert("RGB")
        left, top = CROP
        crop = im.crop((left, top, left + SIZE, top + SIZE))
        return np.asarray(crop, dtype=np.uint8).copy()


def sin_emb(pos: np.ndarray, dim: int, max_pos: int) -> np.ndarray:
    """Sinusoidal code, (len(pos), dim): even i sin(pos/div), odd cos(pos/div)."""
    pos = np.asarray(pos, dtype=np.float64)[:, None]
    i = np.arange(dim // 2, dtype=np.float64)[None, :]
    div = float(max_pos) ** (2.0 * i / dim)
    out = np.empty((pos.shape[0], dim))
    out[:, 0::2] = np.sin(pos / div)
    out[:, 1::2] = np.cos(pos / div)
    return out


def box_mean(a: np.ndarray, k: int) -> np.ndarray:
    """Mean over a k x k neighbourhood on the first two axes (edge padded)."""
    r = k // 2
    p = np.pad(a, ((r, r), (r, r), (0, 0)), mode="edge")
    c = p.cumsum(0).cumsum(1)
    c = np.pad(c, ((1, 0), (1, 0), (0, 0)))
    h, w = a.shape[:2]
    s = c[k:k + h, k:k + w] - c[:h, k:k + w] - c[k:k + h, :w] + c[:h, :w]
    return s / (k * k)


def patch_stats(rgb: np.ndarray) -> np.ndarray:
    """(56, 56, D) hand-made appearance statistics per 9x9 patch."""
    img = rgb.astype(np.float64) / 255.0
    pt = img.reshape(PRED, PATCH, PRED, PATCH, 3).transpose(0, 2, 1, 3, 4)
    mean = pt.mean(axis=(2, 3))
    std = pt.std(axis=(2, 3))
    sub = pt.reshape(PRED, PRED, 3, 3, 3, 3, 3).mean(axis=(3, 5)).reshape(PRED, PRED, 27)

    mx, mn = img.max(-1), img.min(-1)
    sat = np.where(mx > 1e-6, (mx - mn) / np.maximum(mx, 1e-6), 0.0)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    hue = np.arctan2(np.sqrt(3.0) * (g - b), 2.0 * r - g - b)
    hue_c = sat * np.cos(hue)
    hue_s = sat * np.sin(hue)
    colour = np.stack([sat, hue_c, hue_s], -1)
    colour = colour.reshape(PRED, PATCH, PRED, PATCH, 3).mean(axis=(1, 3))

    gray = img @ np.array([0.299, 0.587, 0.114])
    gy, gx = np.gradient(gray)
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), np.pi)                 # unsigned orientation
    bins = np.minimum((ang / np.pi * 8).astype(int), 7)
    hist = np.zeros((SIZE, SIZE, 8))
    np.put_along_axis(hist, bins[..., None], mag[..., None], axis=-1)
    hist = hist.reshape(PRED, PATCH, PRED, PATCH, 8).sum(axis=(1, 3))
    magp = mag.reshape(PRED, PATCH, PRED, PATCH).mean(axis=(1, 3))[..., None]
    hist = hist / (hist.sum(-1, keepdims=True) + 1e-6)

    local = np.concatenate([mean, std, sub, colour, magp, hist], axis=-1)
    context = box_mean(local, 5)
    return np.concatenate([local, context], axis=-1)


def position_code(n_freq: int = 4) -> np.ndarray:
    """(56, 56, 4 * n_freq) 2-D sinusoidal position code."""
    g = np.arange(PRED, dtype=np.float64) / PRED
    freqs = np.pi * 2.0 ** np.arange(n_freq)
    cu = np.concatenate([np.sin(g[:, None] * freqs), np.cos(g[:, None] * freqs)], -1)
    v_code = np.broadcast_to(cu[:, None, :], (PRED, PRED, cu.shape[1]))
    u_code = np.broadcast_to(cu[None, :, :], (PRED, PRED, cu.shape[1]))
    return np.concatenate([u_code, v_code], axis=-1)


def dino_like(rgb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(56*56, 384) features: z-scored stats + weak position -> random proj + tanh."""
    stats = patch_stats(rgb).reshape(PRED * PRED, -1)
    stats = (stats - stats.mean(0)) / (stats.std(0) + 1e-6)
    pos = 0.35 * position_code().reshape(PRED * PRED, -1)
    x = np.concatenate([stats, pos], axis=-1)
    a = rng.standard_normal((x.shape[1], DINO_DIM)) / np.sqrt(x.shape[1])
    bias = 0.1 * rng.standard_normal(DINO_DIM)
    return np.tanh(x @ a + bias)


def pca(x: np.ndarray, k: int) -> np.ndarray:
    """Top-k principal component scores, signs fixed (largest |loading| positive)."""
    xc = x - x.mean(0)
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    vt = vt[:k]
    sign = np.sign(vt[np.arange(k), np.abs(vt).argmax(1)])
    return xc @ (vt * sign[:, None]).T


def gt_trajectory() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ang = np.deg2rad(np.linspace(ARC_DEG[0], ARC_DEG[1], N_WINDOW))
    u = ARC_CENTER[0] + ARC_RADII[0] * np.cos(ang)
    v = ARC_CENTER[1] - ARC_RADII[1] * np.sin(ang)
    pix504 = np.stack([u, v], -1)
    grid = (pix504 + 0.5) / PATCH - 0.5
    z = np.rint(np.asarray(Z_PROFILE)).astype(np.int64)
    return pix504, grid, z


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez_compressed, but with fixed zip timestamps (byte-identical output)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, arr in arrays.items():
            payload = io.BytesIO()
            np.lib.format.write_array(payload, np.asanyarray(arr), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, payload.getvalue())
    path.write_bytes(buf.getvalue())


def main() -> None:
    rng = np.random.default_rng(SEED)
    rgb = load_rgb()

    dino = dino_like(rgb, rng)                                  # (3136, 384)
    pc = pca(dino, 3)
    lo, hi = pc.min(0), pc.max(0)
    dino_pca_rgb = ((pc - lo) / (hi - lo)).reshape(PRED, PRED, 3)

    t_emb = sin_emb(np.arange(N_WINDOW), KEY_DIM, N_WINDOW)            # (8, 48)
    h_emb = sin_emb(np.arange(N_HEIGHT_BINS), KEY_DIM, N_HEIGHT_BINS)  # (32, 48)
    keys = t_emb[:, None, :] + h_emb[None, :, :]
    keys_unit = keys / np.linalg.norm(keys, axis=-1, keepdims=True)    # (8, 32, 48)

    pix504, grid, gt_z = gt_trajectory()
    gt_cell = np.rint(grid).astype(np.int64)                           # (u, v) cells

    # 1x1 projection: random init pulled towards the 8 GT (patch, key) pairs.
    xc = dino - dino.mean(0)
    w0 = rng.standard_normal((KEY_DIM, DINO_DIM)) / np.sqrt(DINO_DIM)
    idx = gt_cell[:, 1] * PRED + gt_cell[:, 0]
    x_gt = xc[idx].T                                                   # (384, 8)
    y_gt = RIDGE_GAIN * keys_unit[np.arange(N_WINDOW), gt_z].T        # (48, 8)
    lhs = x_gt @ x_gt.T + RIDGE_LAMBDA * np.eye(DINO_DIM)
    rhs = y_gt @ x_gt.T + RIDGE_LAMBDA * w0
    w = np.linalg.solve(lhs, rhs.T).T                                  # (48, 384)

    feats = xc @ w.T
    feats /= np.linalg.norm(feats, axis=-1, keepdims=True)
    pixel_feats_unit = feats.T.reshape(KEY_DIM, PRED, PRED)            # [c, v, u]

    logits = LOGIT_SCALE_EXP * np.einsum("chw,tzc->tzhw", pixel_feats_unit, keys_unit)
    flat = logits.reshape(N_WINDOW, -1)
    flat = flat - flat.max(1, keepdims=True)
    soft = np.exp(flat)
    soft /= soft.sum(1, keepdims=True)
    volume_softmax = soft.reshape(logits.shape)                        # [t, z, v, u]
    argmax_voxel = np.stack(
        np.unravel_index(soft.argmax(1), logits.shape[1:]), -1).astype(np.int64)

    heights = np.linspace(*HEIGHT_RANGE_M, N_HEIGHT_BINS)
    meta = {
        "n_height_bins": N_HEIGHT_BINS,
        "n_window": N_WINDOW,
        "pred_size": PRED,
        "key_dim": KEY_DIM,
        "dino_embed_dim": DINO_DIM,
        "logit_scale_exp": float(LOGIT_SCALE_EXP),
        "sample_idx": SAMPLE_IDX,
        "ckpt_epoch": CKPT_EPOCH,
        "patch": PATCH,
        "synthetic": True,
        "source": f"synthetic example from matplotlib sample image {IMAGE}",
        "layout": "volume_softmax[t, z, v, u]; pixel_feats_unit[c, v, u]; "
                  "argmax_voxel[t] = (z, v, u); gt_pix_* = (u, v)",
    }

    arrays = {
        "rgb": rgb.transpose(2, 0, 1).copy(),
        "dino_pca_rgb": dino_pca_rgb.astype(np.float32),
        "pixel_feats_unit": pixel_feats_unit.astype(np.float32),
        "keys_unit": keys_unit.astype(np.float32),
        "t_emb": t_emb.astype(np.float32),
        "h_emb": h_emb.astype(np.float32),
        "volume_softmax": volume_softmax.astype(np.float32),
        "height_meters": heights.astype(np.float32),
        "argmax_voxel": argmax_voxel,
        "gt_pix_grid": grid.astype(np.float64),
        "gt_pix_504": pix504.astype(np.float64),
        "gt_z_bin": gt_z,
        "meta": np.array(json.dumps(meta, sort_keys=True)),
    }
    write_npz(OUT, arrays)

    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB)")
    for t in range(N_WINDOW):
        z, v, u = argmax_voxel[t]
        gu, gv = gt_cell[t]
        ok = (z, v, u) == (gt_z[t], gv, gu)
        print(f"t={t}: argmax (z,v,u)=({z},{v},{u})  GT=({gt_z[t]},{gv},{gu})  "
              f"top1={soft[t].max() * 100:.2f}%  {'match' if ok else 'differs'}")


if __name__ == "__main__":
    main()
