// Content extensions in the page: an app's web counterpart of `UNNotificationContentExtension`.
// A notification whose category has one of the app's extensions offers "Expand"; the expanded view
// shows the extension's document (`frame_url`: the app's HTML behind Herald's bridge script, which
// gives it `window.herald`) in a sandboxed frame, with Apple's options:
// - the initial content size ratio (height = width × ratio), and the extension's later
//   `setContentSizeRatio`;
// - the default content (title, subtitle, body, attachments) below the frame unless hidden;
// - the extension's `setTitle` as the view's title when it overrides the default one (the app's name);
// - touches and keyboard reach the frame only with user interaction enabled;
// - a media play/pause button below the frame ("default") or over it ("overlay");
// - each action goes to the extension first (`onAction`), which answers `doNotDismiss` (stay, the app
//   hears nothing), `dismiss` (close, the app hears nothing) or `dismissAndForwardAction` (close, the
//   app gets the response); an extension without `onAction` forwards every action.
// The frame runs with an opaque origin (`sandbox="allow-scripts"`, and the document's own policy):
// it cannot read the page, its storage or the user's token. Attachments reach it as Blobs, which it
// can show through its own `blob:` addresses.

const DEFAULT_ACTION = "com.apple.UNNotificationDefaultActionIdentifier";
const ANSWERS = ["doNotDismiss", "dismiss", "dismissAndForwardAction"];
/** How long an extension may take to answer an action before the page forwards it, as iOS does when
 *  an extension never calls its completion handler. */
const ANSWER_TIMEOUT_MS = 10000;

/**
 * The expanded view, wired to the page:
 * - `api(method, path, body)`: the JSON API with the user's token;
 * - `element(tag, className, text)`, `appIcon(bundleID)`, `appName(bundleID)`: the page's builders;
 * - `defaultContent(n)`: the notification's own content (title, subtitle, body, attachments);
 * - `actionButton(action)`: a button for one of the category's actions (icon and title);
 * - `respond(n, actionIdentifier, text)`: sends the person's response to the app;
 * - `fetchBlob(url)`: an attachment's bytes (with the user's token, which the frame never sees);
 * - `onError(error)`: shows a failure;
 * - `changed()`: the listing changed (the cards' Expand buttons follow it).
 */
