// Herald's web notification center: one device of the signed-in user, as a phone shows it — the
// Lock Screen, banners for what alerts, Notification Center's stacks per app and thread — kept live
// by the device's stream (Server-Sent Events), with the device's controls beside it. Plain ES
// modules and the JSON API only: no build step, nothing fetched from outside Herald.

import { startConsole } from "./console.js";
import { contentExtensions } from "./extension.js";
import { focusEditor } from "./focus.js";

const $ = (id) => document.getElementById(id);

// ---- Session -------------------------------------------------------------------------------------

/** The token and device: from the link's fragment (`#token=…&device=…`, then removed from the
 *  address bar), else from this tab's session storage. */
function readSession() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token") && fragment.get("device")) {
    sessionStorage.setItem("herald.token", fragment.get("token"));
    sessionStorage.setItem("herald.device", fragment.get("device"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const token = sessionStorage.getItem("herald.token");
  const device = sessionStorage.getItem("herald.device");
  return token && device ? { token, device } : null;
}

class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A JSON API call with the session's token; throws APIError with the server's message. */
async function api(session, method, path, body) {
  const init = { method, headers: { Authorization: `Bearer ${session.token}` } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = (json && json.error) || {};
    throw new APIError(response.status, error.code || `http_${response.status}`, error.message || `HTTP ${response.status}`);
  }
  return json;
}

// ---- State ---------------------------------------------------------------------------------------

const state = {
  session: null,
  notifications: new Map(), // id → notification JSON, latest
  deviceState: null,
  focus: null, // GET /v1/me/focus
  focusModes: [],
  expanded: new Set(), // stack keys shown whole
  reply: null, // the reply being typed: {id, action, text}
  cursor: null,
  source: null,
};

/** What Notification Center lists: delivered (alerted or listed silently), not dismissed. */
function isListed(n) {
  if (n.dismissed_at) return false;
  return n.disposition === "alerted" || n.disposition === "listedSilently";
}

function shown(n) {
  return n.display || n.alert || {};
}

// ---- Rendering -----------------------------------------------------------------------------------

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function appName(bundleID) {
  const last = bundleID.split(".").pop() || bundleID;
  return last.charAt(0).toUpperCase() + last.slice(1);
}

function appIcon(bundleID) {
  // The app's icon as Herald serves it: the one set for the app, else a generated default.
  const icon = element("img", "app-icon");
  icon.src = fileURL(`/v1/apps/${encodeURIComponent(bundleID)}/icon`);
  icon.alt = "";
  return icon;
}

function fileURL(url) {
  return `${url}${url.includes("?") ? "&" : "?"}access_token=${encodeURIComponent(state.session.token)}`;
}

function timeText(iso) {
  const date = new Date(iso);
  const seconds = (currentTime().getTime() - date.getTime()) / 1000;
  if (seconds < 60) return "now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** One notification as a card: app, time, level mark, avatar, title/subtitle/body, attachments. */
function card(n, { inBanner = false } = {}) {
  const d = n.decision || {};
  const level = d.effective_level || n.interruption_level || "active";
  const node = element("article", `notification level-${level}`);
  node.dataset.id = n.id;
  node.dataset.level = level;
  node.dataset.disposition = n.disposition || "";
  const head = element("div", "notification-head");
  head.append(appIcon(n.bundle_id), element("span", "app-name", appName(n.bundle_id)));
  if (level === "time-sensitive") head.append(element("span", "level-mark", "Time Sensitive"));
  if (level === "critical") head.append(element("span", "level-mark critical", "Critical"));
  head.append(element("time", "when", timeText(n.received_at)));
  node.append(head);

  const body = element("div", "notification-body");
  if (n.avatar) {
    const avatar = element("img", "avatar");
    avatar.alt = "";
    avatar.src = fileURL(n.avatar.url);
    body.append(avatar);
  } else if (d.context && d.context.sender) {
    body.append(element("span", "avatar initials", (d.context.sender.name || "?").charAt(0)));
  }
  body.append(textOf(n));
  node.append(body);

  if (!inBanner && !(d.preview && d.preview.hidden)) {
    for (const a of n.attachments || []) node.append(attachment(a));
  }
  if (!inBanner && d.actions && d.actions.length && !n.dismissed_at) node.append(actions(n, d.actions));
  if (!inBanner) {
    const tools = element("div", "notification-tools");
    // An app's content extension for the category: the expanded view (not while the preview is hidden).
    if (extensions.extensionFor(n) && !(d.preview && d.preview.hidden)) {
      const expand = element("button", "expand", "Expand");
      expand.type = "button";
      expand.addEventListener("click", () => extensions.open(n));
      tools.append(expand);
    }
    const why = element("button", "why", "Why?");
    why.type = "button";
    why.addEventListener("click", () => explain(n));
    const dismiss = element("button", "dismiss", "Dismiss");
    dismiss.type = "button";
    dismiss.addEventListener("click", () => dismissOne(n));
    tools.append(why, dismiss);
    node.append(tools);
  }
  return node;
}

function textOf(n) {
  const text = element("div", "text");
  const display = shown(n);
  if (display.title) text.append(element("div", "title", display.title));
  if (display.subtitle) text.append(element("div", "subtitle", display.subtitle));
  if (display.body) text.append(element("div", "body", display.body));
  return text;
}

/** The notification's own content in the expanded view: its text and attachments. */
function defaultContent(n) {
  const node = element("div", "expanded-content");
  node.append(textOf(n));
  for (const a of n.attachments || []) node.append(attachment(a));
  return node;
}

// SF Symbols names (the seeds' icons) → Fork Awesome glyphs (shipped from Debian's
// fonts-fork-awesome); an icon without a match shows the action's title only.
const SYMBOLS = {
  "hand.thumbsup": "\uf164", "hand.thumbsup.fill": "\uf164", "hand.thumbsdown": "\uf165",
  "text.bubble": "\uf0e5", "bubble.left": "\uf0e5", "message": "\uf0e5", "envelope": "\uf003",
  "heart": "\uf08a", "heart.fill": "\uf004", "star": "\uf006", "star.fill": "\uf005",
  "trash": "\uf014", "trash.fill": "\uf1f8", "checkmark": "\uf00c", "checkmark.circle": "\uf05d",
  "xmark": "\uf00d", "xmark.circle": "\uf05c", "bell": "\uf0a2", "bell.slash": "\uf1f7",
  "clock": "\uf017", "alarm": "\uf017", "calendar": "\uf073", "phone": "\uf095", "phone.fill": "\uf095",
  "video": "\uf03d", "square.and.arrow.up": "\uf045", "arrowshape.turn.up.left": "\uf112",
  "flag": "\uf11d", "bookmark": "\uf097", "archivebox": "\uf187", "location": "\uf124",
  "person": "\uf007", "paperplane": "\uf1d8", "play": "\uf04b", "pause": "\uf04c",
};

function actionIcon(icon) {
  const name = icon && (icon.system_image_name || icon.template_image_name);
  const glyph = name && SYMBOLS[name];
  if (!glyph) return null;
  const span = element("span", "action-icon", glyph);
  span.setAttribute("aria-hidden", "true");
  span.dataset.symbol = name;
  return span;
}

/** One of the category's actions as a button: its icon and title, styled so when destructive. */
function actionButton(action) {
  const options = action.options || [];
  const button = element("button", options.includes("destructive") ? "action destructive" : "action");
  button.type = "button";
  button.dataset.action = action.identifier;
  const icon = actionIcon(action.icon);
  if (icon) button.append(icon);
  button.append(document.createTextNode(action.title));
  return button;
}

/** The category's actions: a button each (destructive ones styled so); a text-input action opens a
 *  reply field with its button title and placeholder. Each sends the person's response. */
function actions(n, list) {
  const bar = element("div", "actions");
  for (const action of list) {
    const button = actionButton(action);
    button.addEventListener("click", () => {
      if (action.text_input) openReply(bar, n, action);
      else respond(n, action.identifier);
    });
    bar.append(button);
  }
  // A reply being typed survives the re-render a live change makes.
  if (state.reply && state.reply.id === n.id) {
    const action = list.find((a) => a.identifier === state.reply.action && a.text_input);
    if (action) openReply(bar, n, action, state.reply.text);
  }
  return bar;
}

function openReply(bar, n, action, text = "") {
  bar.querySelector(".reply")?.remove();
  state.reply = { id: n.id, action: action.identifier, text };
  const form = element("form", "reply");
  const field = element("input", "reply-text");
  field.value = text;
  field.placeholder = action.text_input.placeholder || "";
  field.setAttribute("aria-label", action.title);
  field.addEventListener("input", () => { state.reply.text = field.value; });
  const send = element("button", "reply-send", action.text_input.button_title || "Send");
  send.type = "submit";
  form.append(field, send);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.reply = null;
    respond(n, action.identifier, field.value).then(() => form.remove());
  });
  bar.append(form);
  field.focus();
}

