// Herald's web notification center: one device of the signed-in user, as a phone shows it — the
// Lock Screen, banners for what alerts, Notification Center's stacks per app and thread — kept live
// by the device's stream (Server-Sent Events), with the device's controls beside it. Plain ES
// modules and the JSON API only: no build step, nothing fetched from outside Herald.

import { deviceClock } from "./clock.js";
import { startConsole } from "./console.js";
import { $, appName, element } from "./dom.js";
import { contentExtensions } from "./extension.js";
import { focusEditor } from "./focus.js";
import { settingsPanel } from "./settings.js";


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
  threads: [], // GET /v1/devices/{id}/threads: the groups Notification Center shows
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

/** Notification Center: the device's groups as Herald makes them (`GET …/threads`: per app and
 *  thread, one per app, or none, as the grouping settings say), newest first. A group shows its
 *  newest with its summary line (the category's format: "2 more invitations from Ana") until
 *  expanded. What the last read of the groups does not know yet joins its group as that group's
 *  setting says (its own stack for a new app or thread) until the next read, a moment later. */
function renderCenter({ onlyIfRegrouped = false } = {}) {
  const listed = [...state.notifications.values()].filter(isListed);
  const byID = new Map(listed.map((n) => [n.id, n]));
  const stackKey = (grouping, n) =>
    grouping === "off" ? n.id : grouping === "by_app" ? `${n.bundle_id}\u0000*` : `${n.bundle_id}\u0000${n.thread_id || ""}`;
  const stacks = new Map(); // key → {items, line}
  const placed = new Set();
  const grouping = new Map(); // bundle id → its grouping, as the last read found it
  for (const group of state.threads) {
    const items = [group.notification.id, ...group.other_ids].map((id) => byID.get(id)).filter(Boolean);
    grouping.set(group.bundle_id, group.grouping);
    if (items.length === 0) continue;
    for (const n of items) placed.add(n.id);
    // The server's line while the group is as it counted it.
    const line = items.length === group.count ? group.summary : null;
    stacks.set(stackKey(group.grouping, group.notification), { items, line });
  }
  // Newest first; received in the same millisecond (a manual clock): the latest changed first.
  const byCursor = (a, b) => (BigInt(b.cursor) > BigInt(a.cursor) ? 1 : BigInt(b.cursor) < BigInt(a.cursor) ? -1 : 0);
  const newestFirst = (a, b) => b.received_at.localeCompare(a.received_at) || byCursor(a, b);
  for (const n of listed.filter((n) => !placed.has(n.id))) {
    const key = stackKey(grouping.get(n.bundle_id) || "automatic", n);
    const stack = stacks.get(key) || { items: [], line: null };
    stack.items.push(n);
    stack.items.sort(newestFirst);
    stack.line = null;
    stacks.set(key, stack);
  }
  const ordered = [...stacks].map(([key, { items, line }]) => ({
    key, items,
    summary: items.length < 2 ? null : line || `${items.length - 1} more notification${items.length > 2 ? "s" : ""}`,
  }));
  ordered.sort((a, b) => newestFirst(a.items[0], b.items[0]));

  // A new read of the groups that groups nothing differently leaves the cards as they are.
  const layout = JSON.stringify(ordered.map((s) => [s.items.map((n) => n.id), s.summary, state.expanded.has(s.key)]));
  if (onlyIfRegrouped && layout === state.centerLayout) return;
  state.centerLayout = layout;
  const center = $("center");
  center.replaceChildren();
  for (const { key, items, summary } of ordered) {
    const stack = element("section", "stack");
    stack.dataset.app = items[0].bundle_id;
    stack.dataset.thread = items[0].thread_id || "";
    const open = state.expanded.has(key) || items.length === 1;
    for (const n of open ? items : items.slice(0, 1)) stack.append(card(n));
    if (items.length > 1) {
      const more = element("button", "stack-toggle", open ? "Show less" : summary);
      more.type = "button";
      more.setAttribute("aria-expanded", String(open));
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

/** Reads the device's groups again (a moment after a change, once for a burst of them). */
let threadsTimer = null;
let threadsRead = 0;
function refreshThreads() {
  clearTimeout(threadsTimer);
  threadsTimer = setTimeout(() => loadThreads().then(() => renderCenter({ onlyIfRegrouped: true }), reportError), 100);
}

async function loadThreads() {
  const read = ++threadsRead;
  const page = await api(state.session, "GET", `/v1/devices/${encodeURIComponent(state.session.device)}/threads?limit=500`);
  if (read === threadsRead) state.threads = page.threads; // an older read answering late changes nothing
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
    apps: settings.knownApps(),
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
/** The decision's sound (a tone: the page has no sound files), unless the ringer is silent and the
 *  sound does not bypass it (critical). Each played is noted in `data-sounds` (the tests read it). */
function playSound(n, sound) {
  const silent = state.deviceState && state.deviceState.ringer_silent;
  if (silent && !sound.bypasses_ringer) return;
  const played = document.body.dataset.sounds ? document.body.dataset.sounds.split(" ") : [];
  document.body.dataset.sounds = [...played, `${n.id}:${sound.bypasses_ringer ? "critical" : "normal"}`].join(" ");
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
  await clock.load();
  await loadFocus();
  state.authorizationRequests = (await api(state.session, "GET", `/v1/devices/${device}/authorization-requests`)).requests;
  await settings.load();
  await extensions.load();
  await loadThreads();
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
    // A banner and a sound only when it first alerts (a held one released quietly is listed silently).
    if (n.disposition === "alerted" && !n.dismissed_at && (!before || before.disposition !== "alerted")) {
      if (n.decision && n.decision.banner !== "none") showBanner(n);
      if (n.decision && n.decision.sound && n.decision.sound.plays) playSound(n, n.decision.sound);
    }
    if (!before && n.decision && n.decision.announce) announce(n);
    renderCenter();
    refreshThreads();
    // A new app on this device: its settings join the list.
    if (state.appSettings && !(n.bundle_id in state.appSettings)) settings.load().catch(reportError);
  });
  source.addEventListener("removed", (event) => {
    const n = JSON.parse(event.data);
    state.notifications.delete(n.id);
    renderCenter();
    refreshThreads();
  });
  source.addEventListener("summary", (event) => {
    const summary = JSON.parse(event.data);
    for (const app of summary.apps || []) {
      for (const item of app.notifications || []) state.notifications.set(item.notification.id, item.notification);
    }
    renderSummary(summary);
    renderCenter();
    refreshThreads();
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

// ---- The modules' wiring --------------------------------------------------------------------------

const settings = settingsPanel({
  state,
  api: (method, path, body) => api(state.session, method, path, body),
  appIcon, loadFocus, putDeviceState, reportError, refreshThreads,
});
const clock = deviceClock({ state, api, renderCenter: () => renderCenter(), reportError });
const { currentTime } = clock;

const extensions = contentExtensions({
  api: (method, path, body) => api(state.session, method, path, body),
  element, appIcon, appName, defaultContent, actionButton, respond,
  fetchBlob: async (url) => {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${state.session.token}` } });
    if (!response.ok) throw new APIError(response.status, `http_${response.status}`, `Attachment: HTTP ${response.status}`);
    return response.blob();
  },
  onError: reportError,
  changed: () => renderCenter(),
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
  settings.setUp();
  $("authorization-allow").addEventListener("click", () => answerAuthorization(true));
  $("authorization-deny").addEventListener("click", () => answerAuthorization(false));
  $("clear-all").addEventListener("click", () => clearAll().catch(reportError));
  clock.setUp();
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
  clock.tick();
  setInterval(clock.tick, 1000);
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
