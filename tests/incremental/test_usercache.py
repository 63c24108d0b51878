"""The user's text cache (composer.incremental.usercache): canvas text typeset once per text, style and
font files, for every project and after ``rm -rf build``, with the same SVG bytes as typesetting afresh."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from composer.incremental.cache import TextCache
from composer.incremental.usercache import MAX_BYTES, TEXT_FOLDER, UserTextStore, user_cache_dir
from composer.layout.model import TextStyle
from composer.pipeline import build

LAYOUT = '''[figure]
width = "80mm"
height = "40mm"
font = "DejaVu Sans"
font_size = "7pt"
{mode}
[[text]]
text = "Plain words, a minus −3"
at = ["40mm", "6mm"]

[[text]]
text = "<b>bold</b>, <i>italic</i> and $\\\\alpha^2_{{i}}$"
at = ["40mm", "14mm"]
size = "9pt"

[[shape]]
kind = "rect"
at = ["40mm", "26mm"]
width = "30mm"
text = "a shape's text wraps to its width"
'''


def project(root: Path, editable: bool) -> Path:
    (root / "layouts").mkdir(parents=True)
    mode = 'text = "editable"\n' if editable else ""
    (root / "layouts" / "t.toml").write_text(LAYOUT.replace("{mode}\n", mode))
    return root


@pytest.fixture
def typeset_calls(monkeypatch):
    """The texts :func:`composer.text.metrics.typeset` typesets (from here on)."""
    import composer.text.metrics as metrics

    calls: list[str] = []
    real = metrics.typeset
    monkeypatch.setattr(metrics, "typeset", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    return calls


@pytest.mark.parametrize("editable", [False, True], ids=["outlines", "editable"])
def test_a_cleaned_build_and_a_new_project_typeset_nothing_and_write_the_same_bytes(
        tmp_path, user_cache, typeset_calls, editable):
    first = project(tmp_path / "a", editable)
    fresh = build("t", root=first, out=tmp_path / "fresh", formats=("svg",), cache=False)  # no cache at all
    fresh_svg = fresh.outputs["svg"].read_bytes()
    assert not user_cache.exists(), "--no-cache wrote to the user's cache"

    built = build("t", root=first, formats=("svg",))
    assert len(typeset_calls) == 3  # the user's cache was empty: typeset, then stored
    assert len(list((user_cache / TEXT_FOLDER).glob("*/*"))) == 3
    assert built.outputs["svg"].read_bytes() == fresh_svg

    shutil.rmtree(first / "build")  # a cleaned build
    typeset_calls.clear()
    again = build("t", root=first, formats=("svg",))
    assert typeset_calls == [], f"typeset again after rm -rf build: {typeset_calls}"
    assert again.outputs["svg"].read_bytes() == fresh_svg

    other = project(tmp_path / "b", editable)  # a new project with the same texts
    copied = build("t", root=other, formats=("svg",))
    assert typeset_calls == [], f"typeset again in a new project: {typeset_calls}"
    assert copied.outputs["svg"].read_bytes() == fresh_svg
    if editable:
        assert fresh_svg.count(b"<text") >= 3 and b"Plain words" in fresh_svg and b"bold" in fresh_svg
    else:
        assert b"<text" not in fresh_svg and fresh_svg.count(b"<path") >= 3


def test_a_damaged_or_foreign_user_entry_is_deleted_and_the_text_typeset_again(tmp_path, user_cache, typeset_calls):
    root = project(tmp_path / "a", editable=False)
    reference = build("t", root=root, formats=("svg",)).outputs["svg"].read_bytes()
    entries = sorted((user_cache / TEXT_FOLDER).glob("*/*"))
    assert len(entries) == 3
    entries[0].write_bytes(entries[0].read_bytes()[:-5])  # cut short
    entries[1].write_bytes(entries[2].read_bytes())  # another key's entry under this key
    shutil.rmtree(root / "build")
    typeset_calls.clear()
    assert build("t", root=root, formats=("svg",)).outputs["svg"].read_bytes() == reference
    assert len(typeset_calls) == 2, typeset_calls
    assert len(list((user_cache / TEXT_FOLDER).glob("*/*"))) == 3  # both written again, whole
    assert UserTextStore(user_cache).load(entries[0].name) is not None


def _font_copy(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the file DejaVu Sans resolves to, which matplotlib is made to lay text out with."""
    from matplotlib import font_manager

    import composer.mpl.internals as internals

    real = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"), fallback_to_default=False)
    copy = tmp_path / "fonts" / "DejaVuSans.ttf"
    copy.parent.mkdir()
    shutil.copyfile(real, copy)
    monkeypatch.setattr(internals, "fallback_font_paths", lambda prop: [str(copy)])
    return copy


