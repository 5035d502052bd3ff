/* result_analysis.h - `bpflab result compare | history | export | import`
 * (cli/result_analysis.c), the entries cli/result.c puts in its command table.
 */
#ifndef BPFLAB_CLI_RESULT_ANALYSIS_H
#define BPFLAB_CLI_RESULT_ANALYSIS_H

/* Each returns the exit status (cli.h). */
int cli_result_compare(int argc, char **argv);
int cli_result_history(int argc, char **argv);
int cli_result_export(int argc, char **argv);
int cli_result_import(int argc, char **argv);

#define CLI_RESULT_COMPARE_ARGS                                                         \
	"{ RUN_A RUN_B | --plan NAME --by FIELD [--baseline VALUE] [--candidate VALUE] } "   \
	"[--metric M] [--variant V] [--subject S] [--window rate|cost] "  \
	"[--include-flagged] [--min-effect PCT] [--alpha A] "             \
	"[--form table|patch|grid] [--csv] [--plot FILE.svg|.png]"
#define CLI_RESULT_COMPARE_HELP                                                         \
	"Compare a baseline with a candidate, beyond the noise: two runs, or one plan's\n"  \
	"results grouped by FIELD (kernel.release, port.driver, host, variant, plan, day,\n" \
	"run), the baseline group against every other (or --candidate). Per metric,\n"     \
	"variant and subject: n, mean ± stddev of each side (harmonic mean for rates),\n"  \
	"delta % and a verdict: SAME, DIFFERENT (better / worse) or UNKNOWN +N reps (the\n" \
	"repetitions per side that would settle it). See docs/analysis.md.\n"             \
	"Results flagged debug-kernel, unstable or generator-bound are left out (and\n"    \
	"counted) unless --include-flagged.\n"                                             \
	"\n"                                                                               \
	"  --min-effect PCT    least change that matters, % of the baseline (default 2)\n" \
	"  --alpha A           significance level (default 0.05)\n"                         \
	"  --form FORM         table (default); patch: without patch | with patch |\n"     \
	"                      improvement %; grid: Version | Test | a column per variant\n" \
	"  --csv               one line per compared row\n"                                \
	"  --plot FILE         grouped bars of the first metric, by gnuplot (.svg, .png)\n"

#define CLI_RESULT_HISTORY_ARGS                                                         \
	"--plan NAME --metric M [--by kernel.release|day] [--variant V] [--subject S] "   \
	"[--host H] [--include-flagged] [--csv] [--plot FILE.svg|.png]"
#define CLI_RESULT_HISTORY_HELP                                                         \
	"One metric of one plan over kernels (in the order they were first measured) or\n" \
	"days: a line per group with n, mean ± stddev, spread and delta % from the\n"     \
	"first, and the change points of the series (E-divisive, at least 3 values each\n" \
	"side), named by the groups on both sides. --plot draws it with error bars\n"    \
	"(gnuplot).\n"

#define CLI_RESULT_EXPORT_ARGS "RUN --format kcidb|bmf [--origin NAME] [--include-flagged]"
#define CLI_RESULT_EXPORT_HELP                                                          \
	"Print run RUN for other dashboards: kcidb (KernelCI KCIDB v4.4 test objects with\n" \
	"number value and unit) or bmf (Bencher Metric Format). One entry per variant,\n"   \
	"metric and subject: the mean (harmonic for rates), min and max of the\n"           \
	"repetitions. Flagged results are left out unless --include-flagged.\n"

#define CLI_RESULT_IMPORT_ARGS                                                          \
	"{ FILE.csv | --before A.json --after B.json --variant V } --plan NAME "         \
	"[--metric M] [--unit U] [--host NAME]"
#define CLI_RESULT_IMPORT_HELP                                                          \
	"Store numbers measured by hand as a new run (plan text 'imported from FILE',\n"   \
	"host 'imported'): a CSV of variant,prog,set,value (prog.ns_per_run unless\n"       \
	"--metric), or two 'bpftool -j prog show' snapshots taken before and after a\n"    \
	"run with kernel.bpf_stats_enabled=1 (ns per run = delta run_time_ns / delta\n"    \
	"run_cnt). Writes into --db FILE directly, else asks the coordinator.\n"

#endif
