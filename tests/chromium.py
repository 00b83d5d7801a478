"""Headless Chromium for the page tests, driven with Selenium and Debian's chromedriver.

Debian builds `chromium-driver` from the same source as `chromium`, so the two always match and nothing is
downloaded (Playwright pins its own browser builds and wants `playwright install`). Every host name resolves to
nothing, so a page that reached for the network would show it."""

import os
import shutil

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def start_chromium(width: int = 1280, height: int = 900):
    """A headless Chromium with no network, or skip the test when the Debian packages are missing."""
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip("Chromium test skipped: install the Debian packages `chromium chromium-driver` "
                    "(make test does)")
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not look for drivers online
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
                "--host-resolver-rules=MAP * ~NOTFOUND", f"--window-size={width},{height}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
