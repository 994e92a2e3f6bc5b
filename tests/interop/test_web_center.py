"""The web notification center in Debian's Chromium (headless, driven by Selenium with Debian's
chromium-driver): a person opens the sign-in link `herald serve` prints, pushes arrive as banners
styled by their level, Focus holds a push and releases it quietly, "Why?" shows the decision's
reasons. One browser for the module (the slow part); each flow saves a screenshot the run keeps
(`.build/screenshots/`, or `$HERALD_SCREENSHOTS`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from herald_support import curl, herald_bin, wait_until

SCREENSHOTS = Path(os.environ.get("HERALD_SCREENSHOTS", Path(__file__).resolve().parents[2] / ".build" / "screenshots"))


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    options = Options()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000",
                 "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A PNG of one colour."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def shot(browser, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    return path


def console_errors(browser) -> list[str]:
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        print("\n".join(errors))
    return errors


def wait(browser, condition, timeout: float = 15):
    # The page renders again on every stream event: an element found may be replaced before it is read.
    return WebDriverWait(browser, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def open_device(browser, herald, device):
    # From a blank page: a link that differs from the page shown only in its fragment would not load.
    browser.get("about:blank")
    browser.get(f"{herald.api_url}/app/#token={device.user_token}&device={device.device_id}")
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    # The token left the address bar; the live connection is open.
    assert "token=" not in browser.current_url
    wait(browser, lambda d: d.find_element(By.ID, "status-connection").get_attribute("data-live") == "true")


@pytest.fixture
def app_device(herald):
    app = herald.new_app(herald.demo["team_id"])
    return app, herald.new_device(app)


def test_the_sign_in_link_opens_the_device_and_a_push_arrives_as_a_banner_of_its_level(herald, h2, browser, app_device):
    app, device = app_device
    # Without a session the page asks for a token.
    browser.get(f"{herald.api_url}/")
    wait(browser, ec.visibility_of_element_located((By.ID, "sign-in")))
    assert browser.current_url.endswith("/app/")

    # The app's icon, set by its developer with `herald admin icon set` (an 8 × 8 PNG), shows beside
    # its notifications.
    icon = Path(tempfile.mkdtemp()) / "icon.png"
    icon.write_bytes(png(8, 8, (0x1e, 0x88, 0xe5)))
    out = subprocess.run([herald_bin(), "admin", "icon", "set", app, str(icon), "--url", herald.api_url,
                          "--admin-token", herald.admin_token], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["icon"]["type"] == "image/png"

    open_device(browser, herald, device)
    assert browser.find_element(By.ID, "phone").get_attribute("data-locked") == "true"
    assert browser.find_element(By.ID, "center-empty").is_displayed()
    browser.find_element(By.ID, "lock-toggle").click()
    wait(browser, lambda d: d.find_element(By.ID, "phone").get_attribute("data-locked") == "false")
    state = herald.api("GET", f"/v1/devices/{device.device_id}/state", token=device.user_token).json()
    assert state["locked"] is False

    headers = herald.headers(topic=app)
    st = h2.push(device.device_token, headers, {"aps": {"alert": {"title": "Gate B12", "body": "Boarding now"},
                                                        "interruption-level": "time-sensitive", "sound": "default"}})
    assert st.status == 200, st
    banner = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#banners .banner")))
    assert "level-time-sensitive" in banner.get_attribute("class")
    assert "Gate B12" in banner.text and "time sensitive" in banner.text.lower()
    listed = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .notification")))
    assert listed.get_attribute("data-level") == "time-sensitive" and "Boarding now" in listed.text
    wait(browser, lambda d: d.execute_script(
        "const i = document.querySelector('#center .notification .app-icon'); return i.complete && i.naturalWidth") == 8)
    shot(browser, "banner-time-sensitive")

    # A passive push is listed but never a banner.
    st = h2.push(device.device_token, headers, {"aps": {"alert": {"title": "New episode", "body": "Out now"},
                                                        "interruption-level": "passive"}})
    assert st.status == 200, st
    # One app, no thread: one stack, the newest on top and "1 more notification" until expanded.
    toggle = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .stack .stack-toggle")))
    assert toggle.text == "1 more notification"
    [top] = browser.find_elements(By.CSS_SELECTOR, "#center .notification")
    assert "New episode" in top.text and top.get_attribute("data-level") == "passive"
    banners = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#banners .banner")]
    assert not any("New episode" in b for b in banners), banners
    toggle.click()
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#center .notification")) == 2)
    shot(browser, "stack-expanded")
    assert console_errors(browser) == []


def test_focus_holds_a_push_and_releases_it_quietly(herald, h2, browser, app_device):
    app, device = app_device
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    open_device(browser, herald, device)
    focus = browser.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus="do_not_disturb"] button')
    focus.click()
    wait(browser, lambda d: d.find_element(By.ID, "status-focus").is_displayed())
    assert "Do Not Disturb" in browser.find_element(By.ID, "status-focus").text

    st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": "Sale", "body": "50% off"}}})
    assert st.status == 200, st
    held = wait_until(lambda: [n for n in herald.all_notifications(device) if n["disposition"] == "heldForFocus"],
                      timeout=10, what="the push held for the Focus")
    time.sleep(0.5)
    assert browser.find_elements(By.CSS_SELECTOR, "#center .notification") == []
    shot(browser, "focus-on-held")

    browser.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus="do_not_disturb"] button').click()
    listed = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .notification")))
    assert listed.get_attribute("data-id") == held[0]["id"]
    assert listed.get_attribute("data-disposition") == "listedSilently"
    # An app with no icon set shows the generated default (a 64 × 64 SVG of its initial).
    wait(browser, lambda d: d.execute_script(
        "const i = document.querySelector('#center .notification .app-icon'); return i.complete && i.naturalWidth") == 64)
    # Released quietly: no banner.
    assert browser.find_elements(By.CSS_SELECTOR, "#banners .banner") == []
    assert not browser.find_element(By.ID, "status-focus").is_displayed()
    shot(browser, "focus-off-released")
    assert console_errors(browser) == []


def test_why_shows_the_decisions_reasons(herald, h2, browser, app_device):
    app, device = app_device
    open_device(browser, herald, device)
    st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": "Hi", "body": "There"}}})
    assert st.status == 200, st
    card = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .notification")))
    card.find_element(By.CSS_SELECTOR, "button.why").click()
    dialog = wait(browser, ec.visibility_of_element_located((By.ID, "why")))
    reasons = dialog.find_elements(By.CSS_SELECTOR, "#why-reasons li")
    n = herald.all_notifications(device)[0]
    expected = herald.api("GET", f"/v1/notifications/{n['id']}/decision?device_id={device.device_id}",
                          token=device.user_token).json()
    assert [r.text for r in reasons] == [r["sentence"] for r in expected["reasons"]]
    assert reasons, "no reasons shown"
    shot(browser, "why")
    dialog.find_element(By.ID, "why-close").click()
    # Dismissing removes it from the center.
    card.find_element(By.CSS_SELECTOR, "button.dismiss").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#center .notification") == [])
    assert herald.all_notifications(device)[0]["dismissed_at"] is not None
    assert console_errors(browser) == []


def test_the_example_app_is_allowed_and_answered_in_the_page(herald, browser):
    """The README tour's app (Examples/ReminderApp) asks permission: the page shows iOS's prompt and
    the person's Allow reaches `requestAuthorization`; the seeds' category shows its actions with
    their icons; a tap on Like and a typed comment reach the app's delegate."""
    from test_example_app import start_example_app

    device = herald.new_device()
    credential = herald.app_credential(device.device_id)
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    open_device(browser, herald, device)
    app, expect_line = start_example_app(herald, credential)

    try:
        prompt = wait(browser, ec.visibility_of_element_located((By.ID, "authorization")))
        assert "Would Like to Send You Notifications" in prompt.text
        shot(browser, "authorization-prompt")
        browser.find_element(By.ID, "authorization-allow").click()
        expect_line("authorization granted")
        expect_line("delivered comment-now")

        card = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .notification")))
        like = card.find_element(By.CSS_SELECTOR, 'button[data-action="like-action"]')
        comment = card.find_element(By.CSS_SELECTOR, 'button[data-action="comment-action"]')
        assert like.find_element(By.CSS_SELECTOR, ".action-icon").get_attribute("data-symbol") == "hand.thumbsup"
        assert comment.find_element(By.CSS_SELECTOR, ".action-icon").get_attribute("data-symbol") == "text.bubble"
        # The icon font is Herald's own file and loaded.
        assert wait(browser, lambda d: d.execute_script(
            "return [...document.fonts].some(f => f.family.replace(/\"/g, '') === 'ForkAwesome' && f.status === 'loaded')"))
        shot(browser, "actions")
        like.click()
        assert expect_line("response comment-now") == "response comment-now like-action"

        # The response changed the row (the stream re-renders the card): find the button again.
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, 'button[data-action="comment-action"]')).click()
        field = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .reply-text")))
        assert field.get_attribute("placeholder") == "Type here…"
        send = browser.find_element(By.CSS_SELECTOR, "#center .reply-send")
        assert send.text == "Post"
        field.send_keys("Nice!")
        shot(browser, "reply")
        send.click()
        assert expect_line("response comment-now") == "response comment-now comment-action text=Nice!"
        assert app.wait(timeout=10) == 0
        assert console_errors(browser) == []
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


