#!/usr/bin/python3
# dashboard.py - the dashboard (docs/dashboard.md) in a real browser: headless chromium
# driven by selenium (Debian's chromium, chromium-driver, python3-selenium: scripts/deps.sh
# browser). tests/integration/test_dashboard.sh brings up the lab with bpflabd serving the
# dashboard under a token (lab/lab up --http --http-token), runs two plans (the second
# one still running when this starts), starts `bpflab serve` over the lab's database and
# calls this; each check prints "ok: ..." or "FAIL: ...", a check left out "skip: ...";
# exit 0 when all passed, 1 when any failed, 77 when chromium cannot start.
#
# What it checks, clicking as a person would (nav links, the forms' buttons):
#   /runs      signed in to bpflabd's dashboard the browser's way (/runs?token=T: a 303
#              to /runs, the HttpOnly SameSite=Strict cookie), and in a second window
#              on `bpflab serve`: in both the running run's jobs cell advances with no
#              reload (a marker set on the window survives; bpflabd's through the
#              cookie), ending as `run list -j` says and as a reload shows it
#   /runs/A    reached by its link; the tables are the text of `result show A`, each
#              number within its printed rounding of `result show A -j`; host, kernel;
#              a dot per repetition, and a click on one opens its job's per-second
#              traces (the values of `result show A --seconds -j`)
#   /history   form filled and sent; each point's hover title is the -j point; the text
#   /compare   a = A, b = B; each row's n, means, delta and verdict as -j says; the text
#              (both pages leave out flagged results, as the CLI by default: when they
#              have none left, the CLI's error on a page that keeps the form; the box
#              include_flagged ticked and sent, the numbers as --include-flagged's)
#   /hosts, /bisect  as `host list -j`, `bisect status -j`
#   404        /runs/999999 answers 404 (the status the browser got) with "no run 999999"
#   token      on bpflabd's dashboard: without it (no cookie) 401 and the error page; a
#              wrong ?token= 401 and no cookie; with the header (set through the
#              DevTools protocol: the way a proxy adds it) the page; urllib: none,
#              wrong, right -> 401, 401, 200 and the JSON of `run list -j`
# and writes a screenshot of each page to the screenshot directory.
#
# usage: dashboard.py --url URL --live-url URL --token FILE --db FILE --bpflab BIN
#                     --run-a ID --run-b ID --shots DIR --profile DIR
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

failures = 0


def ok(what):
    print("ok: " + what, flush=True)


def fail(what):
    global failures
    failures += 1
    print("FAIL: " + what, flush=True)


def check(what, cond):
    (ok if cond else fail)(what)
    return cond


def skip(what):
    print("skip: " + what, flush=True)


class Cli:
    """`bpflab --db DB ...`: its text, its -j JSON, or its error message."""

    def __init__(self, bpflab, db):
        self.base = [bpflab, "--db", db]

    def text(self, *args):
        p = subprocess.run(self.base + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr.strip()

    def json(self, *args):
        """(object, None) or (None, the error message of the -j answer)."""
        p = subprocess.run(self.base + ["-j"] + list(args), capture_output=True, text=True)
        if p.returncode:
            try:
                return None, json.loads(p.stdout or p.stderr)["error"]
            except (ValueError, KeyError):
                return None, (p.stderr or p.stdout).strip()
        return json.loads(p.stdout), None


# A number as the report prints it: 4.457M, 42.1, 916k, -40.9%, with verdict markers after.
NUM = re.compile(r"^([+-]?\d+(?:\.\d+)?)([KkMG]?)%?([^\d]*)$")
SUFFIX = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9}


def near(token, value):
    """True when TOKEN, a printed number, is VALUE rounded to the digits it shows."""
    m = NUM.match(token)
    if not m:
        return token == "-" and value is None
    if value is None:
        return False
    digits = m.group(1)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    scale = SUFFIX[m.group(2)]
    half = 0.5 * scale * 10 ** -decimals
    return abs(float(digits) * scale - value) <= half * (1 + 1e-6) + 1e-9 * abs(value)


