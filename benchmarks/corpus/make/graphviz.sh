#!/bin/sh
# Makes the corpus's graphviz files from graphviz/src/*.gv (written for this corpus): SVG with each file's own
# layout engine, PDF (cairo) for a few. Debian bookworm graphviz 2.42.2 (dot -V says 2.43.0).
# Run from benchmarks/corpus:  sh make/graphviz.sh
for f in graphviz/src/*.gv; do n=$(basename "$f" .gv); dot -Tsvg "$f" -o "graphviz/$n.svg"; done
for n in pipeline_clusters html_table shapes_styles unicode_labels twopi_radial; do dot -Tpdf "graphviz/src/$n.gv" -o "graphviz/$n.pdf"; done
