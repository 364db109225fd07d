#!/usr/bin/env python3
"""page_test.py: lesson 11's page in a real browser (headless Chromium).

Starts poem_server on a free port, opens its page, types acrostic heads, picks
a form, presses "write", waits for the stream to end and checks that the page
shows a poem of four lines, each beginning with its head character, and a card
of candidates for every character the model drew. Saves a screenshot.

    /usr/bin/python3 tests/browser/page_test.py POEM_SERVER SCREENSHOT.png

Needs Debian's chromium, chromium-driver and python3-selenium
(scripts/install_deps.sh --browser); without them it exits 77 (ctest: skipped).
"""
import os
import re
import shutil
import subprocess
import sys
import time

SKIP = 77
HEADS = "春花秋月"


def main():
    if len(sys.argv) != 3:
        print("usage: page_test.py POEM_SERVER SCREENSHOT.png", file=sys.stderr)
        return 2
    server_path, screenshot = sys.argv[1], sys.argv[2]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select, WebDriverWait
    except ImportError:
        print("skipped: python3-selenium is not installed (scripts/install_deps.sh --browser)")
        return SKIP
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        print("skipped: chromium and chromium-driver are not installed "
              "(scripts/install_deps.sh --browser)")
        return SKIP

    server = subprocess.Popen([server_path, "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        port = re.search(r":(\d+)/", first)
        if not port:
            print(f"poem_server did not start: {first!r}", file=sys.stderr)
            return 1
        url = f"http://127.0.0.1:{port.group(1)}/"

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1100,900", "--no-proxy-server"):
            options.add_argument(flag)
        browser = webdriver.Chrome(service=Service(driver), options=options)
        try:
            browser.get(url)
            browser.find_element(By.ID, "heads").send_keys(HEADS)
            Select(browser.find_element(By.ID, "form")).select_by_visible_text("七绝")
            browser.find_element(By.ID, "write").click()
            poem = browser.find_element(By.ID, "poem")
            WebDriverWait(browser, 60).until(
                lambda b: poem.get_attribute("data-state") in ("done", "error"))
            status = browser.find_element(By.ID, "status").text
            if poem.get_attribute("data-state") != "done":
                print(f"the page shows an error: {status}", file=sys.stderr)
                return 1
            lines = [l.text for l in poem.find_elements(By.CLASS_NAME, "line")]
            cards = browser.find_elements(By.CLASS_NAME, "step")
            bars = browser.find_elements(By.CSS_SELECTOR, ".step .bar")
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            browser.save_screenshot(screenshot)
        finally:
            browser.quit()
    finally:
        server.terminate()
        server.wait(timeout=30)

    print(f"the page wrote: {' / '.join(lines)} ({status})")
    problems = []
    if len(lines) != 4:
        problems.append(f"{len(lines)} lines, not 4")
    for head, line in zip(HEADS, lines):
        if not line.startswith(head):
            problems.append(f"the line {line!r} does not begin with {head}")
        if len(line) != 8:  # 七绝: seven characters and its punctuation
            problems.append(f"the line {line!r} is not seven characters and a mark")
    drawn = sum(len(line) - 2 for line in lines)  # the head and the mark are put there
    if len(cards) != 4 * 8 or len(bars) != 5 * drawn:
        problems.append(f"{len(cards)} cards and {len(bars)} bars: expected 32 and {5 * drawn}")
    if server.returncode != 0:
        problems.append(f"poem_server exited {server.returncode} after SIGTERM")
    for p in problems:
        print(f"FAILED: {p}", file=sys.stderr)
    print(f"screenshot: {screenshot}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