class Page:
    """The browser: headless chromium with the performance log (to read the status of
    each document it loads)."""

    def __init__(self, profile):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1280,900", "--user-data-dir=" + profile,
                  "--no-first-run", "--disable-extensions"):
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        self.d.set_page_load_timeout(20)

    def quit(self):
        self.d.quit()

    def drain(self):
        self.d.get_log("performance")

    def doc_status(self, url_part):
        """The HTTP status of the last document whose URL contains URL_PART, from the
        performance log (read since the last call)."""
        status = None
        for e in self.d.get_log("performance"):
            msg = json.loads(e["message"])["message"]
            if msg.get("method") != "Network.responseReceived":
                continue
            params = msg["params"]
            if params.get("type") == "Document" and url_part in params["response"]["url"]:
                status = params["response"]["status"]
        return status

    def redirect_status(self, url_part, doc_part):
        """From the performance log (read since the last call): the status and Location
        of the last redirect of a document whose URL contains URL_PART, and the status of
        the last document whose URL contains DOC_PART (None where none)."""
        status, location, doc = None, None, None
        for e in self.d.get_log("performance"):
            msg = json.loads(e["message"])["message"]
            params = msg.get("params", {})
            r = params.get("redirectResponse")
            if msg.get("method") == "Network.requestWillBeSent" and r and \
                    params.get("type") == "Document" and url_part in r["url"]:
                h = {k.lower(): v for k, v in r.get("headers", {}).items()}
                status, location = r["status"], h.get("location")
            if msg.get("method") == "Network.responseReceived" and \
                    params.get("type") == "Document" and doc_part in params["response"]["url"]:
                doc = params["response"]["status"]
        return status, location, doc

    def by_css(self, css):
        return self.d.find_elements("css selector", css)

    def text_of(self, css):
        """The textContent of the first element of CSS (exact whitespace), or None."""
        els = self.by_css(css)
        return els[0].get_attribute("textContent") if els else None

    def wait(self, cond, seconds, step=0.2):
        end = time.time() + seconds
        while time.time() < end:
            v = cond()
            if v:
                return v
            time.sleep(step)
        return cond()

    def shot(self, path):
        """A screenshot of the whole page (the window grown to the page's height)."""
        h = self.d.execute_script("return document.documentElement.scrollHeight")
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 1280, "height": max(600, min(int(h), 8000)), "deviceScaleFactor": 1,
            "mobile": False})
        self.d.save_screenshot(path)
        self.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        print("screenshot: " + path, flush=True)


def click_nav(page, name):
    page.by_css("nav a[href='/%s']" % name)[0].click()
    page.wait(lambda: page.d.title.startswith(name) or page.d.title.startswith("error"), 10)


def fill_and_send(page, fields):
    for k, v in fields.items():
        el = page.by_css("form input[name='%s']" % k)[0]
        el.clear()
        el.send_keys(v)
    old = page.d.current_url
    page.by_css("form button")[0].click()
    page.wait(lambda: page.d.current_url != old, 10)


def token_of(args):
    return open(args.token).readline().strip()


def sign_in(page, args):
    """The browser's way in to bpflabd's dashboard: /runs?token=T answers 303 to /runs
    with the cookie (HttpOnly, SameSite=Strict, the token's SHA-256)."""
    token = token_of(args)
    page.drain()
    page.d.get(args.live_url + "runs?token=" + token)
    status, location, doc = page.redirect_status("/runs?token=", "/runs")
    check("bpflabd --http: /runs?token=T answered %s to %s, then %s at %s" %
          (status, location, doc, page.d.current_url),
          status == 303 and location == "/runs" and doc == 200 and
          page.d.current_url == args.live_url + "runs")
    cookies = [c for c in page.d.get_cookies() if c["name"] == "bpflab_token"]
    want = hashlib.sha256(token.encode()).hexdigest()
    check("the token cookie: %s" % [(c.get("httpOnly"), c.get("sameSite"), c.get("path"))
                                     for c in cookies],
          len(cookies) == 1 and cookies[0]["value"] == want and cookies[0].get("httpOnly")
          and cookies[0].get("sameSite") == "Strict" and cookies[0].get("path") == "/")


