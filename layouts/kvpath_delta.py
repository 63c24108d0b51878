"""KVPath-Delta's low-rank path recurrence, as a Python layout.

The seed script (kvpath_delta.py, which composer replaces) typed some sixty
coordinates by hand. Here the figure size and a few gaps are the only
lengths: every row is placed relative to the one below it, every delta box
right of its state box, every merge node between two state boxes, and every
arrow runs between named anchors.
"""

ROWS = 4
ROW_GAP = "11mm"      # between state boxes: room for the merge node
STATE = ["56mm", "8.5mm"]
DELTA = ["22mm", "5.6mm"]
DELTA_GAP = "12mm"    # state box to delta box
INPUT_GAP = "58mm"    # state box's east edge to the layer input column
ELBOW = "4.5mm"       # how far right of the state boxes the delta path turns up
MERGE_DROP = "5.5mm"  # merge node below the state box it feeds: half of ROW_GAP


def layout():
    doc = {
        "figure": {"width": "150mm", "height": "92mm", "font": "STIXGeneral", "font_size": "9pt"},
        "rcparams": {"mathtext.fontset": "stix"},
        "colors": {"ink": "#242424", "blue": "#36647D", "orange": "#A66B3F",
                   "blue_fill": "#EDF3F6", "orange_fill": "#F8EEE4"},
        "styles": {
            "head": {"size": "10pt", "color": "ink"},
            "state": {"size": "12pt", "color": "blue"},
            "delta": {"size": "10pt", "color": "orange"},
        },
        "shape": [], "text": [], "arrow": [],
    }
    shapes, texts, arrows = doc["shape"], doc["text"], doc["arrow"]

    # text is a template: {name} fields come from the data, so mathtext braces are doubled ({{KV}});
    # the Python f-strings below fill the row number first.
    for i in range(ROWS):
        label = r"$(k^\alpha,v^\alpha)$" if i == 0 else rf"$(k_{i},v_{i})$"
        state = {"name": f"state{i}", "kind": "rect", "size": STATE, "corner": "1.6mm",
                 "fill": "blue_fill", "stroke": "blue", "stroke_width": "0.8pt", "text": label,
                 "text_class": "state"}
        if i == 0:
            state.update(at="canvas.sw", offset=["20mm", "-14mm"], anchor="sw")
        else:
            state.update(above=f"state{i - 1}", gap=ROW_GAP)
        shapes.append(state)
        texts.append({"text": f"${i}$", "left_of": f"state{i}", "gap": "9mm", "class": "head"})
        texts.append({"name": f"h{i}", "text": f"$h_{i}$", "at": f"state{i}.e", "offset": [INPUT_GAP, "0mm"],
                      "size": "12pt", "color": "ink"})
        if i == 0:
            arrows.append({"from": "h0.w", "to": "state0.e", "color": "blue", "width": "0.8pt", "gap": "2pt",
                           "label": r"$W^\alpha$ (anchor)", "label_class": "delta", "label_color": "blue",
                           "label_pos": 0.5})
            continue
        shapes.append({"name": f"delta{i}", "kind": "rect", "size": DELTA, "corner": "1.2mm",
                       "right_of": f"state{i}", "gap": DELTA_GAP, "fill": "orange_fill", "stroke": "orange",
                       "stroke_width": "0.8pt", "text": rf"$(k^\delta_{i},v^\delta_{i})$",
                       "text_class": "delta"})
        arrows.append({"from": f"h{i}.w", "to": f"delta{i}.e", "color": "orange", "width": "0.8pt",
                       "gap": "2pt", "label": rf"$W^\delta_{i}$", "label_class": "delta"})
        # the merge node sits halfway between this state box and the one below
        shapes.append({"name": f"plus{i}", "kind": "circle", "radius": "1.9mm", "at": f"state{i}.s",
                       "offset": ["0mm", MERGE_DROP], "fill": "white", "stroke": "orange", "stroke_width": "0.8pt",
                       "symbol": "+"})
        arrows.append({"from": f"delta{i}.w", "to": f"plus{i}.e", "route": "-|", "color": "orange",
                       "width": "0.8pt", "gap": "0pt",
                       # turn up ELBOW right of the state box, then run level with the merge node
                       "via": [{"at": f"state{i}.se", "offset": [ELBOW, MERGE_DROP]}],
                       "label": rf"$U^K_{i},\ U^V_{i}$", "label_class": "delta", "label_pos": 0.55})
        arrows.append({"from": f"state{i - 1}.n", "to": f"plus{i}.s", "color": "blue", "width": "0.9pt",
                       "gap": "0.6pt"})
        arrows.append({"from": f"plus{i}.n", "to": f"state{i}.s", "color": "blue", "width": "0.9pt",
                       "gap": "0.6pt"})

    top = ROWS - 1
    texts += [
        {"text": "Layer", "at": f"state{top}.nw", "offset": ["-9mm", "-5mm"], "anchor": "s", "size": "9pt"},
        {"text": "Cumulative full K/V", "at": f"state{top}.n", "offset": ["0mm", "-5mm"], "anchor": "s",
         "class": "head", "color": "blue"},
        {"text": "Low-rank K/V delta", "at": f"delta{top}.n", "offset": ["0mm", "-5mm"], "anchor": "s",
         "class": "head", "color": "orange"},
        {"text": r"$d_\delta\ll d_{{KV}}$", "at": f"delta{top}.n", "offset": ["0mm", "-1.2mm"], "anchor": "s",
         "size": "9pt", "color": "orange"},
        {"text": "Layer input", "at": f"h{top}.n", "offset": ["0mm", "-5mm"], "anchor": "s", "class": "head"},
        {"text": r"$(k^\alpha,v^\alpha)=W^\alpha h_0$", "at": "state0.s", "offset": ["-14mm", "7mm"],
         "anchor": "n", "size": "10pt", "color": "blue"},
        {"text": r"$k_i=k_{{i-1}}+U_i^Kk_i^\delta,\quad v_i=v_{{i-1}}+U_i^Vv_i^\delta$", "at": "state0.se",
         "offset": ["-6mm", "7mm"], "anchor": "nw", "size": "10pt", "color": "orange"},
    ]
    return doc
