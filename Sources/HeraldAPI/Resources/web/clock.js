// The time on the device: the browser's clock, or Herald's manual clock (`herald serve --clock
// manual`), which moves only when moved — here with the admin token, or elsewhere (`herald clock`,
// another page), which is why it is read again every 5 seconds.

import { $ } from "./dom.js";

/**
 * The clock, wired to the page:
 * - `state`: the page's state (`session`, and `clock`, which this keeps);
 * - `api(session, method, path, body)`: the JSON API with a session's token (the admin's to move it);
 * - `renderCenter()` (the "m ago" times follow the clock), `reportError(error)`.
 */
export function deviceClock(page) {
  const { state } = page;

  function tick() {
    const now = currentTime();
    $("status-time").textContent = now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    $("lock-clock").textContent = now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    $("lock-date").textContent = now.toLocaleDateString([], { weekday: "long", month: "long", day: "numeric" });
  }

  /** The time on the device: the browser's, or Herald's manual clock, which moves only when moved. */
  function currentTime() {
    return state.clock && state.clock.manual ? new Date(state.clock.now) : new Date();
  }

  /** Reads Herald's clock (`GET /v1/clock`); with a manual one, shows it and the controls that move it. */
  async function loadClock() {
    const clock = await page.api(state.session, "GET", "/v1/clock");
    state.clock = { manual: clock.mode === "manual", now: clock.now };
    renderClock();
  }

  function renderClock() {
    const manual = Boolean(state.clock && state.clock.manual);
    $("manual-clock").hidden = !manual;
    $("phone").dataset.clock = manual ? "manual" : "system";
    if (manual) {
      $("manual-clock-now").textContent = currentTime().toLocaleString([], {
        weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
        second: "2-digit", timeZoneName: "short",
      });
      $("manual-clock-now").dataset.now = state.clock.now;
    }
    tick();
  }

  /** Moves the manual clock with the admin token (`POST /v1/admin/clock/advance`, `PUT /v1/admin/clock`). */
  async function moveClock(method, path, body) {
    const token = $("manual-clock-token").value.trim();
    if (!token) throw new Error("Moving Herald's clock needs the admin token (the data directory's admin-token file).");
    sessionStorage.setItem("herald.adminToken", token);
    const clock = await page.api({ token }, method, path, body);
    state.clock = { manual: true, now: clock.now };
    $("control-error").textContent = "";
    renderClock();
    page.renderCenter();
  }

  function setUpClockControls() {
    $("manual-clock-token").value = sessionStorage.getItem("herald.adminToken") || "";
    for (const button of document.querySelectorAll("#manual-clock [data-advance]")) {
      button.addEventListener("click", () =>
        moveClock("POST", "/v1/admin/clock/advance", { seconds: Number(button.dataset.advance) }).catch(page.reportError));
    }
    $("manual-clock-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const value = $("manual-clock-to").value;
      if (!value) return page.reportError(new Error("Choose the date and time to move to."));
      moveClock("PUT", "/v1/admin/clock", { now: new Date(value).toISOString() }).catch(page.reportError);
    });
    // Moved elsewhere too (`herald clock`, another page): read it again now and then.
    setInterval(() => { if (state.clock && state.clock.manual) loadClock().catch(() => {}); }, 5000);
  }

  return { currentTime, load: loadClock, setUp: setUpClockControls, tick };
}