def check_live(page, args, cli):
    """/runs while run B runs, in two windows: bpflabd's own dashboard signed in with the
    token cookie, and `bpflab serve`: the jobs cell advances with no reload in both,
    ends as run list -j says and as a reload shows."""
    b = args.run_b
    row = "#run-%s td" % b
    sign_in(page, args)
    wins = {"bpflabd --http, token cookie": page.d.current_window_handle}
    page.d.switch_to.new_window("window")
    page.d.get(args.url + "runs")
    wins["bpflab serve"] = page.d.current_window_handle
    seen = {}
    for name, w in wins.items():
        page.d.switch_to.window(w)
        first = page.wait(lambda: len(page.by_css(row)) > 4 and page.by_css(row)[3].text, 5)
        if not check("%s: /runs lists the running run %s (jobs %s)" % (name, b, first), first):
            return
        page.d.execute_script("window.bpflabMarker = 42")
        seen[name] = [first]

    def look(name):
        page.d.switch_to.window(wins[name])
        cells = [c.text for c in page.by_css(row)]
        if cells[3] != seen[name][-1]:
            seen[name].append(cells[3])
        return cells

    def all_advanced():
        for name in wins:
            look(name)
        return all(len(v) > 1 for v in seen.values())
    page.wait(all_advanced, 40, 0.5)
    for name in wins:
        page.d.switch_to.window(wins[name])
        check("%s: the jobs cell of run %s advanced with no reload (%s)" %
              (name, b, " -> ".join(seen[name])), len(seen[name]) > 1 and
              page.d.execute_script("return window.bpflabMarker") == 42)
    page.d.switch_to.window(wins["bpflabd --http, token cookie"])
    page.shot(os.path.join(args.shots, "dashboard-runs-live.png"))

    def ended():
        return all(look(name)[2] in ("done", "failed", "cancelled") for name in wins)
    done = page.wait(ended, 90, 0.5)
    runs, _ = cli.json("run", "list")
    want = [r for r in runs or [] if str(r["id"]) == b]
    for name in wins:
        cells = look(name)
        check("%s: run %s ended on the page with no reload: %s, jobs %s, failed %s (run "
              "list -j: %s)" % (name, b, cells[2], cells[3], cells[4], json.dumps(want)),
              done and want and cells[2] == want[0]["state"] and
              cells[3] == "%d/%d" % (want[0]["jobs_done"], want[0]["jobs_total"]) and
              cells[4] == str(want[0]["jobs_failed"]) and
              page.d.execute_script("return window.bpflabMarker") == 42)
        ok("%s: progress seen: %s" % (name, " -> ".join(seen[name])))
        page.d.refresh()
        reloaded = [c.text for c in page.by_css(row)]
        check("%s: the row of run %s updated live reads as after a reload (%s | %s)" %
              (name, b, cells, reloaded), cells == reloaded)
    page.d.switch_to.window(wins["bpflab serve"])
    page.d.close()
    page.d.switch_to.window(wins["bpflabd --http, token cookie"])


def left_out(block):
    """The rows a table of `result show` names as left out ("zero rows left out: steady
    a, probe a (...)")."""
    m = re.search(r"^zero rows? left out: ([^(]*)", block, re.M)
    return [x.strip() for x in m.group(1).split(",")] if m else []


def check_run_tables(text, report):
    """Every number of REPORT's groups (values, mean, spread) in TEXT, the table of
    `result show`, as printed: (how many checked, what was wrong)."""
    checked, bad, missing = 0, [], []
    blocks = text.split("\n\n")
    for g in report["groups"]:
        for sec in g["sections"]:
            block = next((bl for bl in blocks if bl.startswith(sec["metric"] + " ") and
                          ("(" in bl.split("\n")[0])), None)
            if block is None:
                missing.append(sec["metric"])
                continue
            lines = block.split("\n")
            for r in sec["rows"]:
                line = next((ln for ln in lines[2:]
                             if ln.split()[:2] == [r["variant"], r["subject"]]), None)
                if line is None:
                    if "%s %s" % (r["variant"], r["subject"]) not in left_out(block):
                        bad.append("%s %s %s: no row" % (sec["metric"], r["variant"],
                                                          r["subject"]))
                    continue
                toks = line.split()[2:]
                want = list(r["values"]) + [r["mean"], r["spread"]]
                toks = [t for t in toks if t not in ("±", "=")]
                if len(toks) != len(want):
                    bad.append("%s: %d numbers, -j has %d" % (line, len(toks), len(want)))
                    continue
                for t, v in zip(toks, want):
                    checked += 1
                    if not near(t, v):
                        bad.append("%s %s %s: '%s' is not %r" % (sec["metric"], r["variant"],
                                                                r["subject"], t, v))
    # the record tables (cpu.others, medians, ...) only with --all-rows: as many as it says;
    # the driver counters (nic.*, a section each in -j) are one table, "driver counters",
    # printed when it is short, else left out with the others
    m = re.search(r"^(\d+) record tables? left out", text, re.M)
    tables = [x for x in missing if not x.startswith("nic.")]
    if len(tables) < len(missing) and not any(bl.startswith("driver counters")
                                               for bl in blocks):
        tables.append("driver counters")
    if len(tables) != (int(m.group(1)) if m else 0):
        bad.append("no table of %s (%s)" % (", ".join(missing), m.group(0) if m else ""))
    return checked, bad


