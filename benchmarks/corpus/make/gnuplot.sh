#!/bin/sh
# gnuplot's svg and pdfcairo terminals (gnuplot 5.4, Debian's gnuplot-nox), from gnuplot/src/figures.gp
set -e
cd "$(dirname "$0")/../gnuplot"
gnuplot src/figures.gp
