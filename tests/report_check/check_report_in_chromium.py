#!/usr/bin/env python3
"""Checks a report page (report.html) in headless Chromium: it renders, shows the plot, and logs
nothing to the browser console.

  check_report_in_chromium.py --chromium PATH REPORT.html [--screenshot OUT.png]

1. Chromium loads the page as it is; every console message (an error, an uncaught exception, a
   resource that failed to load) fails the check: the report has no scripts, so it should log none.
2. Chromium loads a copy with a probe script appended, which measures the laid-out page: the
   scatter plot's SVG must have a size on the page and hold at least one kernel point (a circle
   other than the grey baselines marker) drawn inside the plot, with its title, and a mark for
   every failed kernel of the tables. At 1400 and 800 px windows no table may run past the
   page's right edge unless it scrolls inside a frame of its own (overflow-x: auto) that fits,
   and the page may be no wider than the window. Text that runs past the plot's edge is printed
   as a note.
3. With --screenshot, Chromium renders the page to a PNG for a person to look at.
Prints one line per finding and "report check: N passed, M failed"; exits 1 on any failure.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROBE = """
<script>
(function () {
  const result = {svg_width: 0, svg_height: 0, points: 0, points_inside: 0, titles: [],
                  clipped_text: []};
  const svg = document.querySelector('svg');
  if (svg) {
    const box = svg.getBoundingClientRect();
    result.svg_width = box.width;
    result.svg_height = box.height;
    for (const circle of svg.querySelectorAll('circle')) {
      const title = circle.querySelector('title');
      const name = title ? title.textContent : '';
      if (name === 'baselines') continue;
      const r = circle.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      result.points += 1;
      if (r.left >= box.left && r.right <= box.right && r.top >= box.top &&
          r.bottom <= box.bottom && getComputedStyle(circle).visibility !== 'hidden') {
        result.points_inside += 1;
        result.titles.push(name);
      }
    }
    for (const text of svg.querySelectorAll('text')) {
      const r = text.getBoundingClientRect();
      if (r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom) {
        result.clipped_text.push(text.textContent.slice(0, 60));
      }
    }
  }
  // The page at this window width: a table wider than the window must scroll inside a frame of
  // its own (an ancestor with overflow-x auto or scroll that itself fits), and nothing may push
  // the page past the window's right edge.
  const view = document.documentElement.clientWidth;
  result.view_width = view;
  result.page_width = document.documentElement.scrollWidth;
  result.overflowing_tables = [];
  for (const table of document.querySelectorAll('table')) {
    let frame = null;
    for (let node = table.parentElement; node && node !== document.body; node = node.parentElement) {
      const overflow = getComputedStyle(node).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') { frame = node; break; }
    }
    const box = (frame || table).getBoundingClientRect();
    if (box.right > view + 0.5) {
      let node = table;  // the table's heading: the one just before it or its frame
      while (node && !(node.previousElementSibling &&
                       /^H[1-6]$/.test(node.previousElementSibling.tagName))) {
        node = node.parentElement;
      }
      const heading = node ? node.previousElementSibling.textContent : 'a table';
      result.overflowing_tables.push('"' + heading.slice(0, 60) + '"' +
                                     ' (' + Math.round(table.getBoundingClientRect().width) + ' px' +
                                     (frame ? ', its frame too wide)' : ', no scroll frame)'));
    }
  }
  // Every failed kernel of the tables has a mark in the plot.
  result.failed_rows = document.querySelectorAll('td.FAIL').length;
  result.failed_marks = svg ? svg.querySelectorAll('[data-verdict="FAIL"]').length : 0;
  const out = document.createElement('pre');
  out.id = 'rkt-probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
})();
</script>
"""

TIMEOUT_SECONDS = 120  # [s] one Chromium run; a page this size loads in about a second


def run_chromium(chromium, url, extra):
    command = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
               "--enable-logging=stderr", "--v=0", *extra, url]
    with tempfile.TemporaryDirectory() as profile:
        command.insert(1, "--user-data-dir=" + profile)
        return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)


WIDTHS = (1400, 800)  # [px] the window widths the page is checked at: a desktop, half of one


def check_layout(measured, width, failures, passes):
    """The probe's findings at one window width: the plot (at the first width only), tables that
    run off the page, failed kernels missing from the plot."""
    match = re.search(r'<pre id="rkt-probe">(.*?)</pre>', measured.stdout, re.S)
    if not match:
        failures.append(f"at {width} px the probe found no page to measure: "
                        + measured.stderr[-2000:])
        return
    result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&")
                        .replace("&lt;", "<").replace("&gt;", ">"))
    if width == WIDTHS[0]:
        if result["svg_width"] < 100 or result["svg_height"] < 100:
            failures.append(f"the plot is not shown: its SVG is {result['svg_width']} x "
                            f"{result['svg_height']} px on the page")
        elif result["points_inside"] < 1:
            failures.append(f"the plot shows no kernel point ({result['points']} drawn, none "
                            "visible inside the plot)")
        else:
            passes.append(f"plot {result['svg_width']:.0f} x {result['svg_height']:.0f} px with "
                          f"{result['points_inside']} kernel points: "
                          + "; ".join(result["titles"]))
        if result["failed_marks"] < result["failed_rows"]:
            failures.append(f"the plot marks {result['failed_marks']} failed kernels, the tables "
                            f"list {result['failed_rows']}")
        # Not a failure (the page still shows the plot): printed for whoever reads the log.
        for text in result.get("clipped_text", []):
            print(f"note: plot text runs past the plot's edge and is clipped: '{text}'")
    if result["overflowing_tables"]:
        failures.append(f"at {width} px a table runs past the page's right edge "
                        f"({result['view_width']} px): " + "; ".join(result["overflowing_tables"]))
    elif result["page_width"] > result["view_width"]:
        failures.append(f"at {width} px the page is {result['page_width']} px wide, wider than "
                        f"the window ({result['view_width']} px)")
    else:
        passes.append(f"at {width} px every table fits or scrolls in its own frame")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("report")
    args = parser.parse_args()
    report = os.path.abspath(args.report)
    failures, passes = [], []
    if not args.chromium or not shutil.which(args.chromium):
        print(f"FAILED: no Chromium ('{args.chromium}'): tools/bootstrap.sh installs Debian's "
              "chromium package")
        print("report check: 0 passed, 1 failed")
        return 1

    loaded = run_chromium(args.chromium, "file://" + report, ["--dump-dom"])
    console = [line for line in loaded.stderr.splitlines() if ":CONSOLE" in line]
    if loaded.returncode != 0 or "</html>" not in loaded.stdout:
        failures.append(f"Chromium did not render {report} (exit {loaded.returncode}): "
                        + loaded.stderr[-2000:])
    elif console:
        failures.append("console messages while loading the report:\n  " + "\n  ".join(console))
    else:
        passes.append("renders with no console messages")

    with open(report, encoding="utf-8") as source:
        page = source.read()
    probed_page = re.sub(r"</body>", PROBE + "</body>", page, count=1)
    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as probed:
        probed.write(probed_page)
    try:
        for width in WIDTHS:
            measured = run_chromium(args.chromium, "file://" + probed.name,
                                    [f"--window-size={width},2000", "--dump-dom"])
            check_layout(measured, width, failures, passes)
    finally:
        os.unlink(probed.name)

    if args.screenshot:
        shot = run_chromium(args.chromium, "file://" + report,
                            ["--window-size=1200,1500", "--screenshot=" + args.screenshot])
        size = os.path.getsize(args.screenshot) if os.path.exists(args.screenshot) else 0
        if shot.returncode != 0 or size < 10000:
            failures.append(f"no screenshot (exit {shot.returncode}, {size} bytes)")
        else:
            passes.append(f"screenshot {args.screenshot} ({size} bytes)")

    for line in passes:
        print("ok:", line)
    for line in failures:
        print("FAILED:", line)
    print(f"report check: {len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