def check_run(page, args, cli):
    a = args.run_a
    page.d.get(args.url + "runs")
    page.by_css("#run-%s a[href='/runs/%s']" % (a, a))[0].click()
    page.wait(lambda: page.d.title.startswith("run %s" % a), 10)
    check("the link of run %s opens its page (%s)" % (a, page.d.title),
          page.d.title == "run %s - bpflab" % a)
    tables = page.text_of("#tables") or ""
    rc, want_text, err = cli.text("result", "show", a)
    check("run %s: the tables are the text of `result show %s`" % (a, a),
          rc == 0 and tables.strip("\n") == want_text.strip("\n"))
    report, err = cli.json("result", "show", a)
    if not check("result show %s -j answers (%s)" % (a, err), report is not None):
        return
    n, bad = check_run_tables(tables, report)
    check("run %s: %d numbers on the page equal result show -j as printed%s" %
          (a, n, ("; " + "; ".join(bad[:5])) if bad else ""), n > 0 and not bad)
    cells = [c.text for c in page.by_css("#hosts tr:nth-child(2) td")]
    h = report["hosts"][0]
    check("run %s: host %s, kernel %s (page: %s)" % (a, h["name"], h["kernel_release"], cells[:3]),
          cells[:1] == [h["name"]] and cells[2:3] == [h["kernel_release"]])
    details = report.get("verdict_details") or {}
    shown = {tr.find_elements("css selector", "td")[4].text
             for tr in page.by_css("#verdicts tr")[1:]}
    check("run %s: the verdicts shown (%s) are those of -j (%s)" %
          (a, sorted(shown), sorted(details)), shown == set(details))
    page.shot(os.path.join(args.shots, "dashboard-run.png"))
    check_run_seconds(page, args, cli)
    return report


def check_run_seconds(page, args, cli):
    """The repetitions' dots; a click on one opens the page with its job's per-second
    traces (?seconds=JOB, no script), the values of `result show --seconds -j`."""
    a = args.run_a
    dots = page.by_css("svg.runchart circle.rep")
    links = page.by_css("svg.runchart a")
    check("run %s: a dot per repetition (%d), each a link (%d)" % (a, len(dots), len(links)),
          len(dots) > 0 and len(links) == len(dots))
    secs, err = cli.json("result", "show", a, "--seconds")
    if not check("result show %s --seconds -j answers (%s)" % (a, err), secs is not None):
        return
    if not links:
        return
    href = links[-1].get_dom_attribute("href") or ""
    m = re.fullmatch(r"/runs/%s\?seconds=(\d+)#seconds" % a, href)
    if not check("the dot links to its job's seconds (%s)" % href, m is not None):
        return
    job = int(m.group(1))
    links[-1].find_element("css selector", "circle").click()
    page.wait(lambda: page.by_css("#seconds"), 10)
    want = [x for x in secs["series"] if x["job"] == job]
    traces = page.by_css("#seconds div.trace")
    check("a click on the dot opens its job %d's traces (%s): %d, -j %d" %
          (job, page.d.current_url, len(traces), len(want)),
          page.d.current_url.endswith(href) and len(traces) == len(want))
    n = [len(t.find_elements("css selector", "circle")) for t in traces]
    check("each trace has a point per second of -j's series (%s, -j %s)" %
          (n, [len(x["values"]) for x in want]), n == [len(x["values"]) for x in want])
    page.shot(os.path.join(args.shots, "dashboard-run-seconds.png"))