async function respond(n, actionIdentifier, text) {
  try {
    const body = { action_identifier: actionIdentifier };
    if (text !== undefined) body.user_text = text;
    const path = `/v1/devices/${encodeURIComponent(state.session.device)}/notifications/${encodeURIComponent(n.id)}/response`;
    await api(state.session, "POST", path, body);
    const card = document.querySelector(`#center .notification[data-id="${CSS.escape(n.id)}"]`);
    if (card) card.dataset.responded = actionIdentifier;
  } catch (error) {
    reportError(error);
  }
}

function attachment(a) {
  const src = fileURL(a.url);
  if (a.type.startsWith("public.jpeg") || a.type === "public.png" || a.type === "com.compuserve.gif") {
    const img = element("img", "attachment");
    img.alt = a.identifier;
    img.src = src;
    return img;
  }
  const audio = ["public.aiff-audio", "com.microsoft.waveform-audio", "public.mp3", "public.mpeg-4-audio"];
  const media = element(audio.includes(a.type) ? "audio" : "video", "attachment");
  media.controls = true;
  media.preload = "none";
  media.src = src;
  return media;
}

/** Notification Center: stacks per app, then per thread, newest first; a stack shows its newest
 *  with "N more notifications" until expanded. */
function renderCenter() {
  const center = $("center");
  center.replaceChildren();
  const listed = [...state.notifications.values()].filter(isListed);
  // Newest first; received in the same millisecond (a manual clock): the latest changed first.
  const byCursor = (a, b) => (BigInt(b.cursor) > BigInt(a.cursor) ? 1 : BigInt(b.cursor) < BigInt(a.cursor) ? -1 : 0);
  listed.sort((a, b) => b.received_at.localeCompare(a.received_at) || byCursor(a, b));
  const stacks = new Map();
  for (const n of listed) {
    const key = `${n.bundle_id}\u0000${n.thread_id || ""}`;
    if (!stacks.has(key)) stacks.set(key, []);
    stacks.get(key).push(n);
  }
  for (const [key, items] of stacks) {
    const stack = element("section", "stack");
    stack.dataset.app = items[0].bundle_id;
    stack.dataset.thread = items[0].thread_id || "";
    const open = state.expanded.has(key) || items.length === 1;
    for (const n of open ? items : items.slice(0, 1)) stack.append(card(n));
    if (items.length > 1) {
      const more = element(
        "button",
        "stack-toggle",
        open ? "Show less" : `${items.length - 1} more notification${items.length > 2 ? "s" : ""}`,
      );
      more.type = "button";
      more.addEventListener("click", () => {
        if (state.expanded.has(key)) state.expanded.delete(key);
        else state.expanded.add(key);
        renderCenter();
      });
      stack.append(more);
    }
    center.append(stack);
  }
  $("center-empty").hidden = listed.length > 0;
}