def test_a_summary_time_shows_the_digest_card_with_the_highest_relevance_featured(herald_factory, browser):
    """On a server whose clock the test moves (`--clock manual`): three pushes held for the Scheduled
    Summary come back at the summary time as one digest card, the most relevant featured."""
    from datetime import datetime, timedelta, timezone

    from herald_support import H2Client, new_apns_id

    manual = herald_factory("web-clock", extra_args=["--clock", "manual"])
    device = manual.new_device()
    assert manual.api("PUT", "/v1/me/preferences", body={"time_zone": "UTC"}, token=device.user_token).status == 200
    r = manual.api("PUT", "/v1/me/summary", token=device.user_token, body={"times": ["08:00"], "apps": [device.bundle_id]})
    assert r.status == 200, r
    manual.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    open_device(browser, manual, device)
    with H2Client(manual.apns_url) as h2:
        for title, score in (("Low", 0.2), ("Top", 0.9), ("Mid", 0.5)):
            st = h2.push(device.device_token, manual.headers(apns_id=new_apns_id()),
                         {"aps": {"alert": {"title": title, "body": "b"}, "relevance-score": score}})
            assert st.status == 200, st
    wait_until(lambda: len([n for n in manual.all_notifications(device) if n["disposition"] == "heldForSummary"]) == 3,
               timeout=10, what="three pushes held for the summary")
    assert browser.find_elements(By.CSS_SELECTOR, "#center .notification") == []
    now = datetime.fromisoformat(manual.admin("GET", "/v1/admin/clock", expect=200)["now"].replace("Z", "+00:00"))
    slot = now.replace(hour=8, minute=0, second=0, microsecond=0)
    if slot <= now:
        slot += timedelta(days=1)
    manual.admin("POST", "/v1/admin/clock/advance", {"seconds": (slot - now).total_seconds()}, expect=200)

    card = wait(browser, ec.visibility_of_element_located((By.ID, "summary-card")))
    featured = card.find_elements(By.CSS_SELECTOR, ".featured")
    assert [f.text for f in featured] == ["Top"], card.text
    assert "2 more" in card.text
    # The released notifications are listed quietly: no banner.
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#center .stack-toggle"))
    assert browser.find_elements(By.CSS_SELECTOR, "#banners .banner") == []
    shot(browser, "summary-digest")
    assert console_errors(browser) == []


def test_hidden_previews_on_a_locked_device_show_the_placeholder_counting_the_thread(herald, h2, browser):
    app = herald.new_app(herald.demo["team_id"])
    device = herald.new_device(app)
    herald.admin("PUT", f"/v1/admin/apps/{app}/categories/chat", {
        "actions": [], "hidden_previews_body_placeholder": "%u new messages",
        "options": ["hidden_previews_show_title"]}, expect=201)
    open_device(browser, herald, device)  # locked, Show Previews When Unlocked: previews hidden
    for body in ("Are you up?", "Lunch?", "On my way"):
        st = h2.push(device.device_token, herald.headers(topic=app),
                     {"aps": {"alert": {"title": "Ana", "body": body}, "category": "chat", "thread-id": "ana"}})
        assert st.status == 200, st
    wait(browser, lambda d: "3 new messages" in d.find_element(By.ID, "center").text)
    center = browser.find_element(By.ID, "center").text
    assert "Ana" in center and "On my way" not in center, center
    shot(browser, "hidden-previews")
    # Unlocked, a new push shows its preview.
    browser.find_element(By.ID, "lock-toggle").click()
    wait(browser, lambda d: d.find_element(By.ID, "phone").get_attribute("data-locked") == "false")
    st = h2.push(device.device_token, herald.headers(topic=app),
                 {"aps": {"alert": {"title": "Ana", "body": "Here now"}, "category": "chat", "thread-id": "ana"}})
    assert st.status == 200, st
    wait(browser, lambda d: "Here now" in d.find_element(By.ID, "center").text)
    assert console_errors(browser) == []


def test_two_windows_on_two_devices_of_one_user_see_a_focus_change_live(herald, browser):
    user = herald.new_user("two-windows")
    first = herald.new_device(user=user)
    second = herald.new_device(user=user)
    open_device(browser, herald, first)
    one = browser.current_window_handle
    browser.switch_to.new_window("window")
    two = browser.current_window_handle
    try:
        open_device(browser, herald, second)
        assert not browser.find_element(By.ID, "status-focus").is_displayed()
        browser.switch_to.window(one)
        browser.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus="work"] button').click()
        wait(browser, lambda d: d.find_element(By.ID, "status-focus").text == "Work")
        browser.switch_to.window(two)
        wait(browser, lambda d: d.find_element(By.ID, "status-focus").text == "Work")
        assert browser.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus="work"]').get_attribute(
            "class") == "focus-mode active"
        shot(browser, "focus-second-window")
        assert console_errors(browser) == []
    finally:
        browser.switch_to.window(two)
        browser.close()
        browser.switch_to.window(one)


