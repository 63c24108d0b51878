# Makes the corpus's R files: ggplot2 and base graphics through svglite, pdf(), cairo_pdf() and svg() (cairo).
# Run from benchmarks/corpus:  Rscript make/r_figures.R   (Debian bookworm: r-base-core 4.2.2, r-cran-ggplot2
# 3.4.1, r-cran-svglite 2.1.1). Built-in data sets only (mtcars, iris, faithful, volcano, airquality, ...).
suppressPackageStartupMessages({library(ggplot2); library(svglite)})
set.seed(23)
volc <- volcano[seq(1, 87, 3), seq(1, 61, 3)]  # a coarser grid keeps the vector files small
dir.create("r-svglite", showWarnings = FALSE); dir.create("r-pdf", showWarnings = FALSE)
dir.create("r-cairo", showWarnings = FALSE)
gg <- list(
  scatter_colour = ggplot(mtcars, aes(wt, mpg, colour = factor(cyl))) + geom_point(size = 2),
  boxplot_jitter = ggplot(iris, aes(Species, Sepal.Length, fill = Species)) + geom_boxplot() + geom_jitter(width = .1, size = .6),
  facets_smooth = ggplot(mpg, aes(displ, hwy)) + geom_point(alpha = .5) + geom_smooth(method = "loess", formula = y ~ x) + facet_wrap(~drv),
  histogram_density = ggplot(faithful, aes(eruptions)) + geom_histogram(aes(y = after_stat(density)), bins = 30, fill = "grey70") + geom_density(colour = "red"),
  raster_volcano = ggplot(reshape2_melt <- data.frame(x = rep(seq_len(nrow(volcano)), ncol(volcano)), y = rep(seq_len(ncol(volcano)), each = nrow(volcano)), z = as.vector(volcano)), aes(x, y, fill = z)) + geom_raster() + scale_fill_viridis_c(),
  tile_contour = ggplot(faithfuld, aes(waiting, eruptions, z = density)) + geom_contour_filled(),
  bar_stacked_theme_minimal = ggplot(diamonds[sample(nrow(diamonds), 2000), ], aes(cut, fill = clarity)) + geom_bar() + theme_minimal(base_size = 9) + coord_flip(),
  line_dates = ggplot(economics, aes(date, unemploy / pop)) + geom_line(colour = "steelblue") + labs(title = "Unemployment rate", subtitle = "economics data set", caption = "Source: ggplot2"),
  violin_polar = ggplot(mtcars, aes(factor(gear), hp)) + geom_violin(fill = "wheat") + coord_polar(),
  errorbars_dodge = ggplot(data.frame(g = rep(c("a", "b", "c"), 2), t = rep(c("ctl", "trt"), each = 3), m = c(3, 5, 4, 4, 7, 5), s = c(.5, .8, .4, .6, .9, .7)), aes(g, m, fill = t)) + geom_col(position = position_dodge(.9)) + geom_errorbar(aes(ymin = m - s, ymax = m + s), position = position_dodge(.9), width = .3) + theme_classic(),
  text_labels_math = ggplot(mtcars[1:12, ], aes(wt, mpg, label = rownames(mtcars)[1:12])) + geom_text(size = 3, check_overlap = TRUE) + labs(x = expression(Weight ~ (10^3 ~ lbs)), y = expression(sqrt(mpg)^2)),
  hex_legend_bottom = ggplot(diamonds, aes(carat, price)) + geom_bin2d(bins = 40) + scale_fill_gradient(low = "white", high = "darkred", trans = "log10") + theme_bw() + theme(legend.position = "bottom"),
  ribbon_area_alpha = ggplot(data.frame(x = 1:50, y = cumsum(rnorm(50))), aes(x, y)) + geom_ribbon(aes(ymin = y - 2, ymax = y + 2), alpha = .3, fill = "purple") + geom_line(linetype = "dashed"),
  dotplot_serif = ggplot(mtcars, aes(mpg)) + geom_dotplot(binwidth = 1.5) + theme_grey(base_family = "serif")
)
base <- list(
  base_pairs = function() pairs(iris[seq(1, 150, 3), 1:4], pch = 21, bg = c("red", "green3", "blue")[unclass(iris$Species[seq(1, 150, 3)])]),
  base_image_contour = function() { image(volc, col = terrain.colors(30)); contour(volc, add = TRUE) },
  base_persp = function() persp(volc, theta = 135, phi = 30, col = "green3", shade = .5, border = NA),
  base_barplot_legend = function() barplot(VADeaths, beside = TRUE, col = c("lightblue", "mistyrose", "lightcyan", "lavender", "cornsilk"), legend.text = rownames(VADeaths)),
  base_mfrow_hist = function() { par(mfrow = c(2, 2)); for (v in names(airquality)[1:4]) hist(airquality[[v]], main = v, xlab = "") },
  base_pie_symbols = function() { par(mfrow = c(1, 2)); pie(c(a = 3, b = 5, c = 2), col = hcl.colors(3)); plot(1:25, pch = 1:25, cex = 1.5, bg = "orange") },
  base_lines_lty_lwd = function() { plot(0, 0, type = "n", xlim = c(0, 10), ylim = c(0, 7)); for (i in 1:6) abline(h = i, lty = i, lwd = i / 2) },
  base_text_fonts = function() { plot.new(); for (i in 1:4) text(.5, i / 5, paste("font", i, "Sphinx of black quartz"), font = i, cex = 1.4) }
)
# svglite: all ggplots but the hex bins (92 KB of rects) + 2 base plots; pdf(): 6 ggplots + all base; cairo_pdf(): 6 ggplots + 3 base; svg(): 4 + 1
for (n in setdiff(names(gg), "hex_legend_bottom")) { svglite(file.path("r-svglite", paste0(n, ".svg")), width = 5, height = 3.5); print(gg[[n]]); invisible(dev.off()) }
for (n in names(base)[c(3, 4)]) { svglite(file.path("r-svglite", paste0(n, ".svg")), width = 6, height = 5); base[[n]](); invisible(dev.off()) }
for (n in names(gg)[c(1, 3, 5, 8, 11, 12)]) { pdf(file.path("r-pdf", paste0(n, ".pdf")), width = 5, height = 3.5); print(gg[[n]]); invisible(dev.off()) }
for (n in names(base)) { pdf(file.path("r-pdf", paste0(n, ".pdf")), width = 6, height = 5); base[[n]](); invisible(dev.off()) }
for (n in names(gg)[c(2, 4, 6, 9, 13, 14)]) { cairo_pdf(file.path("r-cairo", paste0(n, ".pdf")), width = 5, height = 3.5); print(gg[[n]]); invisible(dev.off()) }
for (n in names(base)[c(2, 6, 8)]) { cairo_pdf(file.path("r-cairo", paste0(n, ".pdf")), width = 6, height = 5); base[[n]](); invisible(dev.off()) }
for (n in names(gg)[c(1, 7, 10, 11)]) { svg(file.path("r-cairo", paste0(n, ".svg")), width = 5, height = 3.5); print(gg[[n]]); invisible(dev.off()) }
for (n in names(base)[7]) { svg(file.path("r-cairo", paste0(n, ".svg")), width = 6, height = 5); base[[n]](); invisible(dev.off()) }
# svglite as it writes on macOS and Windows, where 'sans' is Arial: the font-family names those systems write, drawn
# here with the metric-compatible Liberation faces (Arial is not installed on Debian, so svglite would otherwise
# write the "Liberation Sans" it finds)
lib <- "/usr/share/fonts/truetype/liberation/Liberation"
faces <- function(alias, stem) list(
  plain = list(alias = alias, file = paste0(lib, stem, "-Regular.ttf")),
  bold = list(alias = alias, file = paste0(lib, stem, "-Bold.ttf")),
  italic = list(alias = alias, file = paste0(lib, stem, "-Italic.ttf")),
  bolditalic = list(alias = alias, file = paste0(lib, stem, "-BoldItalic.ttf")))
as_windows <- list(sans = faces("Arial", "Sans"), serif = faces("Times New Roman", "Serif"),
                   mono = faces("Courier New", "Mono"))
for (n in names(gg)[c(2, 8, 11)]) {
  svglite(file.path("r-svglite", paste0(n, "_arial.svg")), width = 5, height = 3.5, user_fonts = as_windows)
  print(gg[[n]]); invisible(dev.off())
}
