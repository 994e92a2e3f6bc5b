// What every module of the page builds with.

export const $ = (id) => document.getElementById(id);

export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/** An app's name from its bundle id: its last part, capitalized. */
export function appName(bundleID) {
  const last = bundleID.split(".").pop() || bundleID;
  return last.charAt(0).toUpperCase() + last.slice(1);
}
