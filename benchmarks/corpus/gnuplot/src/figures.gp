set samples 200
set terminal svg size 480,360 dynamic enhanced font "Arial,12" background "#ffffff"
set output "lines.svg"
set title "Damped oscillation {/Symbol w}_0 = 2"
set xlabel "t (s)"; set ylabel "x(t)"
set key top right
plot [0:10] exp(-x/3)*cos(2*x) title "x(t)" lw 2, exp(-x/3) title "envelope" dt 2
set output "errorbars.svg"
set title "Measurements with error bars"
unset xlabel; unset ylabel
plot '-' using 1:2:3 with yerrorbars title "data" pt 7, 0.5*x+1 title "fit"
1 1.6 0.3
2 2.1 0.2
3 2.4 0.4
4 3.2 0.3
5 3.4 0.2
6 4.1 0.3
e
set output "heatmap.svg"
set title "pm3d map"
set view map
set pm3d at b
set palette rgbformulae 33,13,10
set isosamples 25
set samples 25
unset key
splot [-3:3][-3:3] exp(-(x**2+y**2)/2)*sin(2*x) with pm3d
set samples 200
set output "histogram.svg"
set title "Clustered histogram"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
unset view
unset pm3d
plot '-' using 2:xtic(1) title "2023", '-' using 2 title "2024"
A 3
B 5
C 2
e
A 4
B 4
C 3
e
set terminal pdfcairo size 5in,3.5in font "Helvetica,10"
set output "lines_cairo.pdf"
set title "Damped oscillation (pdfcairo)"
set style data lines
plot [0:10] exp(-x/3)*cos(2*x) title "x(t)" lw 2, exp(-x/3) title "envelope" dt 2
set terminal svg size 480,360 fixed mouse standalone font "Helvetica,11"
set output "mouse_standalone.svg"
set title "svg terminal with mouse (javascript)"
plot [-5:5] sin(x)/x title "sinc" lw 2
