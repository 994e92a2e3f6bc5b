// A Focus's settings, as iOS's Settings › Focus shows them: who and which apps may break through
// (or are silenced), time-sensitive notifications, the schedules that turn it on, and the people to
// suggest (those the user messaged or called). Saved with PUT /v1/me/focus-modes/{id}.

import { element } from "./dom.js";

const DAYS = [["mon", "M"], ["tue", "T"], ["wed", "W"], ["thu", "T"], ["fri", "F"], ["sat", "S"], ["sun", "S"]];

function labelled(text, control, className = "field") {
  const label = element("label", className);
  if (className === "check") label.append(control, ` ${text}`);
  else label.append(text, control);
  return label;
}

/** People as text, one per line: `phone:+15550100`, `email:ana@example.com`. */
function peopleText(people) {
  return (people || []).map((p) => `${p.type}:${p.value}`).join("\n");
}

/** The lines read back; a line without a type is a phone number when it has digits, else an e-mail. */
function parsePeople(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean).map((line) => {
    const match = /^(phone|email|app):(.*)$/.exec(line);
    if (match) return { type: match[1], value: match[2].trim() };
    return { type: line.includes("@") ? "email" : "phone", value: line };
  });
}

function scheduleRow(schedule) {
  const row = element("div", "schedule");
  const days = element("span", "days");
  for (const [day, letter] of DAYS) {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = day;
    box.checked = schedule.days.includes(day);
    box.setAttribute("aria-label", day);
    const label = element("label", "day");
    label.append(box, letter);
    days.append(label);
  }
  const start = document.createElement("input");
  start.type = "time";
  start.className = "start";
  start.value = schedule.start;
  const end = document.createElement("input");
  end.type = "time";
  end.className = "end";
  end.value = schedule.end;
  const remove = element("button", "quiet remove", "Remove");
  remove.type = "button";
  remove.addEventListener("click", () => row.remove());
  row.append(days, start, "–", end, remove);
  return row;
}

function readSchedules(list) {
  return [...list.querySelectorAll(".schedule")].map((row) => ({
    days: [...row.querySelectorAll(".days input:checked")].map((box) => box.value),
    start: row.querySelector(".start").value,
    end: row.querySelector(".end").value,
  }));
}

/** The editor of one Focus: a form that saves the mode and then calls `saved()`. */
export function focusEditor(mode, { api, apps, saved, onError }) {
  const details = element("details", "focus-editor");
  details.dataset.focusEditor = mode.id;
  details.append(element("summary", null, "Settings"));
  const form = element("form", "stacked");

  const filter = document.createElement("select");
  filter.className = "filter-mode";
  for (const [value, text] of [["allow", "Allow notifications from"], ["silence", "Silence notifications from"]]) {
    const option = element("option", null, text);
    option.value = value;
    filter.append(option);
  }
  filter.value = mode.filter_mode;
  form.append(labelled("Notifications", filter));

  const people = document.createElement("textarea");
  people.className = "people";
  people.rows = 2;
  people.placeholder = "phone:+15550100200\nemail:ana@example.com";
  const peopleField = () => (filter.value === "allow" ? "allowed_people" : "silenced_people");
  const appsField = () => (filter.value === "allow" ? "allowed_apps" : "silenced_apps");
  people.value = peopleText(mode[peopleField()]);
  form.append(labelled("People (one per line)", people));

  const suggestions = element("div", "suggestions");
  form.append(suggestions);
  api("GET", `/v1/me/focus-modes/${encodeURIComponent(mode.id)}/suggested-people?limit=5`).then((answer) => {
    const listed = new Set(parsePeople(people.value).map((p) => `${p.type}:${p.value}`));
    const fresh = (answer.people || []).filter((p) => !listed.has(`${p.type}:${p.value}`));
    if (fresh.length === 0) return;
    suggestions.append(element("span", "hint", "Suggested: "));
    for (const person of fresh) {
      const add = element("button", "suggestion quiet", person.display_name || person.value);
      add.type = "button";
      add.dataset.value = person.value;
      add.addEventListener("click", () => {
        people.value = [people.value.trim(), `${person.type}:${person.value}`].filter(Boolean).join("\n");
        add.remove();
      });
      suggestions.append(add);
    }
  }).catch(onError);

  const appsSet = element("fieldset", "apps");
  appsSet.append(element("legend", null, "Apps"));
  const chosen = new Set(mode[appsField()] || []);
  for (const app of [...new Set([...apps, ...chosen])].sort()) {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = app;
    box.checked = chosen.has(app);
    appsSet.append(labelled(app, box, "check"));
  }
  form.append(appsSet);
  filter.addEventListener("change", () => {
    people.value = peopleText(mode[peopleField()]);
    const now = new Set(mode[appsField()] || []);
    for (const box of appsSet.querySelectorAll("input")) box.checked = now.has(box.value);
  });

  const timeSensitive = document.createElement("input");
  timeSensitive.type = "checkbox";
  timeSensitive.className = "time-sensitive";
  timeSensitive.checked = Boolean(mode.allows_time_sensitive);
  form.append(labelled("Time-sensitive notifications break through", timeSensitive, "check"));

  const schedules = element("div", "schedules");
  for (const schedule of mode.schedules || []) schedules.append(scheduleRow(schedule));
  const add = element("button", "quiet add-schedule", "Add schedule");
  add.type = "button";
  add.addEventListener("click", () => schedules.append(scheduleRow({ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" })));
  const scheduleSet = element("fieldset");
  scheduleSet.append(element("legend", null, "Turns on by schedule"), schedules, add);
  form.append(scheduleSet);

  const save = element("button", "save", "Save Focus");
  save.type = "submit";
  const status = element("p", "error");
  status.setAttribute("role", "alert");
  form.append(save, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "";
    const body = {
      filter_mode: filter.value,
      [peopleField()]: parsePeople(people.value),
      [appsField()]: [...appsSet.querySelectorAll("input:checked")].map((box) => box.value),
      allows_time_sensitive: timeSensitive.checked,
      schedules: readSchedules(schedules),
    };
    try {
      await api("PUT", `/v1/me/focus-modes/${encodeURIComponent(mode.id)}`, body);
      await saved();
    } catch (error) {
      status.textContent = error.message;
      onError(error);
    }
  });
  details.append(form);
  return details;
}