function renderDevice() {
  const locked = state.deviceState ? state.deviceState.locked : true;
  $("phone").dataset.locked = String(locked);
  $("lock-toggle").textContent = locked ? "Unlock" : "Lock";
  if (state.deviceState) {
    $("ringer-silent").checked = Boolean(state.deviceState.ringer_silent);
    $("audio-route").value = state.deviceState.audio_route || "none";
    const location = state.deviceState.location;
    if (!$("location-form").contains(document.activeElement)) {
      $("location-latitude").value = location ? location.latitude : "";
      $("location-longitude").value = location ? location.longitude : "";
    }
  }
  const active = state.focus && state.focus.active;
  for (const id of ["status-focus", "lock-focus"]) {
    $(id).hidden = !active;
    $(id).textContent = active ? active.name : "";
  }
  $("focus-sentence").textContent = state.focus ? state.focus.reason : "";
  const list = $("focus-modes");
  list.replaceChildren();
  for (const mode of state.focusModes) {
    const item = element("li", mode.active ? "focus-mode active" : "focus-mode");
    item.dataset.focus = mode.id;
    const button = element("button", "focus-toggle", mode.active ? `${mode.name}: on` : `${mode.name}: off`);
    button.type = "button";
    button.setAttribute("aria-pressed", String(mode.active));
    button.addEventListener("click", () => toggleFocus(mode));
    item.append(button, focusSettings(mode));
    list.append(item);
  }
}

