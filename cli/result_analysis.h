/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* result_analysis.h - `bpflab result compare | history | export | import`
 * (cli/result_analysis.c) and `result verifier` (cli/result_verifier.c), the entries
 * cli/result.c puts in its command table.
 */
#ifndef BPFLAB_CLI_RESULT_ANALYSIS_H
#define BPFLAB_CLI_RESULT_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>

/* The value rows (store_query_values) for FILTER from --db FILE or the coordinator's
 * `query`. Returns 0 with *ROWS, or an exit status after the error (FILTER NULL: out of
 * memory). */
int cli_fetch_values(const json_t *filter, json_t **rows);

/* The run-to-run summaries (store_query_run_spread) of the runs of ROWS, for compare's
 * FILTER (its "by" dropped) and INCLUDE_FLAGGED, from --db FILE or the coordinator's
 * `query_spread` (cli/result_spread.c). Returns 0 with *SPREAD, or an exit status after
 * the error. */
int cli_fetch_run_spread(const json_t *filter, const json_t *rows, bool include_flagged,
			 json_t **spread);

/* Each returns the exit status (cli.h). */
int cli_result_compare(int argc, char **argv);
/* cli/result_verifier.c */
int cli_result_verifier(int argc, char **argv);
int cli_result_history(int argc, char **argv);
int cli_result_export(int argc, char **argv);
int cli_result_import(int argc, char **argv);

#define CLI_RESULT_COMPARE_ARGS                                                         \
	"{ RUN_A RUN_B | --plan NAME --by FIELD [--baseline VALUE] [--candidate VALUE] } "   \
	"[--metric M] [--variant V] [--subject S] [--window rate|cost] [--host H] "       \
	"[--include-flagged] [--all] [--strict] [--min-effect PCT] [--alpha A] "          \
	"[--run-spread PCT] [--form table|patch|grid] [--csv] [--plot FILE.svg|.png]"
#define CLI_RESULT_COMPARE_HELP                                                         \
	"Compare a baseline with a candidate, beyond the noise: two runs, or one plan's\n"  \
	"results grouped by FIELD (kernel.release, kernel.build, kernel.version,\n"        \
	"kernel.config, port.driver, host, variant, plan, day, subject, run), the\n"      \
	"baseline group against every other (or --candidate). Per metric,\n"              \
	"variant and subject: n, mean ± stddev of each side (for rates total work over\n" \
	"total time: windows are of equal time, so the arithmetic mean),\n"              \
	"delta % and a verdict: SAME, DIFFERENT (better / worse) or UNKNOWN +N reps (the\n" \
	"repetitions per side that would settle it); '(exact)' when both sides repeat\n"  \
	"one value (QEMU icount costs): no test, the delta decides. A side that holds\n"  \
	"values of several hosts or kernel builds is named under the table. Whole runs\n" \
	"are tested with the spread between runs of their plan, host and kernel (from\n" \
	"3 runs, else assumed; under the table). See docs/analysis.md.\n"              \
	"\n"                                                                               \
	"  --plan NAME         the plan whose results are grouped (also narrows two runs)\n" \
	"  --by FIELD          what a group is (FIELD above)\n"                            \
	"  --baseline VALUE    the baseline group (default: the first measured)\n"         \
	"  --candidate VALUE   the one group compared (default: every other)\n"            \
	"  --metric, --variant, --subject, --window, --host\n"                             \
	"                      only these values (window: rate or cost)\n"                 \
	"  --include-flagged   keep results flagged debug-kernel, disturbed or\n"         \
	"                      generator-bound (left out and counted by default)\n"        \
	"  --all               keep everything stored: flagged results and far-out\n"    \
	"                      values (outside a side's Tukey fences, k 3)\n"             \
	"  --strict            refuse a side that pools several hosts or kernel builds\n"  \
	"  --min-effect PCT    least change that matters, % of the baseline (default 2)\n" \
	"  --alpha A           significance level (default 0.05)\n"                         \
	"  --run-spread PCT    whole runs: the spread between runs assumed where fewer\n"  \
	"                      than 3 runs say (default 7; 0: the repetitions are\n"      \
	"                      taken as independent)\n"                                   \
	"  --form FORM         table (default); patch: without patch | with patch |\n"     \
	"                      improvement %; grid: Version | Test | a column per variant\n" \
	"  --csv               one line per compared row (not with -j or --form)\n"        \
	"  --plot FILE         one panel of grouped bars per metric, by gnuplot\n"         \
	"                      (FILE.svg or FILE.png; at most 12 metrics)\n"

#define CLI_RESULT_HISTORY_ARGS                                                         \
	"--plan NAME --metric M [--by kernel.release|kernel.build|kernel.version|"        \
	"kernel.config|day] [--variant V] [--subject S] "                                  \
	"[--window rate|cost] [--host H] [--include-flagged] [--csv] [--plot FILE.svg|.png]"
