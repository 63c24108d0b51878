"""Test PDFs written by hand, as bytes: pages of 200 x 100 pt, Helvetica (a standard font, not embedded) as F1.

Not made by matplotlib (or any other tool): the PDF's drawing operators are typed below, so a test
knows exactly what each page draws and where (PDF coordinates: origin bottom-left, y up, 1 unit = 1 pt).
"""

from __future__ import annotations


def hand_pdf(pages: list[bytes], *, encrypt: bool = False, resources: bytes = b"") -> bytes:
    """A PDF with one page per content stream (200 x 100 pt), Helvetica as font F1, written as bytes;
    ``resources``: more entries of every page's resource dictionary (``/Shading << ... >>``)."""
    n = len(pages)
    objs: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>",
                         b"<< /Type /Pages /Kids [%s] /Count %d >>"
                         % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n)), n),
                         b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, content in enumerate(pages):
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Font << /F1 3 0 R >>%s >> "
                    b"/Contents %d 0 R >>" % (resources, 5 + 2 * i))
        objs.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    if encrypt:  # the standard security handler with an O and U that no password matches
        objs.append(b"<< /Filter /Standard /V 1 /R 2 /O <" + b"41" * 32 + b"> /U <" + b"42" * 32 + b"> /P -4 >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    extra = b" /Encrypt %d 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]" % len(
        objs) if encrypt else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, extra, xref)
    return bytes(out)


#: page 1: a red rectangle x 20-100, y 20-80 (PDF, y up), a blue line (110, 20)-(190, 80), "Hello" at (110, 85)
PAGE_1 = (b"0.8 0.1 0.1 rg 20 20 80 60 re f\n0 0 1 RG 2 w 110 20 m 190 80 l S\n"
          b"BT /F1 14 Tf 0 g 110 85 Td (Hello) Tj ET")
#: page 2: a green rectangle x 120-180, y 10-90
PAGE_2 = b"0 0.6 0 rg 120 10 60 80 re f"
PAGE_3 = b"0 0 0 RG 1 w 0 0 m 200 100 l S"