export function contentExtensions(deps) {
  const { api, element, appIcon, appName, defaultContent, actionButton, respond, fetchBlob, onError } = deps;
  const dialog = document.getElementById("expanded");
  let listed = new Map(); // bundle id → the extension's listing (options and frame_url)
  let view = null; // the open view

  async function load() {
    const answer = await api("GET", "/v1/content-extensions");
    listed = new Map((answer.content_extensions || []).map((e) => [e.bundle_id, e]));
  }

  /** The app's extension for the notification's category, if it has one. */
  function extensionFor(n) {
    const extension = listed.get(n.bundle_id);
    return extension && n.category && extension.categories.includes(n.category) ? extension : null;
  }

  /** What the extension's `onNotification` gets: Apple's `UNNotification`, as shown on the device. */
  async function notificationFor(n) {
    const display = n.display || n.alert || {};
    const attachments = [];
    for (const a of n.attachments || []) {
      attachments.push({ identifier: a.identifier, type: a.type, data: await fetchBlob(a.url) });
    }
    return {
      date: n.received_at,
      request: {
        identifier: n.id,
        content: {
          title: display.title || "", subtitle: display.subtitle || "", body: display.body || "",
          categoryIdentifier: n.category || "", threadIdentifier: n.thread_id || "",
          interruptionLevel: n.interruption_level || "active", relevanceScore: n.relevance_score ?? 0,
          badge: n.badge ?? null, sound: n.sound ?? null, userInfo: n.payload || {}, attachments,
        },
      },
    };
  }

  function post(message) {
    if (view && view.frame.contentWindow) view.frame.contentWindow.postMessage(message, "*");
  }

  function setRatio(ratio) {
    if (!(typeof ratio === "number" && Number.isFinite(ratio) && ratio > 0 && ratio <= 10)) return;
    view.frame.style.aspectRatio = `1 / ${ratio}`;
    view.frame.dataset.ratio = String(ratio);
  }

  function setPlaying(playing) {
    if (!view.media) return;
    view.playing = playing;
    view.media.textContent = playing ? "\uf04c" : "\uf04b"; // Fork Awesome pause / play
    view.media.setAttribute("aria-label", playing ? "Pause" : "Play");
    view.media.dataset.playing = String(playing);
  }

  /** The extension's messages: only from the open view's frame, only the bridge's. */
  window.addEventListener("message", (event) => {
    if (!view || event.source !== view.frame.contentWindow) return;
    const m = event.data;
    if (!m || m.heraldExtension !== true) return;
    const current = view;
    switch (m.type) {
      case "ready":
        notificationFor(current.n).then((notification) => {
          if (view !== current) return;
          post({ type: "notification", notification });
          current.frame.dataset.ready = "true";
        }, onError);
        break;
      case "title":
        if (current.extension.overrides_default_title) dialog.querySelector(".expanded-title").textContent = m.title;
        break;
      case "size":
        setRatio(m.ratio);
        break;
      case "media-state":
        setPlaying(m.playing === true);
        break;
      case "action-result": {
        const answer = current.answers.get(m.id);
        if (answer) answer(m.option);
        break;
      }
      case "dismiss":
        close();
        break;
      case "default-action":
        close();
        respond(current.n, DEFAULT_ACTION);
        break;
      default:
        break; // "handles-actions": every action goes to the extension anyway
    }
  });

  /** Sends an action to the extension and does what it answers. */
  async function act(action, text) {
    const current = view;
    const id = ++current.sequence;
    const answer = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve("dismissAndForwardAction"), ANSWER_TIMEOUT_MS);
      current.answers.set(id, (option) => {
        clearTimeout(timer);
        resolve(option);
      });
      post({ type: "action", id, response: { actionIdentifier: action.identifier, userText: text ?? null } });
    });
    current.answers.delete(id);
    const option = ANSWERS.includes(answer) ? answer : "dismissAndForwardAction";
    dialog.dataset.lastAnswer = option;
    if (option === "doNotDismiss") return;
    if (view === current) close();
    if (option === "dismissAndForwardAction") await respond(current.n, action.identifier, text);
  }

  function replyForm(bar, action) {
    bar.querySelector(".reply")?.remove();
    const form = element("form", "reply");
    const field = element("input", "reply-text");
    field.placeholder = action.text_input.placeholder || "";
    field.setAttribute("aria-label", action.title);
    const send = element("button", "reply-send", action.text_input.button_title || "Send");
    send.type = "submit";
    form.append(field, send);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      form.remove();
      act(action, field.value).catch(onError);
    });
    bar.append(form);
    field.focus();
  }

  /** Opens the expanded view of `n` (a fresh listing first: the frame's ticket is dated by the
   *  server's clock, which may be a manual one). */
  async function open(n) {
    try {
      await load();
    } catch (error) {
      onError(error);
      return;
    }
    const extension = extensionFor(n);
    if (!extension) {
      onError(new Error(`${appName(n.bundle_id)} no longer has a content extension for this notification.`));
      deps.changed();
      return;
    }
    close();
    const frame = element("iframe", "extension-frame");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.title = `${appName(n.bundle_id)} content extension`;
    if (!extension.user_interaction_enabled) {
      frame.classList.add("no-interaction");
      frame.tabIndex = -1;
    }
    view = { n, extension, frame, media: null, playing: false, answers: new Map(), sequence: 0 };
    setRatio(extension.initial_content_size_ratio);
    frame.src = extension.frame_url;

    const head = element("header", "expanded-head");
    const closeButton = element("button", "quiet expanded-close", "Close");
    closeButton.type = "button";
    closeButton.addEventListener("click", close);
    head.append(appIcon(n.bundle_id), element("h2", "expanded-title", appName(n.bundle_id)), closeButton);
    dialog.setAttribute("aria-label", appName(n.bundle_id));

    const box = element("div", "extension-box");
    box.append(frame);
    const placement = extension.media_play_pause_button;
    if (placement !== "none") {
      view.media = element("button", `media-button media-${placement}`);
      view.media.type = "button";
      view.media.addEventListener("click", () => {
        const playing = !view.playing;
        setPlaying(playing); // as iOS does; the extension's mediaPlayingStarted/Paused correct it
        post({ type: "media", command: playing ? "play" : "pause" });
      });
      setPlaying(false);
      if (placement === "overlay") box.append(view.media);
    }
    const parts = [head, box];
    if (view.media && placement === "default") parts.push(view.media);
    if (!extension.default_content_hidden) parts.push(defaultContent(n));

    const list = (n.decision && n.decision.actions) || [];
    if (list.length) {
      const bar = element("div", "actions expanded-actions");
      for (const action of list) {
        const button = actionButton(action);
        button.addEventListener("click", () => {
          if (action.text_input) replyForm(bar, action);
          else act(action).catch(onError);
        });
        bar.append(button);
      }
      parts.push(bar);
    }
    dialog.replaceChildren(...parts);
    dialog.dataset.app = n.bundle_id;
    dialog.dataset.id = n.id;
    delete dialog.dataset.lastAnswer;
    dialog.showModal();
    closeButton.focus();
  }

  function close() {
    if (!view) return;
    for (const answer of view.answers.values()) answer("dismiss");
    view = null;
    if (dialog.open) dialog.close();
    dialog.replaceChildren();
  }

  dialog.addEventListener("close", () => {
    if (view) close();
  });

  return { load, extensionFor, open };
}