def test_device_and_app_settings_change_what_the_next_push_does(herald, h2, browser):
    """The controls beside the phone: the audio route makes a time-sensitive push announced (spoken
    with the browser's speech), an app's banner style set to None takes its banners away, and the
    Scheduled Summary's times and apps are saved as chosen."""
    from selenium.webdriver.support.ui import Select

    app = herald.new_app(herald.demo["team_id"])
    device = herald.new_device(app)
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": "First", "body": "b"}}})
    assert st.status == 200, st
    open_device(browser, herald, device)

    # Announce Notifications on (a preference of the user) and headphones on: a time-sensitive push
    # is announced, as its decision says.
    r = herald.api("PUT", "/v1/me/preferences", token=device.user_token, body={"announce": {"enabled": True}})
    assert r.status == 200, r
    Select(browser.find_element(By.ID, "audio-route")).select_by_value("headphones")
    wait_until(lambda: herald.api("GET", f"/v1/devices/{device.device_id}/state",
                                  token=device.user_token).json()["audio_route"] == "headphones",
               timeout=10, what="the audio route saved")
    st = h2.push(device.device_token, herald.headers(topic=app),
                 {"aps": {"alert": {"title": "Gate change", "body": "B12"}, "interruption-level": "time-sensitive"}})
    assert st.status == 200, st
    spoken = wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-announced"))
    pushed = [n for n in herald.all_notifications(device) if n["id"] == spoken]
    assert pushed and pushed[0]["decision"]["announce"] is True, pushed

    # The app's banner style None: the next push is listed without a banner.
    setting = wait(browser, ec.visibility_of_element_located(
        (By.CSS_SELECTOR, f'#app-settings [data-app="{app}"] select[name="alert_style"]')))
    Select(setting).select_by_value("none")
    wait_until(lambda: herald.api("GET", f"/v1/me/apps/{app}/settings", token=device.user_token)
               .json()["alert_style"] == "none", timeout=10, what="the banner style saved")
    for banner in browser.find_elements(By.CSS_SELECTOR, "#banners .banner"):
        browser.execute_script("arguments[0].remove()", banner)
    st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": "Quiet one", "body": "b"}}})
    assert st.status == 200, st
    wait(browser, lambda d: "Quiet one" in d.find_element(By.ID, "center").text)
    assert browser.find_elements(By.CSS_SELECTOR, "#banners .banner") == []

    # The Scheduled Summary: times and apps as chosen.
    times = browser.find_element(By.ID, "summary-times")
    times.clear()
    times.send_keys("07:30, 19:00")
    browser.find_element(By.CSS_SELECTOR, f'#summary-apps input[value="{app}"]').click()
    browser.find_element(By.CSS_SELECTOR, "#summary-form button[type=submit]").click()
    wait(browser, lambda d: d.find_element(By.ID, "summary-form").get_attribute("data-saved"))
    summary = herald.api("GET", "/v1/me/summary", token=device.user_token).json()
    assert summary["times"] == ["07:30", "19:00"] and summary["apps"] == [app], summary
    shot(browser, "settings")
    assert console_errors(browser) == []


def test_the_push_console_sends_through_the_apns_endpoint_answers_as_curl_does_and_logs_the_delivery(
        herald, browser, app_device):
    app, device = app_device
    open_device(browser, herald, device)
    browser.find_element(By.ID, "lock-toggle").click()  # unlocked: previews shown
    wait(browser, lambda d: d.find_element(By.ID, "phone").get_attribute("data-locked") == "false")
    # The console lists the device's own token, and the topic follows it.
    wait(browser, lambda d: d.find_element(By.ID, "console-target").get_attribute("value") == device.device_token)
    assert browser.find_element(By.ID, "console-topic").get_attribute("value") == app
    provider = herald.provider
    browser.find_element(By.ID, "console-team").send_keys(provider.team_id)
    browser.find_element(By.ID, "console-key-id").send_keys(provider.key_id)
    key = browser.find_element(By.ID, "console-key")
    browser.execute_script("arguments[0].value = arguments[1]", key, provider.key_pem)
    title = browser.find_element(By.ID, "console-title")
    title.clear()
    title.send_keys("From the console")
    Select(browser.find_element(By.ID, "console-level")).select_by_visible_text("time-sensitive")
    payload = json.loads(browser.find_element(By.ID, "console-payload").get_attribute("value"))
    assert payload["aps"]["alert"]["title"] == "From the console"
    assert payload["aps"]["interruption-level"] == "time-sensitive"

    # Sent: the endpoint's 200 and apns-id; the push arrives as a banner of its level.
    browser.find_element(By.ID, "console-send").click()
    answer = wait(browser, lambda d: d.find_element(By.ID, "console-answer")
                  if d.find_element(By.ID, "console-answer").get_attribute("data-status") else None)
    assert answer.get_attribute("data-status") == "200", answer.text
    apns_id = answer.get_attribute("data-apns-id")
    banner = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#banners .banner")))
    assert "From the console" in banner.text and "level-time-sensitive" in banner.get_attribute("class")
    # The delivery log follows it past delivery: decided, then delivered to this page's session.
    entry = f'#console-log li[data-apns-id="{apns_id}"]'
    wait(browser, lambda d: "delivered" in d.find_element(By.CSS_SELECTOR, f"{entry} .events").text)
    line = browser.find_element(By.CSS_SELECTOR, f"{entry} .delivery")
    assert line.get_attribute("data-device") == device.device_id
    assert line.get_attribute("data-disposition") == "alerted"
    assert "decided (time-sensitive, alerted)" in line.text
    stored = herald.api("GET", f"/v1/devices/{device.device_id}/notifications/{apns_id}", token=device.user_token)
    assert stored.status == 200 and stored.json()["payload"] == payload

    # Refusals read as curl reads them from the endpoint: the same status and reason.
    token = browser.find_element(By.ID, "console-token")
    token.send_keys("abc")
    browser.find_element(By.ID, "console-send").click()
    wait(browser, lambda d: d.find_element(By.ID, "console-answer").get_attribute("data-status") == "400")
    reason = browser.find_element(By.ID, "console-answer").get_attribute("data-reason")
    over_curl = curl("h2c", herald.urls, "/3/device/abc", herald.headers(topic=app),
                     json.dumps(payload).encode())
    assert (over_curl.status, over_curl.json()["reason"]) == (400, reason) == (400, "BadDeviceToken")
    token.clear()
    topic = browser.find_element(By.ID, "console-topic")
    topic.clear()
    browser.find_element(By.ID, "console-send").click()
    wait(browser, lambda d: d.find_element(By.ID, "console-answer").get_attribute("data-reason") == "MissingTopic")
    no_topic = [(k, v) for k, v in herald.headers(topic=app) if k != "apns-topic"]
    over_curl = curl("h2c", herald.urls, f"/3/device/{device.device_token}", no_topic, json.dumps(payload).encode())
    assert (over_curl.status, over_curl.json()["reason"]) == (400, "MissingTopic")
    refused = browser.find_elements(By.CSS_SELECTOR, '#console-log li[data-status="400"]')
    assert len(refused) == 2
    browser.execute_script("document.getElementById('console-payload').scrollIntoView()")
    shot(browser, "push-console")
    assert console_errors(browser) == []