/** A Focus's settings editor, kept across renders (a stream event must not wipe what is being
 *  typed); made again from the saved mode after a save. */
const focusEditors = new Map();
function focusSettings(mode) {
  const kept = focusEditors.get(mode.id);
  if (kept) return kept;
  const editor = focusEditor(mode, {
    api: (method, path, body) => api(state.session, method, path, body),
    apps: knownApps(),
    onError: reportError,
    saved: async () => {
      focusEditors.delete(mode.id);
      await loadFocus();
      const fresh = focusEditors.get(mode.id);
      if (fresh) {
        fresh.open = true;
        fresh.dataset.saved = "true";
      }
    },
  });
  focusEditors.set(mode.id, editor);
  return editor;
}

function tick() {
  const now = currentTime();
  $("status-time").textContent = now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  $("lock-clock").textContent = now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  $("lock-date").textContent = now.toLocaleDateString([], { weekday: "long", month: "long", day: "numeric" });
}

// ---- Herald's clock ------------------------------------------------------------------------------

/** The time on the device: the browser's, or Herald's manual clock, which moves only when moved. */
function currentTime() {
  return state.clock && state.clock.manual ? new Date(state.clock.now) : new Date();
}

/** Reads Herald's clock (`GET /v1/clock`); with a manual one, shows it and the controls that move it. */
async function loadClock() {
  const clock = await api(state.session, "GET", "/v1/clock");
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
  const clock = await api({ token }, method, path, body);
  state.clock = { manual: true, now: clock.now };
  $("control-error").textContent = "";
  renderClock();
  renderCenter();
}

function setUpClockControls() {
  $("manual-clock-token").value = sessionStorage.getItem("herald.adminToken") || "";
  for (const button of document.querySelectorAll("#manual-clock [data-advance]")) {
    button.addEventListener("click", () =>
      moveClock("POST", "/v1/admin/clock/advance", { seconds: Number(button.dataset.advance) }).catch(reportError));
  }
  $("manual-clock-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("manual-clock-to").value;
    if (!value) return reportError(new Error("Choose the date and time to move to."));
    moveClock("PUT", "/v1/admin/clock", { now: new Date(value).toISOString() }).catch(reportError);
  });
  // Moved elsewhere too (`herald clock`, another page): read it again now and then.
  setInterval(() => { if (state.clock && state.clock.manual) loadClock().catch(() => {}); }, 5000);
}

// ---- Banners and sound ---------------------------------------------------------------------------

/** A banner for what alerts: `banner` leaves after a few seconds, `alert` stays until dismissed. */
function showBanner(n) {
  const d = n.decision;
  const banner = card(n, { inBanner: true });
  banner.classList.add("banner", `banner-${d.banner}`);
  banner.setAttribute("role", "status");
  // A tap puts it away; from the keyboard, Enter, Space or Escape on it.
  banner.tabIndex = 0;
  banner.addEventListener("click", () => banner.remove());
  banner.addEventListener("keydown", (event) => {
    if (["Enter", " ", "Escape"].includes(event.key)) {
      event.preventDefault();
      banner.remove();
    }
  });
  $("banners").prepend(banner);
  if (d.banner === "banner") setTimeout(() => banner.remove(), 6000);
  if (d.sound && d.sound.plays) playSound(d.sound);
}

