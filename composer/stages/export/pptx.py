"""The figure as a PowerPoint slide (``compose --format pptx``): a vector picture with its PNG fallback.

One slide of the canvas's size (1 pt = 12,700 EMU, ECMA-376 Part 1, 20.1.2.1: 914,400 EMU per inch)
holding one picture that fills it; a canvas under 1 in on a side (PowerPoint's smallest slide) sits at
its own size in the middle of a slide of 1 in on that side, and one over 56 in (its largest) is refused.
The picture is PowerPoint's own form of an SVG picture (what PowerPoint 2016+ writes when an SVG is
inserted; python-pptx issue #358, MS-ODRAWXML 2.3.4.1): a ``<p:pic>`` whose ``a:blip`` embeds the PNG,
which viewers without SVG draw, and carries the extension ``{96DAC541-7B7A-43D3-8B79-37D633B846F1}``
whose ``asvg:svgBlip`` embeds the SVG part, which PowerPoint draws (and can ungroup into editable
shapes: "Convert to Shape"); its alt text (``descr``) is the figure's description (``[figure] alt``), and
the package's thumbnail the figure's PNG. The SVG is composer's own bytes (the canvas, or a panel alone with
``--panels``: each panel is then a file of one slide of its size, since a presentation has one slide
size), the PNG the one ``--dpi`` makes.

python-pptx (``pip install 'figure-composer[pptx]'``) writes the package; it has no SVG picture, so the
SVG part and the extension are added through its OPC layer (:class:`pptx.opc.package.Part`,
``relate_to``). The bytes are deterministic: the core properties python-pptx would date now are pinned
(created and modified 2000-01-01, revision 1, the figure's name as title) and the zip is written again
with every entry dated 1980-01-01 (the zip format's first date), in the order python-pptx wrote them.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile

from lxml import etree

from composer.errors import ComposerError
from composer.kinds.outputs import FORMATS, Job

#: EMU per pt (ECMA-376 Part 1, 20.1.2.1: 914,400 EMU per inch, 72 pt per inch)
EMU_PER_PT = 12700
#: the extension of ``a:blip`` whose ``asvg:svgBlip`` names the SVG (MS-ODRAWXML 2.3.4.1)
SVG_EXTENSION = "{96DAC541-7B7A-43D3-8B79-37D633B846F1}"
#: the namespace of ``asvg:svgBlip``
ASVG = "http://schemas.microsoft.com/office/drawing/2016/SVG/main"
#: the relationships namespace (``r:embed``)
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#: the DrawingML namespace (``a:blip``, ``a:extLst``)
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
#: the PresentationML namespace (``p:sldSz``)
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
#: the date written into the core properties and every zip entry: fixed, so equal figures give equal bytes
PINNED = dt.datetime(2000, 1, 1)
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: python-pptx's default template's "Blank" layout (no placeholders)
_BLANK_LAYOUT = 6
#: the smallest and largest side of a slide (ECMA-376 Part 1, 19.7.59 ST_SlideSizeCoordinate: 1 in to 56 in)
SLIDE_MIN_EMU, SLIDE_MAX_EMU = 914400, 51206400


def to_pptx(png: bytes, job: Job) -> bytes:
    """The PPTX of one slide holding ``job.svg`` as a picture of ``job.size_pt``, ``png`` its fallback.

    Args:
        png: the finished PNG of the same canvas (the fallback PowerPoint stores beside the SVG).
        job: the export's job: ``svg`` (stored as it is), ``size_pt`` (the slide's and picture's size),
            ``title`` (the core properties' title and the picture's name).

    Raises:
        ComposerError: python-pptx is not installed (one line naming what to install).
    """
    try:
        from pptx import Presentation
        from pptx.opc.constants import RELATIONSHIP_TYPE
        from pptx.opc.package import Part
        from pptx.util import Emu
    except ImportError:
        raise ComposerError(FORMATS["pptx"].missing() or "--format pptx needs python-pptx") from None
    width_emu, height_emu = (max(1, round(v * EMU_PER_PT)) for v in job.size_pt)
    if max(width_emu, height_emu) > SLIDE_MAX_EMU:
        raise ComposerError(f"{job.source}: a slide is at most 56 in on a side (PowerPoint's limit); the canvas is "
                            f"{job.size_pt[0] / 72:.1f} x {job.size_pt[1] / 72:.1f} in")
    slide_w, slide_h = max(width_emu, SLIDE_MIN_EMU), max(height_emu, SLIDE_MIN_EMU)
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(slide_w), Emu(slide_h)
    size = prs.part._element.find(f"{{{P}}}sldSz")
    if size is not None:
        size.attrib.pop("type", None)  # the template's "screen4x3": a custom size has none
    slide = prs.slides.add_slide(prs.slide_layouts[_BLANK_LAYOUT])
    # a canvas under 1 in on a side sits at its own size in the middle of the smallest slide
    left, top = (slide_w - width_emu) // 2, (slide_h - height_emu) // 2
    picture = slide.shapes.add_picture(io.BytesIO(png), Emu(left), Emu(top), Emu(width_emu), Emu(height_emu))
    name = job.title or "figure"
    picture.name = name
    # PowerPoint's alt text: the figure's description ([figure] alt and the panels'), else its name (python-pptx
    # writes the image's file name, "image.png")
    picture._element.nvPicPr.cNvPr.set("descr", job.alt or name)
    package = prs.part.package
    svg_part = Part(package.next_partname("/ppt/media/image%d.svg"), "image/svg+xml", package, job.svg)
    svg_rid = slide.part.relate_to(svg_part, RELATIONSHIP_TYPE.IMAGE)
    blip = picture._element.blipFill.find(f"{{{A}}}blip")
    assert blip is not None  # add_picture writes one
    ext_list = etree.SubElement(blip, f"{{{A}}}extLst")
    ext = etree.SubElement(ext_list, f"{{{A}}}ext", uri=SVG_EXTENSION)
    svg_blip = etree.SubElement(ext, f"{{{ASVG}}}svgBlip", nsmap={"asvg": ASVG})
    svg_blip.set(f"{{{R}}}embed", svg_rid)
    _thumbnail(package, png)
    core = prs.core_properties
    core.title, core.author, core.last_modified_by = name, "composer", "composer"
    core.created = core.modified = PINNED
    core.comments = ""  # the template's "generated using python-pptx"
    core.revision = 1
    out = io.BytesIO()
    prs.save(out)
    return _pinned_zip(out.getvalue())


def _thumbnail(package: object, png: bytes) -> None:
    """The package's thumbnail (``docProps/thumbnail.jpeg``, what file browsers show): the figure's PNG, at most
    256 px on its longer side, in place of the picture python-pptx's template carries."""
    from PIL import Image

    for part in package.iter_parts():  # type: ignore[attr-defined]  # pptx.package.Package
        if str(part.partname) != "/docProps/thumbnail.jpeg":
            continue
        with Image.open(io.BytesIO(png)) as img:
            img.load()
            rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        small = Image.alpha_composite(white, rgba).convert("RGB")
        small.thumbnail((256, 256))
        out = io.BytesIO()
        small.save(out, format="JPEG", quality=85)
        part._blob = out.getvalue()  # a plain Part keeps its bytes there (pptx.opc.package.Part.blob)


def _pinned_zip(data: bytes) -> bytes:
    """``data`` (a zip) written again with every entry dated :data:`_ZIP_DATE` and deflated, in its order."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, src.read(info))
    return out.getvalue()


__all__ = ["ASVG", "EMU_PER_PT", "SLIDE_MAX_EMU", "SLIDE_MIN_EMU", "SVG_EXTENSION", "to_pptx"]
