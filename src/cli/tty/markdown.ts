// Legible Markdown for a terminal, one completed line at a time (the text streams in): headings
// bold, list bullets, code blocks set apart, inline `code` and **bold** styled.
import type { Style } from "./ansi.js";

export class MarkdownLines {
  private inCode = false;

  constructor(private readonly style: Style) {}

  line(raw: string): string {
    const s = this.style;
    if (/^\s*```/.test(raw)) {
      this.inCode = !this.inCode;
      const lang = raw.trim().slice(3);
      return this.inCode ? s.dim(`┌─${lang ? ` ${lang} ` : ""}`) : s.dim("└─");
    }
    if (this.inCode) return `${s.dim("│")} ${s.yellow(raw)}`;
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) return s.bold(s.cyan(heading[2] ?? ""));
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    if (bullet) return `${bullet[1]}• ${this.inline(bullet[2] ?? "")}`;
    const quote = /^>\s?(.*)$/.exec(raw);
    if (quote) return s.dim(`│ ${quote[1]}`);
    return this.inline(raw);
  }

  private inline(text: string): string {
    const s = this.style;
    return text
      .replace(/`([^`]+)`/g, (_, code: string) => s.cyan(code))
      .replace(/\*\*([^*]+)\*\*/g, (_, b: string) => s.bold(b));
  }
}