def test_a_scheduled_focus_starting_and_ending_shows_in_the_open_page(herald_factory, browser):
    """On a server whose clock the test moves: a Focus schedule's window starts and ends by itself
    (no API call), and the open page shows it on and then off — `event: focus` from the policy's
    Focus service, as for a change made in the page."""
    from datetime import datetime, timedelta

    manual = herald_factory("web-focus-schedule", extra_args=["--clock", "manual"])
    device = manual.new_device()
    assert manual.api("PUT", "/v1/me/preferences", body={"time_zone": "UTC"}, token=device.user_token).status == 200
    every_day = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    r = manual.api("PUT", "/v1/me/focus-modes/work", token=device.user_token,
                   body={"schedules": [{"days": every_day, "start": "09:00", "end": "17:00"}]})
    assert r.status in (200, 201), r
    now = datetime.fromisoformat(manual.admin("GET", "/v1/admin/clock", expect=200)["now"].replace("Z", "+00:00"))
    # Start outside the window: 08:59:50 of a day to come.
    before = now.replace(hour=8, minute=59, second=50, microsecond=0)
    if before <= now:
        before += timedelta(days=1)
    manual.admin("POST", "/v1/admin/clock/advance", {"seconds": (before - now).total_seconds()}, expect=200)
    open_device(browser, manual, device)
    assert not browser.find_element(By.ID, "status-focus").is_displayed()
    # The device shows Herald's manual time, not the browser's, and the controls that move it.
    assert browser.find_element(By.ID, "manual-clock").is_displayed()
    assert "08:59" in browser.find_element(By.ID, "status-time").text
    assert browser.find_element(By.ID, "manual-clock-now").get_attribute("data-now") == before.strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")

    # Moved in the page (with the admin token) to 09:00:10: the schedule's window starts.
    browser.find_element(By.ID, "manual-clock-token").send_keys(manual.admin_token)
    browser.execute_script("document.getElementById('manual-clock-to').value = arguments[0]",
                           before.strftime("%Y-%m-%dT09:00:10"))
    browser.find_element(By.CSS_SELECTOR, "#manual-clock-form button[type=submit]").click()
    wait(browser, lambda d: d.find_element(By.ID, "manual-clock-now").get_attribute("data-now")
         == before.strftime("%Y-%m-%dT09:00:10.000Z"))
    assert manual.admin("GET", "/v1/admin/clock", expect=200)["now"] == before.strftime("%Y-%m-%dT09:00:10.000Z")
    assert "09:00" in browser.find_element(By.ID, "status-time").text
    wait(browser, lambda d: d.find_element(By.ID, "status-focus").is_displayed()
         and d.find_element(By.ID, "status-focus").text == "Work")
    wait(browser, lambda d: "active" in d.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus="work"]')
         .get_attribute("class"))
    shot(browser, "focus-scheduled-on")
    # Moved elsewhere (the admin API, as `herald clock` does): the page reads the new time.
    manual.admin("POST", "/v1/admin/clock/advance", {"seconds": 8 * 3600}, expect=200)  # 17:00:10
    wait(browser, lambda d: not d.find_element(By.ID, "status-focus").is_displayed())
    wait(browser, lambda d: d.find_element(By.ID, "manual-clock-now").get_attribute("data-now")
         == before.strftime("%Y-%m-%dT17:00:10.000Z"), timeout=20)
    shot(browser, "manual-clock")
    assert console_errors(browser) == []


def test_a_focus_is_set_up_in_the_page_people_apps_time_sensitive_and_a_schedule(herald, h2, browser, app_device):
    app, device = app_device
    # A push first, so the app is among the page's apps.
    st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": "Hi", "body": "b"}}})
    assert st.status == 200, st
    open_device(browser, herald, device)
    editor = browser.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus-editor="work"]')
    editor.find_element(By.TAG_NAME, "summary").click()
    Select(editor.find_element(By.CSS_SELECTOR, "select.filter-mode")).select_by_value("allow")
    people = editor.find_element(By.CSS_SELECTOR, "textarea.people")
    people.clear()
    people.send_keys("phone:+1 555 0100 200")
    editor.find_element(By.CSS_SELECTOR, f'fieldset.apps input[value="{app}"]').click()
    time_sensitive = editor.find_element(By.CSS_SELECTOR, "input.time-sensitive")
    if time_sensitive.is_selected():
        time_sensitive.click()
    editor.find_element(By.CSS_SELECTOR, "button.add-schedule").click()
    editor.find_element(By.CSS_SELECTOR, "button.save").click()
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus-editor="work"]')
         .get_attribute("data-saved") == "true")
    modes = herald.api("GET", "/v1/me/focus-modes", token=device.user_token).json()["focus_modes"]
    [work] = [m for m in modes if m["id"] == "work"]
    assert work["filter_mode"] == "allow"
    assert work["allowed_people"] == [{"type": "phone", "value": "+15550100200"}]
    assert work["allowed_apps"] == [app]
    assert work["allows_time_sensitive"] is False
    assert work["schedules"] == [{"days": ["mon", "tue", "wed", "thu", "fri"], "start": "09:00", "end": "17:00"}]

    # Made again from what was saved, still open; a schedule without days is refused with the API's words.
    # (Waited for: the page may render the editors once more for a stream event after the save — seen
    # once on a loaded machine, an editor without its schedule read mid-render.)
    def made_again(d):
        found = d.find_element(By.CSS_SELECTOR, '#focus-modes [data-focus-editor="work"]')
        shown = found.get_attribute("open") is not None and len(found.find_elements(By.CSS_SELECTOR, ".schedule")) == 1
        return found if shown else None

    editor = wait(browser, made_again)
    for box in editor.find_elements(By.CSS_SELECTOR, ".schedule .days input"):
        if box.is_selected():
            box.click()
    editor.find_element(By.CSS_SELECTOR, "button.save").click()
    wait(browser, lambda d: "day" in editor.find_element(By.CSS_SELECTOR, "p.error").text)
    assert "schedules[0].days" in editor.find_element(By.CSS_SELECTOR, "p.error").text
    modes = herald.api("GET", "/v1/me/focus-modes", token=device.user_token).json()["focus_modes"]
    assert [m for m in modes if m["id"] == "work"][0]["schedules"] == work["schedules"]  # unchanged
    browser.execute_script("arguments[0].scrollIntoView()", editor)
    shot(browser, "focus-settings")
    errors = [e for e in console_errors(browser) if "focus-modes/work" not in e]  # the refused PUT's 400
    assert errors == []