def error_page_same(page, what, err):
    """The page is the error page of CLI error ERR (the server's message, the same words
    as the CLI's, without the CLI's hint after a colon)."""
    msg = page.text_of("p") or ""
    return check("%s: the page says what the CLI says (%s | %s)" % (what, msg, err),
                 page.d.title.startswith("error 404") and
                 err.split(" (")[0].split(": '")[0] in msg)


def if_all_flagged(page, what, err, fields, shot):
    """After the CLI's error ERR for WHAT: the page says it and keeps the form FIELDS as
    sent; when every result was flagged (others took the CPUs: a busy machine), tick the
    form's include_flagged and send it again: the CLI options to compare with, else
    None."""
    error_page_same(page, what, err)
    kept = {k: page.by_css("form input[name='%s']" % k)[0].get_attribute("value")
            for k in fields}
    check("%s: the error page keeps the form as sent (%s)" % (what, kept), kept == fields)
    if "all of them flagged" not in err:
        return fail("%s: %s" % (what, err))
    skip("%s: only flagged results (disturbed: a busy machine); checked with the form's "
         "include_flagged, as --include-flagged" % what)
    box = page.by_css("form input[name='include_flagged']")[0]
    if not box.is_selected():
        box.click()
    old = page.d.current_url
    page.by_css("form button")[0].click()
    page.wait(lambda: page.d.current_url != old, 10)
    check("%s: include_flagged sent (%s)" % (what, page.d.current_url),
          "include_flagged=1" in page.d.current_url)
    page.shot(shot.replace(".png", "-flagged.png"))
    return ["--include-flagged"]


def cli_or_flagged(page, cli, opts, what, fields, shot):
    """The CLI's -j of OPTS and OPTS; when it has only flagged results, those of OPTS
    with --include-flagged after if_all_flagged; (None, OPTS) after a failure."""
    obj, err = cli.json(*opts)
    if obj is not None:
        return obj, opts
    more = if_all_flagged(page, what, err, fields, shot)
    if not more:
        return None, opts
    opts = opts + more
    obj, err = cli.json(*opts)
    check("%s -j answers (%s)" % (" ".join(opts), err), obj is not None)
    return obj, opts


def check_history(page, url, cli, plan, shot):
    """/history of PLAN's prog.ns_per_run through the form on server URL."""
    page.d.get(url + "runs")
    click_nav(page, "history")
    metric = "prog.ns_per_run"
    fill_and_send(page, {"plan": plan, "metric": metric})
    page.shot(shot)
    opts = ["result", "history", "--plan", plan, "--metric", metric]
    hist, opts = cli_or_flagged(page, cli, opts, "history of %s %s" % (plan, metric),
                                {"plan": plan, "metric": metric}, shot)
    if hist is None:
        return
    rc, want_text, _ = cli.text(*opts)
    check("history: the text is that of `%s`" % " ".join(opts),
          (page.text_of("#history") or "").strip("\n") == want_text.strip("\n"))
    titles = [c.get_attribute("textContent") for c in page.by_css("#chart circle.point title")]
    want = []
    for s in hist["series"][:8]:
        for p in s["points"]:
            def f(k, fmt):  # as web_chart.c: "-" when absent (one value: no stddev)
                return "-" if p.get(k) is None else fmt % p[k]
            want.append("%s: n %d, mean %.6g ± %s, spread %s, delta %s %%" %
                        (p["group"], p["n"], p["mean"], f("stddev", "%.3g"),
                         f("spread", "%.3g"), f("delta_pct", "%.2f")))
    check("history: %d points whose hover titles are the -j points (%s)" %
          (len(titles), " | ".join(titles[:3])), titles and titles == want)
    if titles:
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(page.d).move_to_element(page.by_css("#chart circle.point")[0]).perform()


