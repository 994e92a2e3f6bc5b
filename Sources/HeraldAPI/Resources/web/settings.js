// The controls that are the person's settings: their own defaults (Show Previews, grouping,
// Announce, time zone, language), each app's settings as iOS lists them, the Scheduled Summary's times
// and apps, and the device's location. Each is read from and saved to the JSON API.

import { $, element, appName } from "./dom.js";

/**
 * The settings panel, wired to the page:
 * - `state`: the page's state (`notifications`, and what this keeps: `preferences`, `summary`,
 *   `appSettings`);
 * - `api(method, path, body)`: the JSON API with the user's token;
 * - `appIcon(bundleID)`, `loadFocus()`, `putDeviceState(fields)`, `reportError(error)`,
 *   `refreshThreads()` (Notification Center's groups follow the grouping settings).
 */
export function settingsPanel(page) {
  const { state } = page;

  /** The apps to show settings for: those with notifications on this device, and those in the summary. */
  function knownApps() {
    const apps = new Set([...state.notifications.values()].map((n) => n.bundle_id));
    for (const app of (state.summary && state.summary.apps) || []) apps.add(app);
    return [...apps].sort();
  }

  async function loadSettings() {
    state.preferences = await page.api("GET", "/v1/me/preferences");
    renderPreferences();
    state.summary = await page.api("GET", "/v1/me/summary");
    const apps = knownApps();
    state.appSettings = {};
    for (const app of apps) {
      state.appSettings[app] = await page.api("GET", `/v1/me/apps/${encodeURIComponent(app)}/settings`);
    }
    renderSettings();
    const next = await page.api("GET", "/v1/me/summary/next");
    $("summary-next").textContent = next.deliver_at ? `Next summary: ${new Date(next.deliver_at).toLocaleString()}` : "";
  }

  function renderSettings() {
    const summary = state.summary || { times: [], apps: [] };
    const times = $("summary-times");
    if (document.activeElement !== times) times.value = (summary.times || []).join(", ");
    const fieldset = $("summary-apps");
    fieldset.replaceChildren(element("legend", null, "Apps in the summary"));
    const apps = knownApps();
    for (const app of apps) {
      const label = element("label", "check");
      const box = element("input");
      box.type = "checkbox";
      box.value = app;
      box.checked = (summary.apps || []).includes(app);
      label.append(box, document.createTextNode(appName(app)));
      fieldset.append(label);
    }
    const list = $("app-settings");
    list.replaceChildren();
    for (const app of apps) list.append(appSettingsForm(app, state.appSettings[app] || {}));
  }

  /** One app's settings as iOS lists them: allowed, banner style, sounds, badges, time sensitive,
   *  scheduled delivery. Each change is saved at once (`PUT /v1/me/apps/{bundle_id}/settings`). */
  function appSettingsForm(app, settings) {
    const box = element("section", "app-setting");
    box.dataset.app = app;
    const title = element("h4");
    title.append(page.appIcon(app), document.createTextNode(appName(app)));
    box.append(title);
    const save = (fields) => page.api("PUT", `/v1/me/apps/${encodeURIComponent(app)}/settings`, fields)
      .then((saved) => {
        state.appSettings[app] = saved;
        page.refreshThreads();
      })
      .catch(page.reportError);
    const toggle = (key, label, checked, fields) => {
      const row = element("label", "check");
      const input = element("input");
      input.type = "checkbox";
      input.name = key;
      input.checked = checked;
      input.addEventListener("change", () => save(fields(input.checked)));
      row.append(input, document.createTextNode(label));
      box.append(row);
    };
    const allowed = !["denied"].includes(settings.authorization_status);
    toggle("allow", "Allow Notifications", allowed, (on) => ({ authorization_status: on ? "authorized" : "denied" }));
    const style = element("label", "field", "Banner Style");
    const select = element("select");
    select.name = "alert_style";
    for (const value of ["none", "banner", "alert"]) {
      const option = element("option", null, { none: "None", banner: "Temporary", alert: "Persistent" }[value]);
      option.value = value;
      select.append(option);
    }
    select.value = settings.alert_style || "banner";
    select.addEventListener("change", () => save({ alert_style: select.value }));
    style.append(select);
    box.append(style);
    // Per-app switches are `UNNotificationSetting`s: enabled, disabled or not_supported (not shown).
    for (const [key, label] of [["sound", "Sounds"], ["badge", "Badges"], ["lock_screen", "Lock Screen"],
      ["notification_center", "Notification Center"], ["time_sensitive", "Time Sensitive Notifications"],
      ["critical_alerts", "Critical Alerts"], ["scheduled_delivery", "Scheduled Summary"],
      ["direct_messages_in_summary", "Direct Messages in the Summary"], ["announcement", "Announce Notifications"],
      ["car_play", "Show in CarPlay"]]) {
      if (settings[key] === undefined || settings[key] === "not_supported") continue;
      toggle(key, label, settings[key] === "enabled", (on) => ({ [key]: on ? "enabled" : "disabled" }));
    }
    // Show Previews and grouping: the app's own choice, or the user's default (null).
    const choice = (key, label, options) => {
      const field = element("label", "field", label);
      const menu = element("select");
      menu.name = key;
      for (const [value, text] of options) {
        const option = element("option", null, text);
        option.value = value;
        menu.append(option);
      }
      menu.value = settings[key] || "";
      menu.addEventListener("change", () => save({ [key]: menu.value === "" ? null : menu.value }));
      field.append(menu);
      box.append(field);
    };
    choice("show_previews", "Show Previews", [["", "Default"], ["always", "Always"], ["when_unlocked", "When Unlocked"], ["never", "Never"]]);
    choice("grouping", "Notification Grouping", [["", "Default"], ["automatic", "Automatic"], ["by_app", "By App"], ["off", "Off"]]);
    return box;
  }

  /** The user's own defaults: Show Previews, grouping, Announce Notifications (and for which apps),
   *  time zone and language (`PUT /v1/me/preferences`). */
  function renderPreferences() {
    const preferences = state.preferences;
    if (!preferences) return;
    const form = $("preferences-form");
    if (form.contains(document.activeElement)) return; // being edited
    form.elements.show_previews.value = preferences.show_previews;
    form.elements.grouping.value = preferences.grouping;
    form.elements.announce.checked = preferences.announce.enabled;
    form.elements.announce_apps.value = preferences.announce.apps.join(", ");
    form.elements.time_zone.value = preferences.time_zone;
    form.elements.locale.value = preferences.locale;
  }

  async function savePreferences(event) {
    event.preventDefault();
    const form = $("preferences-form");
    try {
      state.preferences = await page.api("PUT", "/v1/me/preferences", {
        show_previews: form.elements.show_previews.value,
        grouping: form.elements.grouping.value,
        announce: {
          enabled: form.elements.announce.checked,
          apps: form.elements.announce_apps.value.split(",").map((a) => a.trim()).filter(Boolean),
        },
        time_zone: form.elements.time_zone.value.trim(),
        locale: form.elements.locale.value.trim(),
      });
      form.dataset.saved = String(Date.now());
      $("control-error").textContent = "";
      renderPreferences();
      page.refreshThreads();
      await page.loadFocus(); // the Focus schedules follow the time zone
    } catch (error) {
      page.reportError(error);
    }
  }

  /** The device's reported location (location triggers fire on crossing their regions). */
  async function saveLocation(event) {
    event.preventDefault();
    const latitude = $("location-latitude").value.trim();
    const longitude = $("location-longitude").value.trim();
    const location = latitude === "" && longitude === "" ? null : { latitude: Number(latitude), longitude: Number(longitude) };
    if (await page.putDeviceState({ location })) $("location-form").dataset.saved = String(Date.now());
  }

  async function saveSummary(event) {
    event.preventDefault();
    try {
      const times = $("summary-times").value.split(",").map((t) => t.trim()).filter(Boolean);
      const apps = [...$("summary-apps").querySelectorAll("input:checked")].map((box) => box.value);
      state.summary = await page.api("PUT", "/v1/me/summary", { times, apps });
      $("summary-form").dataset.saved = String(Date.now());
      await loadSettings();
    } catch (error) {
      page.reportError(error);
    }
  }

  function setUp() {
    $("summary-form").addEventListener("submit", saveSummary);
    $("preferences-form").addEventListener("submit", savePreferences);
    $("location-form").addEventListener("submit", (event) => saveLocation(event).catch(page.reportError));
  }

  return { knownApps, load: loadSettings, setUp };
}