def test_the_users_preferences_an_apps_other_settings_and_the_location_are_set_in_the_page(
        herald, h2, browser, app_device):
    app, device = app_device
    st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": "Hi", "body": "b"}}})
    assert st.status == 200, st
    open_device(browser, herald, device)
    form = browser.find_element(By.ID, "preferences-form")
    Select(form.find_element(By.NAME, "show_previews")).select_by_value("never")
    Select(form.find_element(By.NAME, "grouping")).select_by_value("by_app")
    form.find_element(By.NAME, "announce").click()
    zone = form.find_element(By.NAME, "time_zone")
    zone.clear()
    zone.send_keys("Europe/Berlin")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser, lambda d: d.find_element(By.ID, "preferences-form").get_attribute("data-saved"))
    preferences = herald.api("GET", "/v1/me/preferences", token=device.user_token).json()
    assert (preferences["show_previews"], preferences["grouping"], preferences["time_zone"]) == (
        "never", "by_app", "Europe/Berlin")
    assert preferences["announce"]["enabled"] is True
    # A bad time zone is refused with the API's words, and nothing changes.
    zone = browser.find_element(By.CSS_SELECTOR, "#preferences-form [name=time_zone]")
    zone.clear()
    zone.send_keys("Mars/Olympus")
    browser.find_element(By.CSS_SELECTOR, "#preferences-form button[type=submit]").click()
    wait(browser, lambda d: "time_zone" in d.find_element(By.ID, "control-error").text)
    assert herald.api("GET", "/v1/me/preferences", token=device.user_token).json()["time_zone"] == "Europe/Berlin"

    # The app's other settings: Lock Screen off, its own Show Previews.
    section = browser.find_element(By.CSS_SELECTOR, f'#app-settings [data-app="{app}"]')
    section.find_element(By.CSS_SELECTOR, 'input[name="lock_screen"]').click()
    Select(section.find_element(By.CSS_SELECTOR, 'select[name="show_previews"]')).select_by_value("always")
    wait_until(lambda: herald.api("GET", f"/v1/me/apps/{app}/settings", token=device.user_token).json()
               .get("show_previews") == "always", timeout=10, what="the app's show_previews saved")
    settings = herald.api("GET", f"/v1/me/apps/{app}/settings", token=device.user_token).json()
    assert settings["lock_screen"] == "disabled"

    # The device's location.
    browser.find_element(By.ID, "location-latitude").send_keys("52.5163")
    browser.find_element(By.ID, "location-longitude").send_keys("13.3777")
    browser.find_element(By.CSS_SELECTOR, "#location-form button").click()
    wait(browser, lambda d: d.find_element(By.ID, "location-form").get_attribute("data-saved"))
    state = herald.api("GET", f"/v1/devices/{device.device_id}/state", token=device.user_token).json()
    assert state["location"] == {"latitude": 52.5163, "longitude": 13.3777}
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "preferences-form"))
    shot(browser, "preferences")
    errors = [e for e in console_errors(browser) if "/v1/me/preferences" not in e]  # the refused PUT's 400
    assert errors == []


EXTENSION_HTML = """<!doctype html>
<html><body style="margin:0;padding:10px;font:15px sans-serif;background:#fff7e6">
<h1 id="title" style="font-size:20px;margin:0">…</h1>
<p id="answer">no action yet</p><p id="media">paused</p><p id="files"></p>
<button id="open-app">Open the app</button>
<script>
const $ = (id) => document.getElementById(id);
herald.onNotification((n) => {
  $("title").textContent = n.request.content.title;
  $("files").textContent = n.request.content.attachments.map((a) => a.identifier).join(",");
  for (const a of n.request.content.attachments) {
    const img = document.createElement("img");  // the Blob through the frame's own blob: address
    img.id = "poster";
    img.src = URL.createObjectURL(a.data);
    document.body.append(img);
  }
  herald.setTitle("Invitation: " + n.request.content.title);
  herald.setContentSizeRatio(0.8);
});
herald.onAction((r) => {
  $("answer").textContent = r.actionIdentifier + (r.userText ? ":" + r.userText : "");
  if (r.actionIdentifier === "accept") return "doNotDismiss";
  if (r.actionIdentifier === "later") return "dismiss";
  return "dismissAndForwardAction";
});
herald.onMediaPlay(() => { $("media").textContent = "playing"; herald.mediaPlayingStarted(); });
herald.onMediaPause(() => { $("media").textContent = "paused"; herald.mediaPlayingPaused(); });
$("open-app").addEventListener("click", () => herald.performDefaultAction());
</script></body></html>"""


def invite_app(herald):
    """A new app on a new device with the category "invite": Accept, Later, Comment (text), Decline."""
    app = herald.new_app(herald.demo["team_id"])
    device = herald.new_device(app)
    credential = herald.app_credential(device.device_id, app)
    category = {"identifier": "invite", "actions": [
        {"identifier": "accept", "title": "Accept", "icon": {"system_image_name": "checkmark"}},
        {"identifier": "later", "title": "Later"},
        {"identifier": "comment", "title": "Comment",
         "text_input": {"button_title": "Post", "placeholder": "Say something"}},
        {"identifier": "decline", "title": "Decline", "options": ["destructive"]}]}
    assert herald.api("PUT", "/v1/app/categories", token=credential, body={"categories": [category]}).status == 200
    return app, device, credential


