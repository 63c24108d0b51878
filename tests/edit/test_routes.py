"""The edit routes of ``compose serve`` over HTTP: one real preview (server and builder processes) of a
small project (one imported SVG panel and a text, nothing for matplotlib to render), talked to as the
page talks to it. Marked e2e: it runs a ``compose`` process. The expected file texts are worked out by
hand from the millimetres written; the preview then serves the new build (its SVG's token changes
and its build counter grows).
"""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request

import pytest
from cli.test_serve import served

from composer.edit.history import digest, read_text
from conftest import DEMO, layout_project

MM = 72 / 25.4

BODY = """
[panels.p]
svg = "../assets/logo.svg"
at = ["5mm", "5mm"]
size = ["20mm", "10mm"]

[[text]]
name = "title"
text = "Hello"
at = "p.s"
offset = ["0mm", "2mm"]   # under the drawing
anchor = "n"
"""


def post(server, path: str, body: dict, **headers: str) -> tuple[int, dict]:
    request = urllib.request.Request(server.url + path.lstrip("/"), data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.e2e
def test_the_page_edits_the_layout_through_the_routes(tmp_path):
    root = layout_project(tmp_path, BODY)
    shutil.copytree(DEMO / "assets", root / "assets")
    layout = root / "layouts" / "fig.toml"
    text = read_text(layout)
    with served(["serve", "fig", "--root", str(root), "--format", "svg"]) as server:
        state = server.wait_state(lambda s: s.get("elements") is not None and s.get("findings") is not None)
        status, _, body = server.get("/fig/elements.json")
        elements = json.loads(body)
        assert status == 200 and elements["digest"] == digest(text) and elements["token"] == state["svg"]
        title = next(e for e in elements["elements"] if e["id"] == "text:title")
        assert title["key_path"] == "text[0]" and title["line"] == text.splitlines().index("[[text]]") + 1
        # refused before anything: another site's page, a body that is not JSON
        assert post(server, "/fig/edit", {"id": "text:title", "dx_pt": MM}, Origin="http://evil.example")[0] == 403
        request = urllib.request.Request(server.url + "fig/edit", data=b"id=text:title", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        assert refused.value.code == 415 and read_text(layout) == text
        status, answer = post(server, "/fig/edit", {"id": "text:title", "dx_pt": 1.5 * MM, "dy_pt": 0,
                                                    "digest": elements["digest"]})
        moved = text.replace('offset = ["0mm", "2mm"]', 'offset = ["1.5mm", "2mm"]')
        assert status == 200 and read_text(layout) == moved and answer["digest"] == digest(moved)
        server.wait_state(lambda s: s["svg"] != state["svg"] and s["builds"] > state["builds"])
        status, answer = post(server, "/fig/edit", {"id": "text:title", "dx_pt": MM, "digest": elements["digest"]})
        assert (status, answer["reason"]) == (409, "changed-on-disk") and read_text(layout) == moved
        status, answer = post(server, "/fig/undo", {"digest": digest(moved)})
        assert status == 200 and read_text(layout) == text and (answer["undo"], answer["redo"]) == (0, 1)
        assert post(server, "/fig/open", {"id": "text:title"})[1]["url"].endswith(f"fig.toml:{title['line']}")
