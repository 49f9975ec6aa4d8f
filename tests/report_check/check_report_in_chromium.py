#!/usr/bin/env python3
"""Checks a report page (report.html) in headless Chromium: it renders, shows the plot, and logs
nothing to the browser console.

  check_report_in_chromium.py --chromium PATH REPORT.html [--screenshot OUT.png]

1. Chromium loads the page as it is; every console message (an error, an uncaught exception, a
   resource that failed to load) fails the check: the report has no scripts, so it should log none.
2. Chromium loads a copy with a probe script appended, which measures the laid-out page: the
   scatter plot's SVG must have a size on the page and hold at least one kernel point (a circle
   other than the grey baselines marker) drawn inside the plot, with its title. Text that runs
   past the plot's edge is printed as a note.
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
        measured = run_chromium(args.chromium, "file://" + probed.name,
                                ["--window-size=1200,2000", "--dump-dom"])
    finally:
        os.unlink(probed.name)
    match = re.search(r'<pre id="rkt-probe">(.*?)</pre>', measured.stdout, re.S)
    if not match:
        failures.append("the probe found no page to measure: " + measured.stderr[-2000:])
    else:
        result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
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

        # Not a failure (the page still shows the plot): printed for whoever reads the log.
        for text in result.get("clipped_text", []):
            print(f"note: plot text runs past the plot's edge and is clipped: '{text}'")

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
