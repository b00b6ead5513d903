// A tool call's terminal (`{type: "terminal", terminalId}`): its output read from the hub with
// `_acphub/terminal/output`, polled while the tool call runs and read once more when it ends.
// The output is plain text in a <pre> (never HTML), its tail capped, scrollable.
import { createContext } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";

export interface TerminalOutput {
  output: string;
  truncated: boolean;
  exitStatus?: { exitCode: number | null; signal: string | null };
  released?: boolean;
}

export type ReadTerminal = (terminalId: string) => Promise<TerminalOutput>;

/** How the cards of the open session read terminals (absent: only the id is shown). */
export const TerminalReader = createContext<ReadTerminal | undefined>(
  undefined,
);

const POLL_MS = 500;
/** Reads per running tool call at most (10 minutes of polling). */
const MAX_POLLS = 1200;
/** Characters shown (the tail). */
export const SHOWN_CHARS = 32 * 1024;

interface Shown {
  out?: TerminalOutput;
  error?: string;
}

// Reads the terminal now, then every POLL_MS while `running`; stops at an error or unmount.
function useTerminal(terminalId: string, running: boolean): Shown {
  const read = useContext(TerminalReader);
  const [shown, setShown] = useState<Shown>({});
  useEffect(() => {
    if (!read) return;
    let stopped = false;
    let polls = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const out = await read(terminalId);
        if (stopped) return;
        setShown({ out });
      } catch (error) {
        if (!stopped) setShown({ error: (error as Error).message });
        return;
      }
      if (running && ++polls < MAX_POLLS)
        timer = setTimeout(() => void tick(), POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [read, terminalId, running]);
  return shown;
}

// The exit status in words, when the command has ended.
function exitText(out: TerminalOutput | undefined): string {
  const s = out?.exitStatus;
  if (!s) return "";
  return s.signal ? `killed by ${s.signal}` : `exit ${String(s.exitCode)}`;
}

export function TerminalView({
  terminalId,
  running,
}: {
  terminalId: string;
  running: boolean;
}) {
  const { out, error } = useTerminal(terminalId, running);
  const pre = useRef<HTMLPreElement>(null);
  const text = out?.output ?? "";
  const cut = text.length > SHOWN_CHARS;
  // Follows the end of the output as it grows.
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [text]);
  return (
    <div class="terminal" data-terminal-id={terminalId}>
      <div class="terminal-head">
        terminal {terminalId} <span class="terminal-exit">{exitText(out)}</span>
      </div>
      {(cut || out?.truncated) && (
        <div class="terminal-note">earlier output dropped</div>
      )}
      {out && (
        <pre class="terminal-output" ref={pre}>
          {cut ? text.slice(-SHOWN_CHARS) : text}
        </pre>
      )}
      {error && (
        <div class="terminal-note terminal-gone">
          output not available: {error}
        </div>
      )}
    </div>
  );
}