def test_a_content_extension_shows_the_expanded_notification_and_answers_its_actions(herald, browser):
    """An app's web content extension for its category: the expanded notification shows it in a
    sandboxed frame with the notification's content, its title and size, the media button; each action
    goes to the extension first, which keeps the view open, closes it, or forwards the action to the app."""
    from test_desktop import AppStream

    app, device, credential = invite_app(herald)
    # Set by its developer from an HTML file with `herald admin content-extension set`.
    html = Path(tempfile.mkdtemp()) / "invite.html"
    html.write_text(EXTENSION_HTML)
    out = subprocess.run([herald_bin(), "admin", "content-extension", "set", app, str(html), "--category", "invite",
                          "--size-ratio", "0.5", "--overrides-default-title", "--user-interaction",
                          "--media-button", "overlay", "--url", herald.api_url, "--admin-token", herald.admin_token],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    settings = json.loads(out.stdout)
    assert (settings["categories"], settings["initial_content_size_ratio"], settings["media_play_pause_button"],
            settings["default_content_hidden"]) == (["invite"], 0.5, "overlay", False)
    del settings["bundle_id"], settings["updated_at"]
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    open_device(browser, herald, device)
    stream = AppStream(herald, credential)

    poster = herald.api("POST", "/v1/app/attachments", token=credential, body=png(12, 6, (0xe5, 0x39, 0x35)),
                        headers={"Content-Type": "application/octet-stream",
                                 "x-herald-attachment-identifier": "poster"})
    assert poster.status == 201, poster

    def add(identifier: str, title: str, category_identifier: str = "invite", attachments=()) -> None:
        r = herald.api("POST", "/v1/app/requests", token=credential, body={
            "identifier": identifier,
            "content": {"title": title, "body": "Saturday at eight", "category_identifier": category_identifier,
                        "attachments": list(attachments)}})
        assert r.status in (200, 201), r

    def expand(identifier_title: str):
        for banner in browser.find_elements(By.CSS_SELECTOR, "#banners .banner"):  # a tap puts a banner away
            banner.click()
        card = wait(browser, lambda d: [c for c in d.find_elements(By.CSS_SELECTOR, "#center .notification")
                                        if identifier_title in c.text][0])
        card.find_element(By.CSS_SELECTOR, "button.expand").click()
        dialog = wait(browser, ec.visibility_of_element_located((By.ID, "expanded")))
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#expanded iframe").get_attribute("data-ready") == "true")
        return dialog

    def in_frame(element_id: str) -> str:
        browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "#expanded iframe"))
        try:
            return browser.find_element(By.ID, element_id).text
        finally:
            browser.switch_to.default_content()

    try:
        # Only the category with an extension expands.
        add("other", "Plain", category_identifier="plain")
        plain = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .notification")))
        assert plain.find_elements(By.CSS_SELECTOR, "button.expand") == []

        add("party", "Party", attachments=[{"attachment_id": poster.json()["attachment"]["id"]}])
        dialog = expand("Party")
        # The notification reached the extension, its attachment as a Blob the frame shows; its title
        # and its size ratio took effect.
        wait(browser, lambda d: in_frame("title") == "Party")
        assert in_frame("files") == "poster"
        browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "#expanded iframe"))
        wait(browser, lambda d: d.execute_script("const i = document.getElementById('poster'); return i.complete && i.naturalWidth") == 12)
        browser.switch_to.default_content()
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#expanded .expanded-title").text == "Invitation: Party")
        frame = browser.find_element(By.CSS_SELECTOR, "#expanded iframe")
        wait(browser, lambda d: frame.get_attribute("data-ratio") == "0.8")
        assert abs(frame.size["height"] - 0.8 * frame.size["width"]) <= 2, frame.size
        assert frame.get_attribute("sandbox") == "allow-scripts"
        # The default content is shown below it, with the category's actions.
        assert "Saturday at eight" in dialog.find_element(By.CSS_SELECTOR, ".expanded-content").text
        assert [b.get_attribute("data-action") for b in dialog.find_elements(By.CSS_SELECTOR, ".expanded-actions .action")] \
            == ["accept", "later", "comment", "decline"]

        # The media button over the frame plays and pauses the extension's media.
        media = dialog.find_element(By.CSS_SELECTOR, ".media-button.media-overlay")
        media.click()
        wait(browser, lambda d: in_frame("media") == "playing")
        assert media.get_attribute("aria-label") == "Pause"
        shot(browser, "content-extension")
        media.click()
        wait(browser, lambda d: in_frame("media") == "paused")
        wait(browser, lambda d: media.get_attribute("aria-label") == "Play")

        # Accept: the extension keeps the view open (doNotDismiss) and the app hears nothing.
        dialog.find_element(By.CSS_SELECTOR, '.expanded-actions [data-action="accept"]').click()
        wait(browser, lambda d: d.find_element(By.ID, "expanded").get_attribute("data-last-answer") == "doNotDismiss")
        assert in_frame("answer") == "accept" and dialog.is_displayed()
        # Later: the extension closes the view (dismiss), the app hears nothing.
        dialog.find_element(By.CSS_SELECTOR, '.expanded-actions [data-action="later"]').click()
        wait(browser, lambda d: not d.find_element(By.ID, "expanded").is_displayed())

        # A typed comment is forwarded with its text: the app's first response is this one.
        dialog = expand("Party")
        dialog.find_element(By.CSS_SELECTOR, '.expanded-actions [data-action="comment"]').click()
        field = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#expanded .reply-text")))
        assert field.get_attribute("placeholder") == "Say something"
        field.send_keys("Count me in")
        dialog.find_element(By.CSS_SELECTOR, ".reply-send").click()
        wait(browser, lambda d: not d.find_element(By.ID, "expanded").is_displayed())
        response = stream.next_response()
        assert (response["action_identifier"], response.get("user_text"), response["notification"]["identifier"]) == (
            "comment", "Count me in", "party")

        # With user interaction, the frame's own button works: its default action opens the app.
        expand("Party")
        browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "#expanded iframe"))
        browser.find_element(By.ID, "open-app").click()
        browser.switch_to.default_content()
        wait(browser, lambda d: not d.find_element(By.ID, "expanded").is_displayed())
        response = stream.next_response()
        assert response["action_identifier"] == "com.apple.UNNotificationDefaultActionIdentifier"

        # The other options: the default title (the app's name), default content hidden, no touches
        # (the frame is out of reach of the pointer and the keyboard), no media button.
        settings.update(overrides_default_title=False, default_content_hidden=True, user_interaction_enabled=False,
                        media_play_pause_button="none")
        herald.admin("PUT", f"/v1/admin/apps/{app}/content-extension", settings)
        dialog = expand("Party")
        wait(browser, lambda d: in_frame("title") == "Party")
        head = dialog.find_element(By.CSS_SELECTOR, ".expanded-title").text
        assert head == app.split(".")[-1].capitalize()
        assert dialog.find_elements(By.CSS_SELECTOR, ".expanded-content") == []
        assert dialog.find_elements(By.CSS_SELECTOR, ".media-button") == []
        frame = dialog.find_element(By.CSS_SELECTOR, "iframe")
        assert frame.value_of_css_property("pointer-events") == "none"
        assert frame.get_attribute("tabindex") == "-1"
        # Decline goes to an extension that forwards it.
        dialog.find_element(By.CSS_SELECTOR, '.expanded-actions [data-action="decline"]').click()
        wait(browser, lambda d: not d.find_element(By.ID, "expanded").is_displayed())
        assert stream.next_response()["action_identifier"] == "decline"

        # Removed by its developer: Expand says so, and the cards lose it.
        herald.admin("DELETE", f"/v1/admin/apps/{app}/content-extension")
        for banner in browser.find_elements(By.CSS_SELECTOR, "#banners .banner"):
            banner.click()
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#center button.expand")).click()
        wait(browser, lambda d: "no longer has a content extension" in d.find_element(By.ID, "control-error").text)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#center button.expand") == [])
        assert not browser.find_element(By.ID, "expanded").is_displayed()
        assert console_errors(browser) == []
    finally:
        stream.close()