# A row of `result compare`'s table: variant, subject, n_a/n_b, baseline and candidate
# (mean, "± stddev" but for one value), delta, verdict.
ROW = re.compile(r"^(\S+)\s+(\S+)\s+(\d+/\d+)\s+(\S+)(?: ± (\S+))?\s+(\S+)(?: ± (\S+))?"
                 r"\s+([+-]?\S+%)\s+(.*\S)\s*$")


def verdict_text(r):
    """The verdict as the compare table prints it (report_compare.c)."""
    change = (" " + r["change"]) if r["change"] else ""
    if r.get("exact"):
        return "%s%s (exact)" % (r["verdict"], change)
    if r["verdict"] == "DIFFERENT" and r["change"]:
        return "DIFFERENT" + change
    more = r.get("more_reps") or 0
    if r["verdict"] == "UNKNOWN" and more:
        return "UNKNOWN %s%d rep%s" % (">" if r.get("more_reps_capped") else "+", more,
                                       "" if more == 1 else "s")
    return r["verdict"]


def check_compare(page, url, cli, a, b, shot):
    """/compare of runs A and B through the form on server URL."""
    page.d.get(url + "runs")
    click_nav(page, "compare")
    fill_and_send(page, {"a": a, "b": b})
    page.shot(shot)
    opts = ["result", "compare", a, b]
    cmp, opts = cli_or_flagged(page, cli, opts, "compare %s %s" % (a, b), {"a": a, "b": b},
                               shot)
    if cmp is None:
        return
    rc, want_text, _ = cli.text(*opts)
    text = page.text_of("#compare") or ""
    check("compare: the text is that of `%s`" % " ".join(opts),
          text.strip("\n") == want_text.strip("\n"))
    blocks = text.split("\n\n")
    n, bad = 0, []
    for c in cmp["comparisons"]:
        for r in c["rows"]:
            block = next((bl for bl in blocks if bl.startswith(r["metric"] + " (")), "")
            # a program renamed between the runs: -j "old>new", the text the new name
            subject = r["subject"].split(">")[-1]
            line = next((ln for ln in block.split("\n")[2:]
                         if ln.split()[:2] == [r["variant"], subject]), None)
            if line is None:
                bad.append("no row %s %s %s" % (r["metric"], r["variant"], r["subject"]))
                continue
            m = ROW.match(line)
            good = bool(m) and (
                m.group(3) == "%d/%d" % (r["n_a"], r["n_b"]) and
                near(m.group(4), r["mean_a"]) and near(m.group(6), r["mean_b"]) and
                (m.group(5) is None or near(m.group(5), r["stddev_a"])) and
                (m.group(7) is None or near(m.group(7), r["stddev_b"])) and
                near(m.group(8), r["delta_pct"]) and m.group(9) == verdict_text(r))
            n += 1
            if not good:
                bad.append("%s | -j: %s n %d/%d delta %.1f" %
                           (line, verdict_text(r), r["n_a"], r["n_b"], r["delta_pct"]))
    check("compare %s %s: %d rows, n, means, stddevs, delta and verdict as -j says%s" %
          (a, b, n, ("; " + "; ".join(bad[:4])) if bad else ""), n > 0 and not bad)


def check_analysis(page, args, cli, plan):
    """History and compare on the lab's database (as the CLI: flagged results left out,
    include_flagged when none is left)."""
    check_history(page, args.url, cli, plan, os.path.join(args.shots, "dashboard-history.png"))
    check_compare(page, args.url, cli, args.run_a, args.run_b,
                  os.path.join(args.shots, "dashboard-compare.png"))


def check_hosts_bisect(page, args, cli):
    page.d.get(args.url + "runs")
    click_nav(page, "hosts")
    hosts, err = cli.json("host", "list")
    rows = [[td.text for td in tr.find_elements("css selector", "td")]
            for tr in page.by_css("table#hosts tr")[1:]]
    want = [[h["name"], h["state"], h["kernel_release"] or ""] for h in hosts or []]
    check("hosts: name, state, kernel as host list -j (%s)" % rows,
          hosts and [r[:3] for r in rows] == want)
    page.shot(os.path.join(args.shots, "dashboard-hosts.png"))
    click_nav(page, "bisect")
    ses, err = cli.json("bisect", "status")
    if ses is None:
        check("bisect: no session, the page says so (%s)" % err,
              "no bisect session" in (page.text_of("p") or ""))
    else:
        check("bisect: session %s" % ses.get("id"),
              page.d.title.startswith("bisect session %s" % ses.get("id")))
    page.shot(os.path.join(args.shots, "dashboard-bisect.png"))