/** Siri reading it aloud (the decision's `announce`: headphones or car), with the browser's speech. */
function announce(n) {
  const display = shown(n);
  const text = [appName(n.bundle_id), display.title, display.subtitle, display.body].filter(Boolean).join(". ");
  document.body.dataset.announced = n.id; // what was last spoken (the tests read it)
  try {
    if ("speechSynthesis" in window) speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  } catch {
    // No speech on this browser: the notification is still shown.
  }
}

let audio = null;
function playSound(sound) {
  const silent = state.deviceState && state.deviceState.ringer_silent;
  if (silent && !sound.bypasses_ringer) return;
  try {
    audio = audio || new AudioContext();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    gain.gain.value = sound.volume ?? 0.2;
    oscillator.frequency.value = sound.bypasses_ringer ? 1320 : 880;
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + 0.25);
  } catch {
    // No audio output (or not allowed yet): the banner still shows.
  }
}

// ---- Actions -------------------------------------------------------------------------------------

function reportError(error) {
  $("control-error").textContent = error.message;
}

async function explain(n) {
  try {
    const why = await api(
      state.session,
      "GET",
      `/v1/notifications/${encodeURIComponent(n.id)}/decision?device_id=${encodeURIComponent(state.session.device)}`,
    );
    $("why-summary").textContent = why.summary || "";
    const list = $("why-reasons");
    list.replaceChildren(...(why.reasons || []).map((r) => {
      const item = element("li", "reason", r.sentence);
      item.dataset.code = r.code;
      return item;
    }));
    $("why").showModal();
  } catch (error) {
    reportError(error);
  }
}

async function dismissOne(n) {
  try {
    const path = `/v1/devices/${encodeURIComponent(state.session.device)}/notifications/${encodeURIComponent(n.id)}/dismiss`;
    await api(state.session, "POST", path);
  } catch (error) {
    reportError(error);
  }
}

async function clearAll() {
  for (const n of [...state.notifications.values()].filter(isListed)) await dismissOne(n);
}

async function toggleFocus(mode) {
  try {
    await api(state.session, "POST", `/v1/me/focus-modes/${encodeURIComponent(mode.id)}/${mode.active ? "off" : "on"}`);
    await loadFocus();
  } catch (error) {
    reportError(error);
  }
}

async function putDeviceState(fields) {
  try {
    state.deviceState = await api(
      state.session, "PUT", `/v1/devices/${encodeURIComponent(state.session.device)}/state`, fields);
    renderDevice();
    return true;
  } catch (error) {
    reportError(error);
    return false;
  }
}

// ---- Settings: Scheduled Summary and per-app -----------------------------------------------------

/** The apps to show settings for: those with notifications on this device, and those in the summary. */
function knownApps() {
  const apps = new Set([...state.notifications.values()].map((n) => n.bundle_id));
  for (const app of (state.summary && state.summary.apps) || []) apps.add(app);
  return [...apps].sort();
}

