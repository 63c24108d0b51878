"""schemdraw 0.23 circuit diagrams through its own SVG backend (text as <text>), written into schemdraw/
(run from benchmarks/corpus: python make/schemdraw_figures.py; own venv: pip install schemdraw)."""
import schemdraw
import schemdraw.elements as elm

schemdraw.use("svg")
with schemdraw.Drawing(show=False) as d:
    d += elm.SourceV().label("5V")
    d += elm.Resistor().right().label("1kΩ")
    d += elm.Capacitor().down().label("10μF")
    d += elm.Line().left()
    d += elm.Ground()
    d.save("schemdraw/rc_svgbackend.svg")
with schemdraw.Drawing(show=False) as d:
    d.config(fontsize=12, font="serif")
    op = elm.Opamp(leads=True)
    d += op
    d += elm.Line().left(0.5).at(op.in2)
    d += elm.Ground(lead=False)
    d += elm.Resistor().at(op.in1).left().label("$R_{in}$", loc="bot").idot()
    d += elm.Line().up(1.5).at(op.in1)
    d += elm.Resistor().tox(op.out).label("$R_f$")
    d += elm.Line().toy(op.out).dot()
    d += elm.Line().right(0.5).at(op.out).label("$v_o$", loc="right")
    d.save("schemdraw/opamp_svgbackend.svg")