#define CLI_RESULT_HISTORY_HELP                                                         \
	"One metric of one plan over kernels (in the order they were first measured) or\n" \
	"days: a line per group with n, mean ± stddev, spread and delta % from the\n"     \
	"first, and the change points of the series (E-divisive, at least 3 values each\n" \
	"side), named by the groups on both sides. With -j, the history report.\n"        \
	"\n"                                                                               \
	"  --by FIELD          kernel.release (default), kernel.build (release, uname -v\n" \
	"                      and config), kernel.version, kernel.config or day\n"       \
	"  --variant, --subject, --window, --host\n"                                       \
	"                      only these values (window: rate or cost)\n"                 \
	"  --include-flagged   keep flagged results (left out by default)\n"             \
	"  --csv               one line per group (not with -j)\n"                         \
	"  --plot FILE         a line per series with error bars and the change points,\n" \
	"                      by gnuplot (FILE.svg or FILE.png)\n"

#define CLI_RESULT_EXPORT_ARGS                                                          \
	"RUN --format kcidb|bmf [--host NAME] [--kernel K] [--origin NAME] "              \
	"[--build-id ID] [--include-flagged] [--all-rows]"
#define CLI_RESULT_EXPORT_HELP                                                          \
	"Print run RUN as JSON for other dashboards (with or without -j): kcidb\n"        \
	"(KernelCI KCIDB v4.4 checkouts, builds and tests with number value and unit)\n"  \
	"or bmf (Bencher Metric Format). One entry per host, kernel build, variant,\n"    \
	"point, metric and subject: the mean (the arithmetic mean, as result show\n"     \
	"prints; for rates total work over total time), min and max of the\n"          \
	"repetitions. A bmf document is of one host and kernel build (a Bencher\n"      \
	"testbed and branch), benchmarks named PLAN/VARIANT/SUBJECT[/POINT]: a run of\n" \
	"several needs --host and --kernel (the error lists them).\n"                    \
	"\n"                                                                              \
	"  --format FORMAT     kcidb or bmf\n"                                            \
	"  --host NAME         only the results of host NAME\n"                           \
	"  --kernel K          only those on kernel release K, or on the build K\n"        \
	"                      labelled RELEASE #HASH\n"                                    \
	"  --origin NAME       kcidb: the origin, [a-z0-9_]+ (default: bpflab)\n"         \
	"  --build-id ID       kcidb: the tests' build, ORIGIN:ID, one your CI has sent\n" \
	"                      (one kernel build only; no checkouts or builds emitted)\n" \
	"  --include-flagged   keep flagged results (left out by default)\n"             \
	"  --all-rows          keep rates that are zero by design (left out by default)\n"

#define CLI_RESULT_VERIFIER_ARGS "RUN [--by FIELD]"
#define CLI_RESULT_VERIFIER_HELP                                                        \
	"What the verifier did with each program of run RUN, per group (veristat's\n"     \
	"compare): verified insns, states and JIT'd bytes of each group A, B, ... and\n"  \
	"the last against the first (DIFF, +703 (+70.51%)), each group's load verdict\n"  \
	"(success, failure, mixed, unknown) and MATCH / MISMATCH across groups. The\n"    \
	"figures are the agent's load samples (verifier.*, prog.jited_bytes; states\n"    \
	"with the plan's 'verifier: stats'); a failure is a job that could not load the\n" \
	"program, its error (with the verifier's last lines) under the table. With -j,\n" \
	"the report object.\n"                                                             \
	"\n"                                                                               \
	"  --by FIELD          what a group is (default kernel.release; as compare)\n"

#define CLI_RESULT_IMPORT_ARGS                                                          \
	"{ FILE.csv | { --before A.json --after B.json }... --variant V } --plan NAME "   \
	"[--metric M] [--unit U] [--host NAME] [--kernel RELEASE [--kernel-version V]]"
#define CLI_RESULT_IMPORT_HELP                                                          \
	"Store numbers measured by hand as a new run (plan text 'imported from FILE',\n"   \
	"host 'imported'): a CSV of variant,prog,set,value, or two 'bpftool -j prog\n"      \
	"show' snapshots taken before and after a run with kernel.bpf_stats_enabled=1\n"  \
	"(ns per run = delta run_time_ns / delta run_cnt). Writes into --db FILE\n"       \
	"directly, else asks the coordinator. Prints the new run's id ({run, jobs}\n"     \
	"with -j).\n"                                                                      \
	"\n"                                                                               \
	"  --plan NAME         the plan name the run is stored under\n"                    \
	"  --metric M          CSV: the metric (default prog.ns_per_run)\n"                \
	"  --unit U            CSV: the unit (default: ns for prog.ns_per_run, else\n"    \
	"                      none)\n"                                                    \
	"  --before A.json, --after B.json\n"                                              \
	"                      the snapshots; --variant V names the variant; each\n"      \
	"                      further pair is one more repetition\n"                      \
	"  --host NAME         the host (default: imported)\n"                             \
	"  --kernel RELEASE    the kernel the numbers came from (1 to 64 bytes), so that\n" \
	"                      they join history and compare --by kernel.*\n"             \
	"  --kernel-version V  its uname -v (1 to 64 bytes)\n"

#endif
