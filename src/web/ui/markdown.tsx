// Agent text as Markdown. Agent output is untrusted: marked's HTML always goes through
// DOMPurify (no script, no event handlers, no javascript: links) before it reaches the page;
// code blocks are highlighted (highlight.js, a few languages) and get a copy button.
import DOMPurify from "dompurify";
import { Marked } from "marked";
import { useEffect, useReducer, useRef } from "preact/hooks";
import { breakLongWords } from "./long-words.js";
import { renderWait } from "./render-pace.js";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";

for (const [name, lang] of Object.entries({
  bash,
  diff,
  javascript,
  json,
  python,
  rust,
  typescript,
}))
  hljs.registerLanguage(name, lang);

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = lang && hljs.getLanguage(lang) ? lang : undefined;
      const body = language
        ? hljs.highlight(text, { language, ignoreIllegals: true }).value
        : escape(text);
      return `<div class="code"><button type="button" class="copy" title="Copy">Copy</button><pre><code class="hljs">${body}</code></pre></div>`;
    },
  },
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

const SANITIZE = {
  FORBID_TAGS: ["style", "form", "input", "textarea", "select", "iframe"],
  FORBID_ATTR: ["style"],
  RETURN_DOM_FRAGMENT: true as const,
};
// Parsed once: DOMPurify otherwise parses its configuration again on every call.
DOMPurify.setConfig(SANITIZE);

/** Markdown to HTML that is safe to insert. */
export function renderMarkdown(text: string): string {
  const cached = rendered.get(text);
  if (cached !== undefined) return cached;
  const html = marked.parse(text, { async: false });
  const fragment = DOMPurify.sanitize(html, SANITIZE);
  breakLongWords(fragment);
  const holder = document.createElement("div");
  holder.append(fragment);
  remember(text, holder.innerHTML);
  return holder.innerHTML;
}

/** Texts rendered lately (a row scrolled out and back in is not rendered again), bounded. */
const rendered = new Map<string, string>();
/** The most characters (text and HTML) the cache holds, and the longest text it keeps. */
const CACHE_CHARS = 2_000_000;
const CACHE_TEXT_MAX = 20_000;
let cachedChars = 0;

// Keeps a rendering, letting the oldest go past the bound.
function remember(text: string, html: string): void {
  if (text.length > CACHE_TEXT_MAX) return;
  rendered.set(text, html);
  cachedChars += text.length + html.length;
  for (const [old, oldHtml] of rendered) {
    if (cachedChars <= CACHE_CHARS) break;
    rendered.delete(old);
    cachedChars -= old.length + oldHtml.length;
  }
}

// Copies the code block next to a copy button (event delegation: the HTML is sanitized text).
function onCopy(event: MouseEvent): void {
  const target = event.target as HTMLElement | null;
  if (!target?.matches("button.copy")) return;
  const code = target.parentElement?.querySelector("code")?.textContent ?? "";
  void navigator.clipboard?.writeText(code).then(() => {
    target.textContent = "Copied";
  });
}

// The HTML for a growing text, rendered again at the pace renderWait gives.
function useRendered(text: string): string {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const s = useRef({ text: "", html: "", at: 0, cost: 0, timer: 0 }).current;
  useEffect(() => () => clearTimeout(s.timer), []);
  if (s.text === text) return s.html;
  const now = performance.now();
  const wait = renderWait(s, text, now);
  if (wait === 0) {
    clearTimeout(s.timer);
    s.timer = 0;
    s.html = renderMarkdown(text);
    s.text = text;
    s.at = performance.now();
    s.cost = s.at - now;
  } else if (!s.timer)
    s.timer = window.setTimeout(() => {
      s.timer = 0;
      rerender(0);
    }, wait);
  return s.html;
}

export function Markdown({ text }: { text: string }) {
  const html = useRendered(text);
  return (
    <div
      class="md"
      onClick={onCopy}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
