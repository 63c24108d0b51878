"""pygal 3.1 charts as pygal writes them (CSS in a <style> keyed to a random chart id, monospace font stacks,
a viewBox and no size; no tooltip script: js=[]), fixed data, written into pygal/ (run from
benchmarks/corpus: python make/pygal_figures.py; own venv: pip install pygal)."""
import pygal
from pygal.style import DarkStyle

config = dict(width=480, height=360, disable_xml_declaration=False, js=[])
bar = pygal.Bar(**config, title="Browser usage (%)")
bar.x_labels = ["2019", "2020", "2021", "2022"]
bar.add("Firefox", [9.5, 8.7, 7.9, 7.0])
bar.add("Chrome", [62.0, 64.1, 65.2, 66.0])
bar.add("Safari", [15.2, 16.1, 18.4, 18.9])
bar.render_to_file("pygal/bar.svg")
box = pygal.Box(**config, title="Box plot", style=DarkStyle)
box.add("x", [1, 2, 2, 3, 4, 5, 7, 9])
box.add("y", [3, 4, 4, 5, 5, 6, 6, 8])
box.render_to_file("pygal/box_dark.svg")
radar = pygal.Radar(**config, title="Radar", fill=True)
radar.x_labels = ["speed", "accuracy", "memory", "latency", "cost"]
radar.add("A", [5, 3, 4, 2, 3])
radar.add("B", [3, 5, 2, 4, 4])
radar.render_to_file("pygal/radar.svg")