def test_the_key_changes_when_the_font_file_changes(tmp_path, user_cache, monkeypatch, typeset_calls):
    copy = _font_copy(tmp_path, monkeypatch)
    style = TextStyle(font="DejaVu Sans", size_pt=7.0)
    store = UserTextStore(user_cache)
    first = TextCache(tmp_path / "p1.json", user=store)
    key = first.key("Ab", style)
    assert TextCache(tmp_path / "elsewhere.json", user=store).key("Ab", style) == key  # not the project's
    first.typeset("Ab", style)
    first.save()
    assert store.path(key).is_file()
    typeset_calls.clear()
    TextCache(tmp_path / "p2.json", user=store).typeset("Ab", style)
    assert typeset_calls == []  # the same font bytes: from the user's cache

    with open(copy, "ab") as handle:  # the font file changes (a new version of the font is installed)
        handle.write(b"\0" * 16)
    os.utime(copy, ns=(1_000_000_000, 1_000_000_000))
    changed = TextCache(tmp_path / "p3.json", user=store)
    assert changed.key("Ab", style) != key
    changed.typeset("Ab", style)
    assert typeset_calls == ["Ab"]  # typeset again, not taken from the entry made with the old file


def test_the_key_changes_with_matplotlibs_version_and_composers_fingerprint(tmp_path, monkeypatch):
    import matplotlib

    import composer.incremental.cache as cache_module

    style = TextStyle(font="DejaVu Sans", size_pt=7.0)
    key = TextCache(tmp_path / "a.json", user=None).key("Ab", style)
    assert TextCache(tmp_path / "b.json", user=None).key("Ab", style) == key
    assert TextCache(tmp_path / "b.json", user=None).key("Ab", TextStyle(font="DejaVu Sans", size_pt=7.5)) != key
    monkeypatch.setattr(matplotlib, "__version__", "99.0.0")
    assert TextCache(tmp_path / "c.json", user=None).key("Ab", style) != key
    monkeypatch.undo()
    monkeypatch.setattr(cache_module, "composer_fingerprint", lambda: "0.0+0000000000000000")
    assert TextCache(tmp_path / "d.json", user=None).key("Ab", style) != key
    monkeypatch.undo()
    with matplotlib.rc_context({"mathtext.fallback": "stix"}):  # an rcParam in force
        assert TextCache(tmp_path / "e.json", user=None).key("Ab", style) != key


def test_the_cache_folder_is_composer_cache_dir_else_xdg_else_home():
    assert user_cache_dir({"COMPOSER_CACHE_DIR": "/x/y", "XDG_CACHE_HOME": "/z"}) == Path("/x/y")
    assert user_cache_dir({"XDG_CACHE_HOME": "/z"}) == Path("/z/composer")
    assert user_cache_dir({"XDG_CACHE_HOME": "relative"}) == Path.home() / ".cache" / "composer"  # XDG: ignored
    assert user_cache_dir({}) == Path.home() / ".cache" / "composer"


def test_the_tests_do_not_use_the_real_user_cache():
    assert Path(os.environ["COMPOSER_CACHE_DIR"]) != Path.home() / ".cache" / "composer"
    assert user_cache_dir() == Path(os.environ["COMPOSER_CACHE_DIR"])


def test_prune_deletes_the_least_recently_used_entries_first(tmp_path):
    store = UserTextStore(tmp_path)
    keys = [f"{i:02x}" + "0" * 62 for i in range(5)]
    store.store({k: {"n": "x" * 1000} for k in keys})
    for i, key in enumerate(keys):  # keys[0] the oldest, keys[4] the newest
        os.utime(store.path(key), ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
    assert store.load(keys[0]) is not None  # used now: the newest of all
    size = store.path(keys[0]).stat().st_size
    removed = store.prune(3 * size)
    assert sorted(p.name for p in removed) == sorted([keys[1], keys[2]])
    assert all(store.path(k).is_file() for k in (keys[0], keys[3], keys[4]))
    assert MAX_BYTES >= 64 * 1024 * 1024


def test_without_a_home_folder_there_is_no_user_cache_and_the_build_works(tmp_path, monkeypatch):
    """No HOME and no password entry (a container run with an arbitrary user id): Path.home() raises
    RuntimeError. The build typesets its text as without a cache, and writes the same bytes."""
    monkeypatch.delenv("COMPOSER_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home(cls):
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", classmethod(no_home))
    assert user_cache_dir() is None and UserTextStore.default() is None
    assert TextCache(tmp_path / "t.json").user is None
    with pytest.raises(ValueError, match="no user cache folder"):
        UserTextStore()
    root = project(tmp_path / "a", editable=False)
    first = build("t", root=root, formats=("svg",)).outputs["svg"].read_bytes()
    monkeypatch.undo()
    monkeypatch.setenv("COMPOSER_CACHE_DIR", str(tmp_path / "cache"))
    again = build("t", root=project(tmp_path / "b", editable=False), formats=("svg",)).outputs["svg"].read_bytes()
    assert first == again
