// The push console: compose a push as a provider sends it (headers, provider token, payload), hand
// it to Herald's APNs endpoint (POST /v1/console/push), show the endpoint's answer, and follow each
// push on the user's devices in a delivery log keyed by apns-id (GET /v1/console/pushes/{apns_id}).
// The private key never leaves the page: the provider token is signed here with Web Crypto (ES256).

import { $, element } from "./dom.js";

/** base64url of bytes. */
function base64url(bytes) {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A provider authentication token (JWT, ES256) for the team and key, signed with the PKCS#8 key. */
export async function signProviderToken(teamID, keyID, pem, issuedAt = Math.floor(Date.now() / 1000)) {
  if (!globalThis.crypto || !crypto.subtle) {
    throw new Error("This page cannot sign here (Web Crypto needs https or localhost): paste a provider token.");
  }
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  let der;
  try {
    der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  } catch {
    throw new Error("The private key is not PEM: paste the AuthKey_….p8 file as it is.");
  }
  let key;
  try {
    key = await crypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  } catch {
    throw new Error("The private key is not a P-256 key in PKCS#8 (an AuthKey_….p8 file).");
  }
  const encode = (object) => base64url(new TextEncoder().encode(JSON.stringify(object)));
  const input = `${encode({ alg: "ES256", kid: keyID })}.${encode({ iss: teamID, iat: issuedAt })}`;
  // Web Crypto's ECDSA signature is r‖s (IEEE P1363), which is what JWS wants.
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** The payload the composer's fields describe. */
function composedPayload() {
  const alert = {};
  const aps = {};
  for (const input of document.querySelectorAll("#console-form [data-aps]")) {
    const name = input.dataset.aps;
    if (input.type === "checkbox") {
      if (input.checked) aps[name] = 1;
      continue;
    }
    const value = input.value.trim();
    if (value === "") continue;
    if (["title", "subtitle", "body"].includes(name)) alert[name] = value;
    else if (name === "badge") aps.badge = Number.isInteger(Number(value)) ? Number(value) : value;
    else if (name === "relevance-score") aps[name] = Number.isFinite(Number(value)) ? Number(value) : value;
    else aps[name] = value;
  }
  if (Object.keys(alert).length > 0) aps.alert = alert;
  return { aps };
}

/** Starts the console: `api(method, path, body)` is the page's JSON API call with the session. */
export function startConsole({ api, onError }) {
  const log = new Map(); // apns-id → {sent, answer, record, element}
  let providerToken = null; // {token, signedAt, by}
  let payloadEdited = false;

  const fillPayload = () => {
    if (!payloadEdited) $("console-payload").value = JSON.stringify(composedPayload(), null, 2);
  };
  for (const input of document.querySelectorAll("#console-form [data-aps]")) {
    input.addEventListener("input", fillPayload);
    input.addEventListener("change", fillPayload);
  }
  $("console-payload").addEventListener("input", () => { payloadEdited = true; });
  fillPayload();

  $("console-key-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    $("console-key").value = await file.text();
    const match = /AuthKey_([A-Z0-9]{10})/.exec(file.name);
    if (match && !$("console-key-id").value) $("console-key-id").value = match[1];
  });

  // The targets: the user's devices' tokens; the topic follows the chosen token's app.
  api("GET", "/v1/me/devices").then(({ devices }) => {
    const select = $("console-target");
    select.replaceChildren();
    for (const device of devices) {
      for (const token of device.tokens) {
        const option = element("option", null, `${device.name} · ${token.bundle_id} · ${token.token.slice(0, 8)}…`);
        option.value = token.token;
        option.dataset.topic = token.bundle_id;
        select.append(option);
      }
    }
    const follow = () => {
      const chosen = select.selectedOptions[0];
      if (chosen) $("console-topic").value = chosen.dataset.topic;
    };
    select.addEventListener("change", follow);
    follow();
  }).catch(onError);

  /** The authorization header: the pasted token, else one signed here (kept 30 minutes; APNs
   *  takes a token for an hour and refuses refreshing it more than every 20 minutes). */
  async function authorization() {
    const pasted = $("console-jwt").value.trim();
    if (pasted) return `bearer ${pasted}`;
    const team = $("console-team").value.trim();
    const keyID = $("console-key-id").value.trim();
    const pem = $("console-key").value.trim();
    if (!team && !keyID && !pem) return null; // sent without: the endpoint answers MissingProviderToken
    const by = `${team}/${keyID}/${pem}`;
    const now = Date.now();
    if (!providerToken || providerToken.by !== by || now - providerToken.signedAt > 30 * 60 * 1000) {
      providerToken = { token: await signProviderToken(team, keyID, pem), signedAt: now, by };
    }
    return `bearer ${providerToken.token}`;
  }

  function headers(authorizationHeader) {
    const result = {};
    const put = (name, id) => {
      const value = $(id).value.trim();
      if (value !== "") result[name] = value;
    };
    put("apns-topic", "console-topic");
    put("apns-push-type", "console-push-type");
    put("apns-priority", "console-priority");
    put("apns-expiration", "console-expiration");
    put("apns-collapse-id", "console-collapse");
    put("apns-id", "console-apns-id");
    if (authorizationHeader) result.authorization = authorizationHeader;
    return result;
  }

  function renderEntry(entry) {
    const item = entry.element;
    item.replaceChildren();
    const answer = entry.answer;
    const head = element("div", "push-head",
      `${answer.status} ${answer.reason || "OK"} · apns-id ${answer.apns_id}` +
      (answer.apns_unique_id ? ` · apns-unique-id ${answer.apns_unique_id}` : ""));
    item.append(head);
    item.dataset.status = String(answer.status);
    if (answer.status !== 200) return;
    const deliveries = (entry.record && entry.record.deliveries) || [];
    if (deliveries.length === 0) {
      item.append(element("div", "delivery", "Accepted; not on any of your devices (yet): another user's device, or a service extension still running."));
    }
    for (const delivery of deliveries) {
      const line = element("div", "delivery");
      line.dataset.device = delivery.device_id;
      line.dataset.disposition = (delivery.decision && delivery.decision.disposition) || "";
      const sentence = delivery.decision && delivery.decision.summary ? ` — ${delivery.decision.summary}` : "";
      line.append(element("strong", null, `${delivery.device_name}: ${line.dataset.disposition}`), sentence);
      const events = (delivery.events || []).map((e) => `${e.event}${e.detail ? ` (${e.detail})` : ""} ${new Date(e.at).toLocaleTimeString()}`);
      line.append(element("div", "events", events.join(" → ")));
      item.append(line);
    }
  }

  async function refresh(entry) {
    entry.record = await api("GET", `/v1/console/pushes/${encodeURIComponent(entry.answer.apns_id)}`);
    renderEntry(entry);
  }

  // The log follows recent pushes: what happens to them (delivered, released, read, dismissed).
  setInterval(() => {
    const now = Date.now();
    for (const entry of log.values()) {
      if (entry.answer.status === 200 && now - entry.sent < 10 * 60 * 1000) refresh(entry).catch(() => {});
    }
  }, 2000);

  $("console-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const answerNode = $("console-answer");
    try {
      const selected = $("console-token").value.trim() || $("console-target").value;
      const body = { device_token: selected, headers: headers(await authorization()), payload: $("console-payload").value };
      const answer = await api("POST", "/v1/console/push", body);
      answerNode.textContent = `${answer.status} ${answer.reason || "OK"} · apns-id ${answer.apns_id}`;
      answerNode.dataset.status = String(answer.status);
      answerNode.dataset.reason = answer.reason || "";
      answerNode.dataset.apnsId = answer.apns_id;
      answerNode.classList.toggle("refused", answer.status !== 200);
      const entry = { sent: Date.now(), answer, record: null, element: element("li") };
      entry.element.dataset.apnsId = answer.apns_id;
      log.set(answer.apns_id, entry);
      $("console-log").prepend(entry.element);
      renderEntry(entry);
      if (answer.status === 200) await refresh(entry);
    } catch (error) {
      answerNode.textContent = error.message;
      answerNode.dataset.status = "error";
      answerNode.classList.add("refused");
    }
  });
}
