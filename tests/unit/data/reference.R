# reference.R - the reference table for tests/unit/test_stats.c.
#
# Runs Welch's t-test and the Mann-Whitney U (Wilcoxon rank-sum) test of R on fixed
# samples and prints them as C initializers, which were pasted into test_stats.c between
# the "BEGIN reference.R" and "END reference.R" markers. Produced with R 4.2.2:
#
#     Rscript tests/unit/data/reference.R
#
# R is not a dependency of bpflab: this script only documents where the numbers come
# from, so that anyone can check them again.

cases <- list(
  # port.rx_pps (Mpps) of three repetitions each, a clear drop
  list(name = "rx3", exact = TRUE,
       x = c(19.86, 19.91, 20.03), y = c(19.52, 19.60, 19.41)),
  # prog.ns_per_run, 5 against 6 repetitions
  list(name = "ns5", exact = TRUE,
       x = c(35.9, 35.6, 35.5, 36.1, 35.8), y = c(37.2, 36.9, 37.5, 37.0, 36.8, 37.3)),
  # a quiet baseline against a noisy candidate: unequal variances, Welch's df matters
  list(name = "var", exact = TRUE,
       x = c(10.1, 9.8, 10.3, 10.0, 9.9, 10.25, 10.15, 9.7),
       y = c(11.5, 8.9, 12.1, 9.4, 10.8, 13.0)),
  # two samples of the same level: large p; ties (5.01, 5) make the p approximate
  list(name = "same", exact = TRUE,
       x = c(5.01, 4.98, 5.03, 4.97, 5.00, 5.02), y = c(4.99, 5.04, 4.96, 5.01, 5.00, 5.005)),
  # far apart: a tiny p checks the tail of the incomplete beta
  list(name = "far", exact = TRUE,
       x = c(1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 1.01),
       y = c(2.0, 2.1, 1.9, 2.05, 1.95, 2.02, 1.98, 2.01)),
  # 20 against 18, no ties: the exact distribution at a larger size
  list(name = "n20", exact = TRUE,
       x = c(96.46, 96.56, 102.01, 93.12, 99.57, 93.23, 103.3, 100.61, 104.07, 98.49,
             101.19, 99.14, 97.79, 100.44, 96.23, 98.94, 102.09, 100.17, 98.77, 106.57),
       y = c(103.17, 101.24, 103.48, 101.43, 101.84, 101.95, 109.08, 103.07, 103.53,
             105.02, 109.05, 102.33, 101.13, 110.42, 98.62, 101.9, 105.0, 109.85)),
  # 40 against 35: above the exact limit, normal approximation
  list(name = "n40", exact = FALSE,
       x = c(45.25, 37.861, 53.308, 47.392, 48.063, 52.307, 51.118, 51.455, 47.844,
             56.447, 57.525, 50.16, 47.74, 53.667, 52.389, 44.798, 47.699, 55.246,
             49.519, 48.356, 51.062, 49.832, 49.988, 40.347, 58.747, 50.997, 45.617,
             54.898, 51.544, 50.088, 55.24, 61.305, 52.768, 57.925, 60.787, 44.896,
             47.384, 53.882, 41.46, 48.664),
       y = c(58.464, 57.216, 54.897, 42.524, 63.754, 54.754, 55.835, 54.474, 43.419,
             44.826, 45.917, 61.591, 47.845, 50.789, 50.726, 54.854, 54.503, 53.339,
             45.692, 36.306, 52.832, 53.34, 58.153, 51.485, 48.944, 54.052, 44.228,
             46.792, 46.968, 53.439, 62.456, 55.817, 57.71, 53.191, 53.395)),
  # ties (midranks, tie-corrected variance), normal approximation
  list(name = "ties", exact = FALSE,
       x = c(1, 2, 2, 3, 4, 5, 5, 6), y = c(4, 5, 5, 6, 7, 8, 8, 9, 9))
)

fmt <- function(v) paste(sprintf("%.17g", v), collapse = ", ")

for (c in cases) {
  cat(sprintf("static const double ref_%s_x[] = { %s };\n", c$name, fmt(c$x)))
  cat(sprintf("static const double ref_%s_y[] = { %s };\n", c$name, fmt(c$y)))
}
cat("\nstatic const struct ref_case ref_cases[] = {\n")
for (c in cases) {
  w <- t.test(c$x, c$y, var.equal = FALSE)
  m <- suppressWarnings(wilcox.test(c$x, c$y, exact = c$exact, correct = TRUE))
  cat(sprintf(paste0("\t{ \"%s\", ref_%s_x, %d, ref_%s_y, %d,\n",
                     "\t  /* t, df, p */ %s, %s, %s,\n",
                     "\t  /* U, p, exact */ %s, %s, %s },\n"),
              c$name, c$name, length(c$x), c$name, length(c$y),
              sprintf("%.17g", w$statistic), sprintf("%.17g", w$parameter),
              sprintf("%.17g", w$p.value),
              sprintf("%.17g", m$statistic), sprintf("%.17g", m$p.value),
              # R falls back to the normal approximation when there are ties
              if (grepl("exact", m$method)) "true" else "false"))
}
cat("};\n")

# the confidence interval Welch's test gives (90 %, as compare's equivalence check uses)
w <- t.test(cases[[2]]$x, cases[[2]]$y, var.equal = FALSE, conf.level = 0.90)
cat(sprintf("\n/* ns5 90%% CI of mean(x) - mean(y): %.17g .. %.17g */\n",
            w$conf.int[1], w$conf.int[2]))
# quantiles used by compare
cat(sprintf("/* qt(0.975, 4.5) = %.17g, qt(0.05, 12) = %.17g, qnorm(0.975) = %.17g, qnorm(0.8) = %.17g */\n",
            qt(0.975, 4.5), qt(0.05, 12), qnorm(0.975), qnorm(0.8)))
cat(sprintf("/* pbeta(0.3, 2.5, 4) = %.17g, pbeta(0.02, 0.5, 30) = %.17g, pbeta(1e-4, 3, 0.5) = %.17g */\n",
            pbeta(0.3, 2.5, 4), pbeta(0.02, 0.5, 30), pbeta(1e-4, 3, 0.5)))