async function loadSettings() {
  state.preferences = await api(state.session, "GET", "/v1/me/preferences");
  renderPreferences();
  state.summary = await api(state.session, "GET", "/v1/me/summary");
  const apps = knownApps();
  state.appSettings = {};
  for (const app of apps) {
    state.appSettings[app] = await api(state.session, "GET", `/v1/me/apps/${encodeURIComponent(app)}/settings`);
  }
  renderSettings();
  const next = await api(state.session, "GET", "/v1/me/summary/next");
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
  title.append(appIcon(app), document.createTextNode(appName(app)));
  box.append(title);
  const save = (fields) => api(state.session, "PUT", `/v1/me/apps/${encodeURIComponent(app)}/settings`, fields)
    .then((saved) => { state.appSettings[app] = saved; })
    .catch(reportError);
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
    state.preferences = await api(state.session, "PUT", "/v1/me/preferences", {
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
    await loadFocus(); // the Focus schedules follow the time zone
  } catch (error) {
    reportError(error);
  }
}

/** The device's reported location (location triggers fire on crossing their regions). */
async function saveLocation(event) {
  event.preventDefault();
  const latitude = $("location-latitude").value.trim();
  const longitude = $("location-longitude").value.trim();
  const location = latitude === "" && longitude === "" ? null : { latitude: Number(latitude), longitude: Number(longitude) };
  if (await putDeviceState({ location })) $("location-form").dataset.saved = String(Date.now());
}

async function saveSummary(event) {
  event.preventDefault();
  try {
    const times = $("summary-times").value.split(",").map((t) => t.trim()).filter(Boolean);
    const apps = [...$("summary-apps").querySelectorAll("input:checked")].map((box) => box.value);
    state.summary = await api(state.session, "PUT", "/v1/me/summary", { times, apps });
    $("summary-form").dataset.saved = String(Date.now());
    await loadSettings();
  } catch (error) {
    reportError(error);
  }
}

async function toggleLock() {
  try {
    const locked = !(state.deviceState ? state.deviceState.locked : true);
    state.deviceState = await api(
      state.session, "PUT", `/v1/devices/${encodeURIComponent(state.session.device)}/state`, { locked });
    renderDevice();
  } catch (error) {
    reportError(error);
  }
}

// ---- Loading and the live stream -----------------------------------------------------------------

async function loadFocus() {
  const [focus, modes] = await Promise.all([
    api(state.session, "GET", "/v1/me/focus"),
    api(state.session, "GET", "/v1/me/focus-modes"),
  ]);
  state.focus = focus;
  state.focusModes = modes.focus_modes || [];
  renderDevice();
}

async function loadAll() {
  const device = encodeURIComponent(state.session.device);
  state.deviceState = await api(state.session, "GET", `/v1/devices/${device}/state`);
  let since = "0";
  for (;;) {
    const page = await api(state.session, "GET", `/v1/devices/${device}/notifications?since=${since}&limit=500`);
    for (const n of page.notifications) state.notifications.set(n.id, n);
    since = page.cursor;
    if (page.notifications.length < 500) break;
  }
  state.cursor = since;
  await loadClock();
  await loadFocus();
  state.authorizationRequests = (await api(state.session, "GET", `/v1/devices/${device}/authorization-requests`)).requests;
  await loadSettings();
  await extensions.load();
  renderCenter();
}

function connect() {
  const device = encodeURIComponent(state.session.device);
  const url = `/v1/devices/${device}/stream?access_token=${encodeURIComponent(state.session.token)}&cursor=${encodeURIComponent(state.cursor)}`;
  const source = new EventSource(url);
  state.source = source;
  source.addEventListener("open", () => { $("status-connection").dataset.live = "true"; });
  source.addEventListener("error", () => { $("status-connection").dataset.live = "false"; });
  source.addEventListener("notification", (event) => {
    const n = JSON.parse(event.data);
    const before = state.notifications.get(n.id);
    state.notifications.set(n.id, n);
    // A banner only when it first alerts (a held one released quietly is listed silently).
    const alertsNow = n.disposition === "alerted" && !n.dismissed_at && n.decision && n.decision.banner !== "none";
    if (alertsNow && (!before || before.disposition !== "alerted")) showBanner(n);
    if (!before && n.decision && n.decision.announce) announce(n);
    renderCenter();
    // A new app on this device: its settings join the list.
    if (state.appSettings && !(n.bundle_id in state.appSettings)) loadSettings().catch(reportError);
  });
  source.addEventListener("removed", (event) => {
    const n = JSON.parse(event.data);
    state.notifications.delete(n.id);
    renderCenter();
  });
  source.addEventListener("summary", (event) => {
    const summary = JSON.parse(event.data);
    for (const app of summary.apps || []) {
      for (const item of app.notifications || []) state.notifications.set(item.notification.id, item.notification);
    }
    renderSummary(summary);
    renderCenter();
  });
  source.addEventListener("focus", (event) => {
    state.focus = JSON.parse(event.data);
    renderDevice();
    loadFocus().catch(reportError); // the modes' on/off too
  });
  source.addEventListener("authorization_requests", (event) => {
    state.authorizationRequests = JSON.parse(event.data).requests || [];
    promptAuthorization();
  });
  source.addEventListener("state", (event) => {
    state.deviceState = JSON.parse(event.data);
    renderDevice();
    loadFocus().catch(reportError);
  });
}

/** The Scheduled Summary's card: its featured notifications first, then how many more per app. */
function renderSummary(summary) {
  const cardNode = $("summary-card");
  cardNode.replaceChildren(element("h3", null, "Your Summary"));
  for (const app of summary.apps || []) {
    for (const item of (app.notifications || []).filter((x) => x.featured)) {
      const line = element("div", "featured", shown(item.notification).title || shown(item.notification).body || "");
      line.dataset.id = item.notification.id;
      cardNode.append(line);
    }
    const rest = (app.notifications || []).filter((x) => !x.featured).length;
    if (rest > 0) cardNode.append(element("div", "summary-more", `${appName(app.bundle_id)}: ${rest} more`));
  }
  cardNode.hidden = false;
}

// ---- Authorization prompts -----------------------------------------------------------------------

/** The oldest app asking for permission, as iOS asks: "“App” Would Like to Send You Notifications". */
function promptAuthorization() {
  const dialog = $("authorization");
  const request = (state.authorizationRequests || []).find((r) => r.answered_at === null);
  if (!request) {
    if (dialog.open) dialog.close();
    return;
  }
  dialog.dataset.request = request.id;
  $("authorization-title").textContent = `“${appName(request.bundle_id)}” Would Like to Send You Notifications`;
  if (!dialog.open) dialog.showModal();
}

async function answerAuthorization(allow) {
  const dialog = $("authorization");
  const id = dialog.dataset.request;
  dialog.close();
  try {
    const device = encodeURIComponent(state.session.device);
    await api(state.session, "POST", `/v1/devices/${device}/authorization-requests/${encodeURIComponent(id)}`, { allow });
    state.authorizationRequests = (state.authorizationRequests || []).filter((r) => r.id !== id);
    promptAuthorization();
  } catch (error) {
    reportError(error);
  }
}

// ---- Content extensions --------------------------------------------------------------------------

const extensions = contentExtensions({
  api: (method, path, body) => api(state.session, method, path, body),
  element, appIcon, appName, defaultContent, actionButton, respond,
  fetchBlob: async (url) => {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${state.session.token}` } });
    if (!response.ok) throw new APIError(response.status, `http_${response.status}`, `Attachment: HTTP ${response.status}`);
    return response.blob();
  },
  onError: reportError,
});

// ---- Start ---------------------------------------------------------------------------------------

async function start() {
  state.session = readSession();
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("herald.token", $("sign-in-token").value.trim());
    sessionStorage.setItem("herald.device", $("sign-in-device").value.trim());
    location.reload();
  });
  $("sign-out").addEventListener("click", () => {
    sessionStorage.clear();
    location.reload();
  });
  $("lock-toggle").addEventListener("click", toggleLock);
  $("ringer-silent").addEventListener("change", (event) => putDeviceState({ ringer_silent: event.target.checked }));
  $("audio-route").addEventListener("change", (event) => putDeviceState({ audio_route: event.target.value }));
  $("summary-form").addEventListener("submit", saveSummary);
  $("preferences-form").addEventListener("submit", savePreferences);
  $("location-form").addEventListener("submit", (event) => saveLocation(event).catch(reportError));
  $("authorization-allow").addEventListener("click", () => answerAuthorization(true));
  $("authorization-deny").addEventListener("click", () => answerAuthorization(false));
  $("clear-all").addEventListener("click", () => clearAll().catch(reportError));
  setUpClockControls();
  if (!state.session) {
    $("sign-in").hidden = false;
    return;
  }
  try {
    await loadAll();
  } catch (error) {
    sessionStorage.clear();
    $("sign-in").hidden = false;
    $("sign-in-error").textContent = `Could not open the device: ${error.message}`;
    return;
  }
  $("device-name").textContent = state.session.device;
  $("device").hidden = false;
  tick();
  setInterval(tick, 1000);
  // The "m ago" times, and extensions the admin set or removed since.
  setInterval(() => extensions.load().then(renderCenter, reportError), 60000);
  connect();
  startConsole({ api: (method, path, body) => api(state.session, method, path, body), onError: reportError });
  // A page the browser keeps for "back" must not keep its stream open: browsers allow six
  // connections to a server, and kept pages' streams used them up. Back again, it reloads.
  window.addEventListener("pagehide", () => state.source && state.source.close());
  window.addEventListener("pageshow", (event) => { if (event.persisted) location.reload(); });
  promptAuthorization();
  document.body.dataset.ready = "true";
}

start();