def check_404(page, args):
    page.drain()
    page.d.get(args.url + "runs/999999")
    status = page.doc_status("/runs/999999")
    check("/runs/999999: status %s, title '%s', says '%s'" %
          (status, page.d.title, page.text_of("p")),
          status == 404 and page.d.title == "error 404 - bpflab" and
          page.text_of("p") == "no run 999999")
    page.shot(os.path.join(args.shots, "dashboard-404.png"))
    page.d.get(args.url + "nonesuch")
    status = page.doc_status("/nonesuch")
    check("/nonesuch: status %s, says '%s'" % (status, page.text_of("p")),
          status == 404 and "no such path '/nonesuch'" in (page.text_of("p") or ""))


def http(url, token=None):
    req = urllib.request.Request(url)
    if token is not None:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def check_token(page, args, cli):
    """bpflabd's dashboard with no cookie: 401; a wrong ?token=: 401, no cookie; the
    header: the page; urllib: none, wrong, right."""
    token = token_of(args)
    url = args.live_url + "runs/" + args.run_a
    page.d.delete_all_cookies()
    page.drain()
    page.d.get(url)
    status = page.doc_status("/runs/")
    check("token server, no token: status %s, title '%s', says '%s'" %
          (status, page.d.title, page.text_of("p")),
          status == 401 and page.d.title == "error 401 - bpflab" and
          "missing or wrong token" in (page.text_of("p") or ""))
    page.shot(os.path.join(args.shots, "dashboard-401.png"))
    page.drain()
    page.d.get(url + "?token=" + "x" * len(token))
    status = page.doc_status("/runs/")
    check("token server, a wrong ?token=: status %s, cookies %s" %
          (status, [c["name"] for c in page.d.get_cookies()]),
          status == 401 and not page.d.get_cookies())
    page.d.execute_cdp_cmd("Network.enable", {})
    page.d.execute_cdp_cmd("Network.setExtraHTTPHeaders",
                           {"headers": {"Authorization": "Bearer " + token}})
    page.drain()
    page.d.get(url)
    status = page.doc_status("/runs/")
    check("token server, header set: status %s, title '%s'" % (status, page.d.title),
          status == 200 and page.d.title == "run %s - bpflab" % args.run_a)
    page.shot(os.path.join(args.shots, "dashboard-token.png"))
    page.d.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {}})
    runs = subprocess.run(cli.base + ["-j", "run", "list"], capture_output=True).stdout
    got = [http(args.live_url + "api/runs"),
           http(args.live_url + "api/runs", "x" * len(token)),
           http(args.live_url + "api/runs", token)]
    check("urllib on the token server: none, wrong, right -> %s" % [g[0] for g in got],
          [g[0] for g in got] == [401, 401, 200])
    check("with the token /api/runs is `run list -j` byte for byte", got[2][1] == runs)


def main():
    ap = argparse.ArgumentParser()
    for k in ("url", "live-url", "token", "db", "bpflab", "run-a", "run-b", "shots",
              "profile"):
        ap.add_argument("--" + k, required=True)
    args = ap.parse_args()
    cli = Cli(args.bpflab, args.db)
    os.makedirs(args.shots, exist_ok=True)
    try:
        page = Page(args.profile)
    except Exception as e:  # no chromium, no driver, no display stack: not our failure
        print("chromium cannot start: %s" % str(e).strip().split("\n")[0], flush=True)
        return 77
    try:
        check_live(page, args, cli)
        page.shot(os.path.join(args.shots, "dashboard-runs.png"))
        report = check_run(page, args, cli)
        check_analysis(page, args, cli, report["plan"] if report else "compare")
        check_hosts_bisect(page, args, cli)
        check_404(page, args)
        check_token(page, args, cli)
    except Exception as e:
        fail("browser: %s: %s" % (type(e).__name__, str(e).strip().split("\n")[0]))
        try:
            page.shot(os.path.join(args.shots, "dashboard-failed.png"))
        except Exception:
            pass
    finally:
        page.quit()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
