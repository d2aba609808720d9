// A tiny element builder: text is always set as text, never parsed as HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'text') el.textContent = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

/** Replaces the screen and moves focus to its heading, so keyboard and screen-reader users follow. */
export function show(screen, ...children) {
  screen.replaceChildren(
    ...children.flat().filter((child) => child !== null && child !== undefined && child !== false),
  );
  const heading = screen.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
  }
}

let uid = 0;
export const nextId = (prefix) => `${prefix}-${++uid}`;