def test_at_phone_width_the_page_fits_and_a_person_can_use_it_by_keyboard_alone(herald, browser):
    """390 CSS pixels wide (a phone): nothing wider than the screen. Then with the keyboard only: Tab
    reaches a notification's actions, Enter answers one, a reply is typed and sent, Expand opens the
    extension's view whose actions answer too, and Escape closes it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from test_desktop import AppStream

    app, device, credential = invite_app(herald)
    herald.admin("PUT", f"/v1/admin/apps/{app}/content-extension", {
        "categories": ["invite"], "html": EXTENSION_HTML, "initial_content_size_ratio": 0.5})
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    stream = AppStream(herald, credential)
    try:
        open_device(browser, herald, device)
        for identifier in ("brunch", "party"):
            r = herald.api("POST", "/v1/app/requests", token=credential, body={
                "identifier": identifier, "content": {"title": identifier.capitalize(), "body": "Saturday",
                                                      "category_identifier": "invite", "thread_identifier": identifier}})
            assert r.status in (200, 201), r
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#center .notification")) == 2)
        # A banner is put away from the keyboard too (long before it would leave by itself).
        for banner in browser.find_elements(By.CSS_SELECTOR, "#banners .banner"):
            assert banner.get_attribute("tabindex") == "0"
            banner.send_keys(Keys.ESCAPE)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#banners .banner") == [], timeout=2)

        # Nothing is wider than the screen: the page does not scroll sideways, and every part of it
        # (the phone, the controls, the push console) fits.
        wide = browser.execute_script("""
            const width = document.documentElement.clientWidth;
            const parts = [...document.querySelectorAll('#phone, .controls, .push-console, .notification, .actions, input, select, textarea, button')];
            const out = parts.filter((e) => e.offsetParent !== null && e.getBoundingClientRect().right > width + 1)
              .map((e) => (e.id || e.className || e.tagName) + ' ' + Math.round(e.getBoundingClientRect().right));
            return [document.documentElement.scrollWidth, width, out];""")
        assert wide[0] <= wide[1] and wide[2] == [], wide
        shot(browser, "phone-width")

        def press(*keys) -> None:
            ActionChains(browser).send_keys(*keys).perform()

        def active() -> dict:
            return browser.execute_script(
                "const e = document.activeElement; return {tag: e.tagName, cls: e.className, "
                "action: e.dataset.action || null, id: e.closest('[data-id]') && e.closest('[data-id]').dataset.id, "
                "text: e.textContent};")

        def tab_to(matches, limit: int = 80) -> dict:
            for _ in range(limit):
                press(Keys.TAB)
                now = active()
                if matches(now):
                    return now
            raise AssertionError(f"Tab never reached it; last focus {active()}")

        # From the top of the page: Tab to the newest notification's Accept, Enter answers it.
        browser.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        first = tab_to(lambda e: e["action"] == "accept")
        press(Keys.ENTER)
        response = stream.next_response()
        assert (response["action_identifier"], response["notification"]["identifier"]) == ("accept", "party")
        # Comment: Enter opens the reply field with the focus in it; typed text and Enter send it.
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'#center [data-id="{first["id"]}"] [data-action="comment"]'))
        browser.execute_script("arguments[0].focus()", browser.find_element(
            By.CSS_SELECTOR, f'#center [data-id="{first["id"]}"] [data-action="accept"]'))
        tab_to(lambda e: e["action"] == "comment", limit=5)
        press(Keys.ENTER)
        wait(browser, lambda d: active()["cls"] == "reply-text")
        press("See you", Keys.ENTER)
        response = stream.next_response()
        assert (response["action_identifier"], response.get("user_text")) == ("comment", "See you")

        # Expand by keyboard: the view opens with the focus on Close; Tab reaches its actions (the
        # frame, without user interaction, is skipped); Enter on Decline forwards it.
        browser.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        tab_to(lambda e: e["cls"] == "expand")
        press(Keys.ENTER)
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#expanded iframe").get_attribute("data-ready") == "true")
        assert "expanded-close" in active()["cls"]
        frame = browser.find_element(By.CSS_SELECTOR, "#expanded iframe")
        wait(browser, lambda d: frame.get_attribute("data-ratio") == "0.8")  # the extension's own ratio
        assert frame.size["width"] <= 390 and abs(frame.size["height"] - 0.8 * frame.size["width"]) <= 2
        shot(browser, "phone-width-extension")
        tab_to(lambda e: e["action"] == "decline", limit=6)
        press(Keys.ENTER)
        wait(browser, lambda d: not d.find_element(By.ID, "expanded").is_displayed())
        assert stream.next_response()["action_identifier"] == "decline"

        # Escape closes the view and nothing is answered.
        browser.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        tab_to(lambda e: e["cls"] == "expand")
        press(Keys.ENTER)
        wait(browser, lambda d: d.find_element(By.ID, "expanded").is_displayed())
        press(Keys.ESCAPE)
        wait(browser, lambda d: not d.find_element(By.ID, "expanded").is_displayed())
        assert console_errors(browser) == []
    finally:
        stream.close()
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_notification_center_groups_as_the_grouping_setting_says_with_the_categorys_summary_line(herald, browser):
    """Stacks are Herald's groups: per thread with the category's summary line ("%u more invitations
    from %@", pluralized, with the summary arguments), one per app with grouping By App, none with Off."""
    app = herald.new_app(herald.demo["team_id"])
    device = herald.new_device(app)
    credential = herald.app_credential(device.device_id, app)
    category = {"identifier": "invite", "actions": [], "category_summary_format": "%u more invitations from %@"}
    assert herald.api("PUT", "/v1/app/categories", token=credential, body={"categories": [category]}).status == 200
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    open_device(browser, herald, device)
    for identifier, thread, sender in [("a", "party", "Ana"), ("b", "party", "Ben"), ("c", "party", "Cy"),
                                       ("d", "lunch", "Dee")]:
        r = herald.api("POST", "/v1/app/requests", token=credential, body={
            "identifier": identifier, "content": {
                "title": f"{sender} is in", "body": thread, "category_identifier": "invite",
                "thread_identifier": thread, "summary_argument": sender}})
        assert r.status in (200, 201), r

    def stacks() -> list[tuple[int, str | None]]:
        out = []
        for stack in browser.find_elements(By.CSS_SELECTOR, "#center .stack"):
            toggle = stack.find_elements(By.CSS_SELECTOR, ".stack-toggle")
            out.append((len(stack.find_elements(By.CSS_SELECTOR, ".notification")), toggle[0].text if toggle else None))
        return out

    # Automatic: a stack per thread; the party's line is the category's, as the server words it.
    threads = herald.api("GET", f"/v1/devices/{device.device_id}/threads", token=device.user_token).json()["threads"]
    party = [t for t in threads if t["thread_id"] == "party"][0]
    assert party["summary"] == "2 more invitations from Ben and Ana", party
    wait(browser, lambda d: sorted(stacks(), key=str) == sorted([(1, None), (1, party["summary"])], key=str))
    shot(browser, "thread-summary-line")

    # By App: one stack of four; Off: four stacks of one.
    form = browser.find_element(By.ID, "preferences-form")
    Select(form.find_element(By.NAME, "grouping")).select_by_value("by_app")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    [by_app] = wait_until(lambda: [t for t in herald.api("GET", f"/v1/devices/{device.device_id}/threads",
                                                      token=device.user_token).json()["threads"]
                                   if t["grouping"] == "by_app"], timeout=10, what="grouping by app saved")
    assert by_app["summary"].startswith("3 more invitations from "), by_app
    wait(browser, lambda d: stacks() == [(1, by_app["summary"])])
    Select(browser.find_element(By.CSS_SELECTOR, "#preferences-form [name=grouping]")).select_by_value("off")
    browser.find_element(By.CSS_SELECTOR, "#preferences-form button[type=submit]").click()
    wait(browser, lambda d: stacks() == [(1, None)] * 4)
    assert console_errors(browser) == []


def wav(samples: int = 800) -> bytes:
    """A WAV file: 8 kHz, mono, 8-bit PCM, a square wave."""
    import struct

    data = bytes((200 if (i // 8) % 2 else 56) for i in range(samples))
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_sound_plays_as_the_decision_says_and_critical_through_a_silent_ringer(herald, h2, browser, app_device):
    app, device = app_device
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    assert herald.api("PUT", f"/v1/me/apps/{app}/settings", token=device.user_token,
                      body={"critical_alerts": "enabled"}).status == 200
    open_device(browser, herald, device)

    def push(title: str, **aps) -> str:
        st = h2.push(device.device_token, herald.headers(topic=app), {"aps": {"alert": {"title": title}, **aps}})
        assert st.status == 200, st
        return wait_until(lambda: [n["id"] for n in herald.all_notifications(device) if n["alert"]["title"] == title],
                          timeout=10, what=title)[0]

    def sounds() -> list[str]:
        return (browser.find_element(By.TAG_NAME, "body").get_attribute("data-sounds") or "").split()

    with_sound = push("With sound", sound="default")
    wait(browser, lambda d: sounds() == [f"{with_sound}:normal"])
    silent_push = push("No sound")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'#center [data-id="{silent_push}"]'))
    assert sounds() == [f"{with_sound}:normal"]

    # The ringer silenced in the page: a sound does not play; a critical alert's does.
    browser.find_element(By.ID, "ringer-silent").click()
    wait_until(lambda: herald.api("GET", f"/v1/devices/{device.device_id}/state",
                                  token=device.user_token).json()["ringer_silent"], timeout=10, what="ringer silent")
    quiet = push("Silenced", sound="default")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'#center [data-id="{quiet}"]'))
    critical = push("Critical", sound={"critical": 1, "name": "default", "volume": 1.0}, **{"interruption-level": "critical"})
    wait(browser, lambda d: sounds() == [f"{with_sound}:normal", f"{critical}:critical"])
    card = browser.find_element(By.CSS_SELECTOR, f'#center [data-id="{critical}"]')
    assert card.get_attribute("data-level") == "critical" and "Critical" in card.text
    assert console_errors(browser) == []


