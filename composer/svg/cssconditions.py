"""CSS as a browser applies it, written out for engines that read less of it: conditional group rules
(``@media``, ``@supports``, ``@layer``) and custom properties (``--main``, ``var()``).

The export engine's usvg and cairosvg read plain style rules and declarations only: a rule inside
``@media`` or ``@supports`` was dropped, and ``fill: var(--main)`` drew black (the initial fill) in
the PNG and PDF, while a browser showing the composed SVG drew the file's colours. So:

- :func:`flatten_conditional_rules`: every ``@media`` block whose query a screen browser showing the
  file at a given viewport size matches (Media Queries 4: media types ``all``/``screen``; ``width``,
  ``height``, ``aspect-ratio``, ``orientation`` against that size; the other features as on a
  colour screen of 1 dppx, light scheme, no reduced motion), and every ``@supports`` block whose
  condition holds (CSS Conditional 3 and 4: a declaration of a property a browser knows, ``not``,
  ``and``, ``or``, ``selector()`` that cssselect2 can read), is replaced by its rules; a block whose
  condition fails is removed. ``@layer`` blocks are replaced by their rules (their order kept; the
  precedence of unlayered rules over layered ones is not modelled).
- :func:`resolve_custom_properties`: every ``var()`` in a ``style`` attribute or style rule is replaced by
  the value it computes to on each element (CSS Variables 1: custom properties inherit; a fallback
  ``var(--x, red)`` is used when ``--x`` is not defined; a cycle, or no value and no fallback, makes the
  declaration invalid at computed-value time: an inherited property then inherits, another takes its
  initial value). So does a value longer than :data:`MAX_VARIABLE_CHARS` (Chromium's limit) or one that
  goes through more than :data:`MAX_VARIABLE_DEPTH` custom properties. To do so the style sheets are
  applied to the elements first (:func:`composer.svg.css.inline_style_sheets`), as the engine's matcher
  would apply them, so the cascade decides which declaration holds the ``var()``.
- :func:`resolve_light_dark`: ``light-dark(L, D)`` is ``L``, as a browser in the light colour scheme draws it.

  A ``<use>`` draws a copy of its target in a shadow tree that inherits from the ``<use>`` (SVG 2, 5.6.3),
  custom properties included: a target whose subtree holds a ``var()`` is copied into ``<defs>`` once per
  set of custom properties its ``<use>`` elements hand it (at most :data:`MAX_USE_COPIES` copies of
  :data:`MAX_USE_COPY_ELEMENTS` elements in all), resolved there,
  and each ``<use>`` points to its copy.

Not modelled: ``@container``, ``@scope``, ``@property`` (left as they are: the scoping of the import drops
them).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable

import tinycss2
from lxml import etree

from composer.svg.css import inline_style_sheets, weighed_declarations
from composer.svg.csstokens import rewrite_tree, rewritten
from composer.svg.io import SVG_NS

__all__ = ["INHERITED", "KNOWN_PROPERTIES", "flatten_conditional_rules", "flatten_document", "media_matches",
           "resolve_custom_properties", "resolve_light_dark", "supports"]

#: CSS px per unit of a length in a media query (CSS Values 4, 6.2; ``em``/``rem``: the initial font size, 16 px)
_PX = {"px": 1.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4, "q": 96 / 101.6, "pt": 96 / 72, "pc": 16.0,
       "em": 16.0, "rem": 16.0, "ex": 8.0, "ch": 8.0}
#: dots per CSS px of a resolution (``dppx``; the screen composer stands for is 1 dppx, 96 dpi)
_DPPX = {"dppx": 1.0, "x": 1.0, "dpi": 1 / 96, "dpcm": 2.54 / 96}
#: media types a screen browser matches (Media Queries 4, 2.3; the deprecated ones match nothing)
_SCREEN_TYPES = frozenset({"all", "screen"})
#: discrete media features of the screen composer stands for: feature -> its value (Media Queries 4 and 5)
_DISCRETE = {
    "orientation": None,  # from the viewport
    "prefers-color-scheme": "light", "prefers-reduced-motion": "no-preference", "prefers-contrast": "no-preference",
    "prefers-reduced-transparency": "no-preference", "prefers-reduced-data": "no-preference",
    "forced-colors": "none", "inverted-colors": "none", "hover": "hover", "any-hover": "hover",
    "pointer": "fine", "any-pointer": "fine", "display-mode": "browser", "dynamic-range": "standard",
    "video-dynamic-range": "standard", "color-gamut": "srgb", "scan": "progressive", "update": "fast",
    "overflow-block": "scroll", "overflow-inline": "scroll", "scripting": "none", "grid": 0,
}
#: numeric media features of that screen (``color``: bits per colour component)
_NUMERIC = {"color": 8.0, "color-index": 0.0, "monochrome": 0.0}

#: properties the ``@supports`` test knows (a browser's: CSS properties of SVG and of the common layouts);
#: a property outside this list is not supported, as a browser answers for an unknown one
KNOWN_PROPERTIES = frozenset("""
align-content align-items align-self alignment-baseline all animation animation-delay animation-direction
animation-duration animation-fill-mode animation-iteration-count animation-name animation-play-state
animation-timing-function appearance aspect-ratio backdrop-filter backface-visibility background
background-attachment background-blend-mode background-clip background-color background-image background-origin
background-position background-repeat background-size baseline-shift block-size border border-bottom
border-collapse border-color border-image border-left border-radius border-right border-spacing border-style
border-top border-width bottom box-shadow box-sizing break-after break-before break-inside caption-side caret-color
clear clip clip-path clip-rule color color-interpolation color-interpolation-filters color-rendering color-scheme
column-count column-gap column-rule column-span column-width columns contain container content content-visibility
counter-increment counter-reset cursor cx cy d direction display dominant-baseline empty-cells fill fill-opacity
fill-rule filter flex flex-basis flex-direction flex-flow flex-grow flex-shrink flex-wrap float flood-color
flood-opacity font font-family font-feature-settings font-kerning font-optical-sizing font-size font-size-adjust
font-stretch font-style font-synthesis font-variant font-variant-caps font-variant-east-asian font-variant-ligatures
font-variant-numeric font-variation-settings font-weight gap grid grid-area grid-auto-columns grid-auto-flow
grid-auto-rows grid-column grid-gap grid-row grid-template grid-template-areas grid-template-columns
grid-template-rows height hyphens image-rendering inline-size inset isolation justify-content justify-items
justify-self left letter-spacing lighting-color line-break line-height list-style list-style-image
list-style-position list-style-type margin margin-block margin-bottom margin-inline margin-left margin-right
margin-top marker marker-end marker-mid marker-start mask mask-border mask-clip mask-composite mask-image mask-mode
mask-origin mask-position mask-repeat mask-size mask-type max-block-size max-height max-inline-size max-width
min-block-size min-height min-inline-size min-width mix-blend-mode object-fit object-position offset opacity order
orphans outline outline-color outline-offset outline-style outline-width overflow overflow-wrap overflow-x
overflow-y padding padding-block padding-bottom padding-inline padding-left padding-right padding-top
paint-order perspective perspective-origin place-content place-items place-self pointer-events position quotes r
resize right rotate row-gap rx ry scale scroll-behavior shape-image-threshold shape-inside shape-margin
shape-outside shape-padding shape-rendering stop-color stop-opacity stroke stroke-dasharray stroke-dashoffset
stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width tab-size table-layout text-align
text-align-last text-anchor text-decoration text-decoration-color text-decoration-fill text-decoration-line
text-decoration-stroke text-decoration-style text-indent text-orientation text-overflow text-rendering
text-shadow text-transform text-underline-position top touch-action transform transform-box transform-origin
transform-style transition transition-delay transition-duration transition-property transition-timing-function
translate unicode-bidi user-select vector-effect vertical-align visibility white-space widows width will-change
word-break word-spacing word-wrap writing-mode x y z-index zoom
""".split())

#: properties that inherit (CSS and SVG 2's property index): a declaration invalid at computed-value time inherits
INHERITED = frozenset("""
clip-rule color color-interpolation color-interpolation-filters color-rendering cursor direction
dominant-baseline fill fill-opacity fill-rule font font-family font-feature-settings font-kerning font-size
font-size-adjust font-stretch font-style font-variant font-weight image-rendering letter-spacing line-height
marker marker-end marker-mid marker-start paint-order pointer-events shape-rendering stroke stroke-dasharray
stroke-dashoffset stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width text-align
text-anchor text-rendering text-transform visibility white-space word-spacing writing-mode
""".split())

Tokens = list[tinycss2.ast.Node]


def _meaningful(tokens: Iterable[tinycss2.ast.Node]) -> Tokens:
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _split_commas(tokens: Iterable[tinycss2.ast.Node]) -> list[Tokens]:
    parts: list[Tokens] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _condition(tokens: Tokens, in_parens: Callable[[tinycss2.ast.Node], bool]) -> bool:
    """``not X`` | ``X and Y ...`` | ``X or Y ...`` (CSS Conditional 3, 8.1; Media Queries 4, 3), each
    operand an in-parens test read by ``in_parens``; a mix of ``and`` and ``or`` without brackets is invalid
    (False)."""
    tokens = _meaningful(tokens)
    if not tokens:
        return False
    if tokens[0].type == "ident" and tokens[0].lower_value == "not":
        return len(tokens) == 2 and not in_parens(tokens[1])
    operands, between = tokens[0::2], tokens[1::2]
    if any(t.type != "ident" or t.lower_value not in ("and", "or") for t in between):
        return False
    kinds = {t.lower_value for t in between}
    if len(kinds) > 1:
        return False
    results = [in_parens(t) for t in operands]
    return all(results) if kinds != {"or"} else any(results)


# ------------------------------------------------------------------ @media

def _length_px(token: tinycss2.ast.Node, viewport: tuple[float, float]) -> float | None:
    if token.type == "number" and token.value == 0:
        return 0.0
    if token.type != "dimension":
        return None
    unit = token.lower_unit
    if unit in _PX:
        return float(token.value) * _PX[unit]
    width, height = viewport
    relative = {"vw": width, "vh": height, "vmin": min(width, height), "vmax": max(width, height)}
    return float(token.value) * relative[unit] / 100 if unit in relative else None


def _media_value(name: str, tokens: Tokens, viewport: tuple[float, float]) -> float | str | None:
    """A media feature's value as written, comparable with :func:`_feature_value` (px, a ratio, dppx,
    a number, a keyword); None when it is not one."""
    if name in ("width", "height", "device-width", "device-height"):
        return _length_px(tokens[0], viewport) if len(tokens) == 1 else None
    if name in ("aspect-ratio", "device-aspect-ratio"):
        numbers = [t for t in tokens if t.type == "number"]
        if len(tokens) == 1 and numbers:
            return float(numbers[0].value)
        if len(tokens) == 3 and len(numbers) == 2 and tokens[1].type == "literal" and tokens[1].value == "/":
            return float(numbers[0].value) / float(numbers[1].value) if numbers[1].value else None
        return None
    if name == "resolution":
        token = tokens[0] if len(tokens) == 1 else None
        if token is not None and token.type == "dimension" and token.lower_unit in _DPPX:
            return float(token.value) * _DPPX[token.lower_unit]
        return None
    if len(tokens) != 1:
        return None
    if tokens[0].type == "number":
        return float(tokens[0].value)
    return tokens[0].lower_value if tokens[0].type == "ident" else None


def _feature_value(name: str, viewport: tuple[float, float]) -> float | str | None:
    width, height = viewport
    if name in ("width", "device-width"):
        return width
    if name in ("height", "device-height"):
        return height
    if name in ("aspect-ratio", "device-aspect-ratio"):
        return width / height if height else None
    if name == "resolution":
        return 1.0
    if name == "orientation":
        return "portrait" if height >= width else "landscape"
    if name in _NUMERIC:
        return _NUMERIC[name]
    value = _DISCRETE.get(name)
    return float(value) if isinstance(value, int) else value


def _compare(actual: float | str | None, op: str, wanted: float | str | None) -> bool:
    if actual is None or wanted is None:
        return False
    if isinstance(actual, str) or isinstance(wanted, str):
        return op == "=" and actual == wanted
    eps = 1e-9
    return {"=": abs(actual - wanted) <= eps, "<": actual < wanted - eps, "<=": actual <= wanted + eps,
            ">": actual > wanted + eps, ">=": actual >= wanted - eps}.get(op, False)


def _media_feature(block: tinycss2.ast.Node, viewport: tuple[float, float]) -> bool:
    """One ``( ... )`` of a media query: a nested condition, ``(name)``, ``(name: value)``,
    ``(min-name: value)``, or a range (``(width >= 600px)``, ``(400px < width <= 700px)``)."""
    if block.type != "() block":
        return False
    inner = _meaningful(block.content)
    if not inner:
        return False
    if inner[0].type == "() block" or (inner[0].type == "ident" and inner[0].lower_value == "not"):
        return _condition(inner, lambda t: _media_feature(t, viewport))
    if len(inner) == 1 and inner[0].type == "ident":  # boolean context: not zero, not none
        value = _feature_value(inner[0].lower_value, viewport)
        return value not in (None, 0, 0.0, "none", "no-preference")
    colon = next((i for i, t in enumerate(inner) if t.type == "literal" and t.value == ":"), None)
    if colon is not None:
        if colon != 1 or inner[0].type != "ident":
            return False
        name = inner[0].lower_value
        prefix, _, base = name.partition("-") if name.startswith(("min-", "max-")) else ("", "", name)
        wanted = _media_value(base, inner[2:], viewport)
        op = {"min": ">=", "max": "<="}.get(prefix, "=")
        return _compare(_feature_value(base, viewport), op, wanted)
    # range syntax: operands separated by <, <=, >, >=, = (the literals come one character each)
    parts: list[Tokens] = [[]]
    ops: list[str] = []
    for token in inner:
        if token.type == "literal" and token.value in "<>=":
            if ops and len(parts[-1]) == 0 and ops[-1] in ("<", ">") and token.value == "=":
                ops[-1] += "="
                continue
            ops.append(token.value)
            parts.append([])
        else:
            parts[-1].append(token)
    if len(parts) not in (2, 3) or any(not p for p in parts):
        return False
    names = [i for i, p in enumerate(parts) if len(p) == 1 and p[0].type == "ident"
             and _feature_value(p[0].lower_value, viewport) is not None]
    if len(names) != 1 or (len(parts) == 3 and names != [1]):
        return False
    at = names[0]
    name = parts[at][0].lower_value
    actual = _feature_value(name, viewport)
    checks = []
    for i, op in enumerate(ops):  # parts[i] op parts[i + 1]
        left, right = parts[i], parts[i + 1]
        if i + 1 == at:  # value op feature: feature reversed-op value
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}[op]
            value = _media_value(name, left, viewport)
        else:
            value = _media_value(name, right, viewport)
        checks.append(_compare(actual, op, value))
    return all(checks)


def media_matches(prelude: Iterable[tinycss2.ast.Node], *, width_px: float, height_px: float) -> bool:
    """Whether a media query list (``@media``'s prelude) matches a screen browser whose viewport is
    ``width_px`` x ``height_px`` CSS px (see the module docstring); an empty list matches. A query
    that cannot be read matches nothing (``not all``, Media Queries 4, 3.2)."""
    viewport = (width_px, height_px)
    queries = _split_commas(prelude)
    if len(queries) == 1 and not _meaningful(queries[0]):
        return True
    for query in queries:
        tokens = _meaningful(query)
        negate = False
        if tokens and tokens[0].type == "ident" and tokens[0].lower_value in ("not", "only") and len(tokens) > 1 \
                and tokens[1].type == "ident":
            negate, tokens = tokens[0].lower_value == "not", tokens[1:]
        if tokens and tokens[0].type == "ident" and tokens[0].lower_value not in ("not",):
            matched = tokens[0].lower_value in _SCREEN_TYPES
            rest = tokens[1:]
            if rest:
                if not (rest[0].type == "ident" and rest[0].lower_value == "and"):
                    continue  # unreadable: not all
                matched = matched and _condition(rest[1:], lambda t: _media_feature(t, viewport))
        else:
            matched = _condition(tokens, lambda t: _media_feature(t, viewport))
        if matched != negate:
            return True
    return False


# ------------------------------------------------------------------ @supports

def _supports_in_parens(token: tinycss2.ast.Node) -> bool:
    if token.type == "function":
        if token.lower_name == "selector":
            import cssselect2

            try:
                cssselect2.compile_selector_list(token.arguments)
            except cssselect2.SelectorError:
                return False
            return True
        return False  # font-tech(), font-format(): not known here
    if token.type != "() block":
        return False
    inner = _meaningful(token.content)
    if inner and (inner[0].type in ("() block", "function") or (inner[0].type == "ident"
                                                                and inner[0].lower_value == "not")):
        return _condition(inner, _supports_in_parens)
    if len(inner) >= 3 and inner[0].type == "ident" and inner[1].type == "literal" and inner[1].value == ":":
        name = inner[0].value
        return name.startswith("--") or name.lower() in KNOWN_PROPERTIES
    return False


def supports(prelude: Iterable[tinycss2.ast.Node]) -> bool:
    """Whether an ``@supports`` condition holds in a browser (see the module docstring): a declaration
    ``(prop: value)`` holds when a browser knows the property (:data:`KNOWN_PROPERTIES`, or a custom
    property); its value is not checked."""
    return _condition(list(prelude), _supports_in_parens)


# ------------------------------------------------------------------ flattening

def flatten_conditional_rules(css: str, *, width_px: float, height_px: float) -> str:
    """The style sheet with each ``@media``/``@supports``/``@layer`` block replaced by its rules when its
    condition holds (:func:`media_matches` at that viewport, :func:`supports`), and removed otherwise; the
    other rules and at-rules kept as written. A sheet without any is returned unchanged."""
    if "@" not in css:
        return css
    out: list[str] = []
    changed = False
    for node in tinycss2.parse_stylesheet(css):
        if node.type == "at-rule" and node.lower_at_keyword in ("media", "supports", "layer"):
            changed = True
            if node.content is None:  # `@layer a, b;`: an order statement
                continue
            if node.lower_at_keyword == "media":
                holds = media_matches(node.prelude, width_px=width_px, height_px=height_px)
            elif node.lower_at_keyword == "supports":
                holds = supports(node.prelude)
            else:
                holds = True
            if holds:
                out.append(flatten_conditional_rules(tinycss2.serialize(node.content), width_px=width_px,
                                                     height_px=height_px))
        else:
            out.append(node.serialize())
    return "".join(out) if changed else css


def flatten_document(root: etree._Element, *, width_px: float, height_px: float) -> int:
    """:func:`flatten_conditional_rules` on every ``<style>`` of a document; returns how many changed."""
    count = 0
    for style in root.iter(f"{{{SVG_NS}}}style"):
        if style.text and "@" in style.text:
            flat = flatten_conditional_rules(style.text, width_px=width_px, height_px=height_px)
            if flat != style.text:
                style.text = flat
                count += 1
    return count


# ------------------------------------------------------------------ custom properties

_VAR = re.compile(r"var\(", re.IGNORECASE)

#: longest value a ``var()`` substitution may produce, in characters: Chromium's limit on a variable's value
#: (``CSSVariableData::kMaxVariableBytes``, 2 MiB). CSS Variables 1, 3.3 ("Safely Handling Overly-Long
#: Variables") asks for such a limit, past which the value is invalid at computed-value time: without it
#: ``--v1: var(--v0) var(--v0)`` doubled forty times (a few hundred bytes of CSS) asked for 2**40 characters
#: and the build was killed for want of memory.
MAX_VARIABLE_CHARS = 2 * 1024 * 1024

#: most custom properties one value may go through (``--a: var(--b)``, ``--b: var(--c)``, ...) before it is
#: taken as invalid at computed-value time, like a cycle: a chain of 3,000 declared last-first ran Python out
#: of stack (a RecursionError's traceback) while resolving it.
MAX_VARIABLE_DEPTH = 64
#: the most copies of ``<use>`` targets made for their custom properties (each distinct set of values a
#: ``<use>`` hands its target is one copy): past it, a ``<use>`` draws its target as the document resolves
#: it, so that a hostile file cannot multiply its size
MAX_USE_COPIES = 1000
#: and the most elements those copies may hold in all
MAX_USE_COPY_ELEMENTS = 200_000
_HREF = "href"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _substitute(tokens: Iterable[tinycss2.ast.Node], lookup: Callable[[str], str | None]) -> str | None:
    """``tokens`` serialized with every ``var(--name[, fallback])`` replaced (CSS Variables 1, 3), or None
    when one has neither a value nor a fallback (invalid at computed-value time)."""
    out: list[str] = []
    for token in tokens:
        if token.type == "function" and token.lower_name == "var":
            args = token.arguments
            head = _meaningful(args[: next((i for i, t in enumerate(args) if t.type == "literal"
                                            and t.value == ","), len(args))])
            comma = next((i for i, t in enumerate(args) if t.type == "literal" and t.value == ","), None)
            if len(head) != 1 or head[0].type != "ident" or not head[0].value.startswith("--"):
                return None
            value = lookup(head[0].value)
            if value is None and comma is not None:
                value = _substitute(args[comma + 1:], lookup)
            if value is None:
                return None
            out.append(value.strip())
        elif token.type == "function":
            inner = _substitute(token.arguments, lookup)
            if inner is None:
                return None
            out.append(f"{token.name}({inner})")
        elif token.type in ("() block", "[] block", "{} block"):
            inner = _substitute(token.content, lookup)
            if inner is None:
                return None
            out.append({"() block": "(", "[] block": "[", "{} block": "{"}[token.type] + inner
                       + {"() block": ")", "[] block": "]", "{} block": "}"}[token.type])
        else:
            out.append(token.serialize())
    text = "".join(out)
    return text if len(text) <= MAX_VARIABLE_CHARS else None


def _uses_variables(root: etree._Element) -> bool:
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag == f"{{{SVG_NS}}}style" and el.text and _VAR.search(el.text):
            return True
        style = el.get("style")
        if style and _VAR.search(style):
            return True
    return False


def resolve_custom_properties(root: etree._Element) -> int:
    """Replace every ``var()`` of the document by its computed value on each element (see the module
    docstring); returns how many elements' ``style`` changed (0: the document uses no ``var()``, and is
    left as it is). The style sheets are applied to the elements first and removed
    (:func:`composer.svg.css.inline_style_sheets`); custom property declarations are removed once used."""
    if not _uses_variables(root):
        return 0
    inline_style_sheets(root, always=True)
    count = 0
    # what each <use> draws, as written (before its own place in the document resolves it)
    by_id = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
    pristine: dict[str, etree._Element] = {}
    for use in root.iter(f"{{{SVG_NS}}}use"):
        ref = _use_target(use)
        if ref and ref not in pristine and ref in by_id and _uses_variables(by_id[ref]):
            pristine[ref] = copy.deepcopy(by_id[ref])
    copies: dict[tuple[str, tuple[tuple[str, str | None], ...]], str] = {}
    made: list[etree._Element] = []
    sizes = {ref: sum(1 for _ in el.iter()) for ref, el in pristine.items()}
    copied = 0
    expanding: set[str] = set()  # targets being copied: a <use> of one inside it is a cycle, left alone

    def instantiate(use: etree._Element, ref: str, computed: dict[str, str | None]) -> None:
        key = (ref, tuple(sorted(computed.items())))
        nonlocal copied
        if key not in copies:
            if len(copies) >= MAX_USE_COPIES or copied + sizes[ref] > MAX_USE_COPY_ELEMENTS or ref in expanding:
                return
            copied += sizes[ref]
            clone = copy.deepcopy(pristine[ref])
            suffix = f"--use{len(copies) + 1}"
            for el in clone.iter():
                if isinstance(el.tag, str) and el.get("id"):
                    el.set("id", el.get("id", "") + suffix)
            copies[key] = clone.get("id", "")
            expanding.add(ref)
            visit(clone, computed)
            expanding.discard(ref)
            made.append(clone)
        for attr in (_HREF, _XLINK_HREF):
            if use.get(attr) is not None:
                use.set(attr, "#" + copies[key])

    def visit(el: etree._Element, inherited: dict[str, str | None]) -> None:
        nonlocal count
        style = el.get("style") or ""
        decls = weighed_declarations(style) if style else ()
        own_raw = {name: value for name, value in decls if name.startswith("--")}
        computed = dict(inherited)
        if own_raw:
            resolving: set[str] = set()
            done: dict[str, str | None] = {}

            def lookup(name: str) -> str | None:
                if name not in own_raw:
                    return inherited.get(name)
                if name in done:
                    return done[name]
                if name in resolving or len(resolving) >= MAX_VARIABLE_DEPTH:  # a cycle (or too deep a chain):
                    return None                                             # invalid at computed-value time
                resolving.add(name)
                raw = own_raw[name].removesuffix(" !important")
                value = _substitute(tinycss2.parse_component_value_list(raw), lookup) if _VAR.search(raw) else raw
                resolving.discard(name)
                done[name] = value.strip() if value is not None else None
                return done[name]

            for name in own_raw:
                computed[name] = lookup(name)
        if decls and (own_raw or _VAR.search(style)):
            kept = []
            for name, value in decls:
                if name.startswith("--"):
                    continue
                if _VAR.search(value):
                    important = value.endswith(" !important")
                    text = value.removesuffix(" !important")
                    resolved = _substitute(tinycss2.parse_component_value_list(text), computed.get)
                    if resolved is None or not resolved.strip():  # an empty value (--a: ;) is invalid here too
                        if name not in INHERITED:
                            continue  # its initial value: as if not declared (a presentation attribute aside)
                        resolved = "inherit"
                    value = resolved.strip() + (" !important" if important else "")
                kept.append(f"{name}: {value}")
            if kept:
                el.set("style", "; ".join(kept))
            else:
                del el.attrib["style"]
            count += 1
        if el.tag == f"{{{SVG_NS}}}use":
            ref = _use_target(el)
            if ref in pristine:
                instantiate(el, ref, computed)
        for child in el:
            if isinstance(child.tag, str):
                visit(child, computed)

    visit(root, {})
    if made:
        defs = etree.SubElement(root, f"{{{SVG_NS}}}defs")
        defs.extend(made)
    return count


def _use_target(use: etree._Element) -> str | None:
    """The id a ``<use>`` draws (``href`` before ``xlink:href``, SVG 2, 5.6), or None for another document."""
    href = (use.get(_HREF) or use.get(_XLINK_HREF) or "").strip()
    return href[1:] if href.startswith("#") and len(href) > 1 else None



# ------------------------------------------------------------------ light-dark()

_LIGHT_DARK = re.compile(r"light-dark\(", re.IGNORECASE)


def _light(token: tinycss2.ast.FunctionBlock) -> str | None:
    """``light-dark(L, D)`` as ``L`` (its own functions rewritten too); any other function kept."""
    if token.lower_name != "light-dark":
        return None
    args = token.arguments
    comma = next((i for i, t in enumerate(args) if t.type == "literal" and t.value == ","), len(args))
    return rewritten(args[:comma], _light).strip()


def resolve_light_dark(root: etree._Element) -> int:
    """Replace every ``light-dark(L, D)`` colour (CSS Color 5, 7.2; new draw.io exports write every fill
    and stroke so) by ``L``, the colour a browser with the light colour scheme draws (the scheme the
    ``@media`` queries are evaluated in, :data:`_DISCRETE`): in ``style`` attributes, presentation
    attributes and ``<style>`` sheets. The engines read no ``light-dark()`` and drew such shapes black.
    Returns how many values changed."""
    return rewrite_tree(root, _LIGHT_DARK, _light)
