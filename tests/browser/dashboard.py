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
#   /runs      on serve: the filter form (pick lists) with A's plan and state done: the
#              rows of `run list -j` of that plan and state; the id column sorts both ways
#   /runs/A    reached by its link; every number of its tables (each repetition, n,
#              mean, stddev, spread) is `result show A -j`'s (data-v exact, the text
#              within its printed rounding), no CLI hint; a table sorts by a click; its
#              history link and compare-with-previous link; host, kernel; a dot per
#              repetition, and a click on one opens its job's per-second traces (the
#              values of `result show A --seconds -j`)
#   /history   plan and metric picked and sent; each point's hover title is the -j
#              point; the table's rows are the -j points
#   /compare   a = A, b = B picked; each row's n, means, delta and verdict as -j says;
#              the chart has a bar per row
#              (both pages leave out flagged results, as the CLI by default: when they
#              have none left, the CLI's error on a page that keeps the form; the box
#              include_flagged ticked and sent, the numbers as --include-flagged's)
#   /hosts, /bisect  as `host list -j` (name, state, kernel, last seen), `bisect status -j`
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


def field(page, name):
    """The form's field NAME: a pick list (<select>) or a text box."""
    return page.by_css("form select[name='%s'], form input[name='%s']" % (name, name))[0]


def fill_and_send(page, fields):
    """Pick (a <select>: the option of that value, as a person picks it) or type each
    value of FIELDS, then press the form's button."""
    from selenium.webdriver.support.ui import Select
    for k, v in fields.items():
        el = field(page, k)
        if el.tag_name == "select":
            Select(el).select_by_value(v)
        else:
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


def table_rows(table):
    """The body rows of TABLE (a WebElement) as lists of (text, data-v) per cell (the
    text content: also of a table folded in a closed <details>)."""
    return [[(td.get_attribute("textContent"), td.get_attribute("data-v")) for td in
             tr.find_elements("css selector", "td")]
            for tr in table.find_elements("css selector", "tbody tr")]


def same(dv, value):
    """True when data-v DV (%.15g of the server) is VALUE."""
    if dv is None or value is None:
        return dv is None and value is None
    return abs(float(dv) - value) <= 1e-12 * max(1.0, abs(value))


def check_run_tables(page, report):
    """Every number of REPORT's groups (each repetition, or min/median/max beyond five,
    n, mean, stddev, spread) in the page's tables: data-v exact, the text within its
    printed rounding: (how many checked, what was wrong)."""
    checked, bad = 0, []
    reps = report.get("repeat") or 1
    for gi, g in enumerate(report["groups"]):
        for si, sec in enumerate(g["sections"]):
            t = page.by_css("#t-%d-%d" % (gi, si))
            if not t:
                bad.append("no table of %s (group %d)" % (sec["metric"], gi))
                continue
            rows = table_rows(t[0])
            for r in sec["rows"]:
                row = next((x for x in rows if [c[0] for c in x[:2]] ==
                            [r["variant"], r["subject"]]), None)
                if row is None:
                    bad.append("%s %s %s: no row" % (sec["metric"], r["variant"], r["subject"]))
                    continue
                vals = list(r["values"]) if reps <= 5 else [r["min"], r["median"], r["max"]]
                want = vals + [r["n"], r["mean"], r.get("stddev"), r.get("spread")]
                cells = row[2:2 + len(want)]
                for (text, dv), v in zip(cells, want):
                    checked += 1
                    if not (same(dv, v) and near(text.rstrip("*"), v)):
                        bad.append("%s %s %s: '%s' (%s) is not %r" % (
                            sec["metric"], r["variant"], r["subject"], text, dv, v))
    return checked, bad


def check_sort(page, css, col, what):
    """Click the header COL of table CSS twice: its body rows by that column's data-v
    ascending, then descending."""
    t = page.by_css(css)[0]
    th = t.find_elements("css selector", "thead th")[col]
    keys = []
    for _ in range(2):
        th.click()
        keys.append([float(c[col][1]) for c in table_rows(t) if c[col][1] is not None])
    check("%s: sorted by '%s' up then down (%s)" % (what, th.text.strip(" ▴▾"),
                                                    keys[0][:4]),
          len(keys[0]) > 1 and keys[0] == sorted(keys[0]) and
          keys[1] == sorted(keys[1], reverse=True))