def test_a_communication_notification_shows_its_avatar_and_sender_with_its_image_and_audio(herald, browser):
    app = herald.new_app(herald.demo["team_id"])
    device = herald.new_device(app)
    credential = herald.app_credential(device.device_id, app)
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    open_device(browser, herald, device)

    def upload(data: bytes, identifier: str) -> str:
        r = herald.api("POST", "/v1/app/attachments", token=credential, body=data,
                       headers={"Content-Type": "application/octet-stream", "x-herald-attachment-identifier": identifier})
        assert r.status == 201, r
        return r.json()["attachment"]["id"]

    avatar, photo, voice = upload(png(16, 16, (0x8e, 0x24, 0xaa)), "avatar"), upload(png(40, 20, (0x43, 0xa0, 0x47)), "photo"), upload(wav(), "voice")
    r = herald.api("POST", "/v1/app/requests", token=credential, body={"identifier": "m1", "content": {
        "title": "New message", "body": "Look at this, and listen",
        "communication": {"kind": "message", "sender": {"handle": "ana@example.com", "handle_type": "email",
                                                        "display_name": "Ana Lima"}},
        "attachments": [{"attachment_id": avatar, "avatar": True}, {"attachment_id": photo}, {"attachment_id": voice}]}})
    assert r.status in (200, 201), r
    card = wait(browser, ec.visibility_of_element_located((By.CSS_SELECTOR, "#center .notification")))
    # The sender's name is the title; the avatar is the sender's image, not an attachment.
    assert card.find_element(By.CSS_SELECTOR, ".title").text == "Ana Lima"
    wait(browser, lambda d: d.execute_script(
        "const i = document.querySelector('#center .notification img.avatar'); return i && i.complete && i.naturalWidth") == 16)
    # The image inline; the audio playable (its metadata loads from Herald: 800 samples at 8 kHz).
    wait(browser, lambda d: d.execute_script(
        "const i = document.querySelector('#center .notification img.attachment'); return i && i.complete && i.naturalWidth") == 40)
    duration = browser.execute_script("""
        const a = document.querySelector('#center .notification audio.attachment');
        if (!a || !a.controls) return -1;
        return new Promise((done) => { a.addEventListener('loadedmetadata', () => done(a.duration)); a.preload = 'metadata'; a.load(); });""")
    assert abs(duration - 0.1) < 0.01, duration
    for banner in browser.find_elements(By.CSS_SELECTOR, "#banners .banner"):
        banner.click()
    shot(browser, "communication")
    assert console_errors(browser) == []


def test_signing_in_with_a_token_and_out_and_a_wrong_token_is_told(herald, browser):
    """Without the link: the sign-in form opens the device with a user token and a device id; Sign out
    forgets them; a token that is not the device owner's is refused in the API's words."""
    device = herald.new_device()
    browser.get("about:blank")
    browser.get(f"{herald.api_url}/app/")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{herald.api_url}/app/")
    wait(browser, ec.visibility_of_element_located((By.ID, "sign-in")))
    browser.find_element(By.ID, "sign-in-token").send_keys(device.user_token)
    browser.find_element(By.ID, "sign-in-device").send_keys(device.device_id)
    browser.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    assert browser.find_element(By.ID, "device-name").text == device.device_id
    wait(browser, lambda d: d.find_element(By.ID, "status-connection").get_attribute("data-live") == "true")

    browser.find_element(By.ID, "sign-out").click()
    wait(browser, ec.visibility_of_element_located((By.ID, "sign-in")))
    assert browser.execute_script("return sessionStorage.getItem('herald.token')") is None

    # Another user's token for this device: the device is not theirs, and the page says so.
    other = herald.new_device()
    browser.find_element(By.ID, "sign-in-token").send_keys(other.user_token)
    browser.find_element(By.ID, "sign-in-device").send_keys(device.device_id)
    browser.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    wait(browser, lambda d: d.find_element(By.ID, "sign-in-error").text.startswith("Could not open the device:"))
    assert not browser.find_element(By.ID, "device").is_displayed()
    errors = [e for e in console_errors(browser) if device.device_id not in e]  # the refused reads' 404s
    assert errors == []