def check_runs_filter(page, args, cli):
    """/runs on serve: pick run A's plan and state done in the filter form: the rows are
    `run list -j`'s runs of that plan and state, newest first; the id column sorts."""
    runs, err = cli.json("run", "list")
    if not check("run list -j answers (%s)" % err, runs is not None):
        return
    plan = next(r["plan"] for r in runs if str(r["id"]) == args.run_a)
    page.d.get(args.url + "runs")
    fill_and_send(page, {"plan": plan, "state": "done"})
    page.wait(lambda: page.by_css("#runs-count"), 10)
    ids = [tr.get_attribute("id") for tr in page.by_css("#runs tbody tr")]
    want = ["run-%d" % r["id"] for r in reversed(runs) if r["plan"] == plan and
            r["state"] == "done"][:50]
    check("/runs?plan=%s&state=done: %s as run list -j" % (plan, ids), ids == want and
          "plan=%s" % plan in page.d.current_url)
    page.shot(os.path.join(args.shots, "dashboard-runs-filter.png"))
    page.d.get(args.url + "runs")
    check_sort(page, "#runs", 0, "/runs")


def check_run(page, args, cli):
    a = args.run_a
    page.d.get(args.url + "runs")
    page.by_css("#run-%s a[href='/runs/%s']" % (a, a))[0].click()
    page.wait(lambda: page.d.title.startswith("run %s" % a), 10)
    check("the link of run %s opens its page (%s)" % (a, page.d.title),
          page.d.title == "run %s - bpflab" % a)
    tables = page.text_of("#tables") or ""
    check("run %s: no CLI hint and no <pre> in the tables" % a,
          "--" not in tables and not page.by_css("#tables pre"))
    report, err = cli.json("result", "show", a)
    if not check("result show %s -j answers (%s)" % (a, err), report is not None):
        return
    n, bad = check_run_tables(page, report)
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
    page.d.get(args.url + "runs/" + a)
    page.wait(lambda: page.d.title.startswith("run %s" % a), 10)
    multi = [t.get_attribute("id") for t in page.by_css("#tables table.sort")
             if len(t.find_elements("css selector", "tbody tr")) > 1]
    if check("run %s: a table with more than one row (%s)" % (a, multi[:3]), multi):
        check_sort(page, "#" + multi[0], 2, "run %s's table %s" % (a, multi[0]))
    page.shot(os.path.join(args.shots, "dashboard-run-sorted.png"))
    # the links: the plan's history (its first metric), a compare with the previous run
    page.by_css("#link-history")[0].click()
    page.wait(lambda: page.d.title.startswith("history"), 10)
    check("run %s: its history link opens /history of plan %s (%s)" %
          (a, report["plan"], page.d.current_url),
          "plan=%s" % report["plan"] in page.d.current_url and
          (page.by_css("#chart") or page.d.title.startswith("error")))
    page.shot(os.path.join(args.shots, "dashboard-run-history.png"))
    page.d.back()
    page.wait(lambda: page.d.title.startswith("run %s" % a), 10)
    runs, _ = cli.json("run", "list")
    prev = max([r["id"] for r in runs or [] if r["plan"] == report["plan"] and
                r["id"] < int(a)], default=0)
    link = page.by_css("#link-compare")
    check("run %s: compare-with-previous links to run %s (%s)" %
          (a, prev or "none", link[0].get_attribute("href") if link else "no link"),
          (link and link[0].get_attribute("href").endswith("/compare?a=%d&b=%s" % (prev, a)))
          if prev else not link)
    # run B, of the same plan: its link compares it with A
    b = args.run_b
    page.d.get(args.url + "runs/" + b)
    link = page.by_css("#link-compare")
    prev = max([r["id"] for r in runs or [] if r["plan"] == report["plan"] and
                r["id"] < int(b)], default=0)
    if check("run %s: compare-with-previous links to run %s (%s)" %
             (b, prev, link[0].get_attribute("href") if link else "no link"),
             prev and link and link[0].get_attribute("href").endswith(
                 "/compare?a=%d&b=%s" % (prev, b))):
        link[0].click()
        page.wait(lambda: page.d.title.startswith("compare") or
                  page.d.title.startswith("error"), 10)
        check("run %s: the link opens the compare of %d and %s (%s)" %
              (b, prev, b, page.d.title), "a=%d&b=%s" % (prev, b) in page.d.current_url)
        page.shot(os.path.join(args.shots, "dashboard-run-compare-previous.png"))
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
    kept = {k: field(page, k).get_attribute("value") for k in fields}
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
    rows = table_rows(page.by_css("#history-points")[0]) if page.by_css("#history-points") \
        else []
    pts = [(s, p) for s in hist["series"] for p in s["points"]]
    good = len(rows) == len(pts) and all(
        [c[0] for c in row[:5]] == [s["metric"], s["variant"], s["subject"], s["unit"],
                                    p["group"]] and same(row[6][1], p["mean"]) and
        near(row[6][0], p["mean"]) for row, (s, p) in zip(rows, pts))
    check("history: %d rows, each point's group and mean as `%s -j`" %
          (len(rows), " ".join(opts)), good)
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
    n, bad = 0, []
    for ci, c in enumerate(cmp["comparisons"]):
        t = page.by_css("#compare-%d" % ci)
        rows = table_rows(t[0]) if t else []
        for r in c["rows"]:
            row = next((x for x in rows if [k[0] for k in x[:4]] ==
                        [r["metric"], r["point"], r["variant"], r["subject"]]), None)
            if row is None:
                bad.append("no row %s %s %s" % (r["metric"], r["variant"], r["subject"]))
                continue
            # metric point variant subject unit | n_a mean_a n_b mean_b delta CI p verdict
            good = (row[5][0] == str(r["n_a"]) and row[7][0] == str(r["n_b"]) and
                    same(row[6][1], r["mean_a"]) and same(row[8][1], r["mean_b"]) and
                    near(row[6][0], r["mean_a"]) and near(row[8][0], r["mean_b"]) and
                    same(row[9][1], r["delta_pct"]) and row[12][0] == verdict_text(r))
            n += 1
            if not good:
                bad.append("%s | -j: %s n %d/%d delta %.1f" %
                           ([k[0] for k in row], verdict_text(r), r["n_a"], r["n_b"],
                            r["delta_pct"]))
    check("compare %s %s: %d rows, n, means, delta and verdict as -j says%s" %
          (a, b, n, ("; " + "; ".join(bad[:4])) if bad else ""), n > 0 and not bad)
    bars = page.by_css("#compare-chart g")
    check("compare %s %s: the chart has a bar per row (%d)" % (a, b, len(bars)),
          len(bars) == min(n, 80))
    if bars:
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(page.d).move_to_element(page.by_css("#compare-chart rect")[0]).perform()
    page.shot(shot.replace(".png", "-chart.png"))


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
            for tr in page.by_css("table#hosts tbody tr")]
    want = [[h["name"], h["state"], h["kernel_release"] or ""] for h in hosts or []]
    check("hosts: name, state, kernel as host list -j (%s)" % rows,
          hosts and [[r[0], r[1], r[3]] for r in rows] == want)
    seen = [td.get_attribute("data-v") for td in
            page.by_css("table#hosts tbody tr td:nth-child(3)")]
    # bpflabd stores a host's last contact every 5 s while this runs
    check("hosts: last seen as host list -j, within 15 s (%s)" % seen,
          hosts and len(seen) == len(hosts) and
          all(abs(int(v or 0) - (h.get("last_seen_ms") or 0)) <= 15000
              for v, h in zip(seen, hosts)))
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
        check_runs_filter(page, args, cli)
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
