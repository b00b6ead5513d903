// An agent's own spans (OTLP/HTTP JSON, as its exporter sent them to acphub's receiver) made
// part of acphub's trace: each is given the session, user and turn it belongs to, an agent's
// root span is parented under the turn's `invoke_agent` span, and every text is masked.

/** A turn an agent process is running, as its spans are attached to it. */
export interface AgentTurn {
  sessionId: string;
  promptSeq: number;
  author?: string;
  /** The turn's `invoke_agent` span (hex ids), when it is being traced. */
  traceId?: string;
  spanId?: string;
}

/** What the receiver knows of one agent process: its name, its turns, its masker. */
export interface AgentLink {
  agentName: string;
  /** The turns running now in this agent process. */
  running(): AgentTurn[];
  mask(text: string): string;
  /** The agent's own trace ids already attached to a turn (bounded). */
  traces: Map<string, AgentTurn>;
}

/** The agent trace ids remembered per process (the oldest forgotten first). */
const MAX_TRACES = 1024;

type Json = Record<string, unknown>;
type KeyValue = { key: string; value: Json };

// The turn a span belongs to: the one whose trace it joined, one its trace was attached to
// before, or the only turn the process is running.
function turnOf(link: AgentLink, traceId: string): AgentTurn | undefined {
  const running = link.running();
  const joined = running.find((t) => t.traceId === traceId);
  if (joined) return joined;
  const known = link.traces.get(traceId);
  if (known) return known;
  if (running.length !== 1) return undefined;
  link.traces.set(traceId, running[0]!);
  if (link.traces.size > MAX_TRACES)
    link.traces.delete(link.traces.keys().next().value!);
  return running[0];
}

// An OTLP AnyValue with its strings masked (arrays and key-value lists too).
function maskValue(v: Json, mask: (t: string) => string): Json {
  if (typeof v["stringValue"] === "string")
    return { stringValue: mask(v["stringValue"]) };
  const arr = v["arrayValue"] as { values?: Json[] } | undefined;
  if (arr?.values)
    return {
      arrayValue: { values: arr.values.map((x) => maskValue(x, mask)) },
    };
  const kv = v["kvlistValue"] as { values?: KeyValue[] } | undefined;
  if (kv?.values) return { kvlistValue: { values: maskList(kv.values, mask) } };
  return v;
}

// A list of attributes with its values masked.
function maskList(list: unknown, mask: (t: string) => string): KeyValue[] {
  if (!Array.isArray(list)) return [];
  return (list as KeyValue[]).map((a) => ({
    key: String(a.key),
    value: maskValue(a.value ?? {}, mask),
  }));
}

// Adds the attributes the span lacks.
function withAttributes(
  list: KeyValue[],
  add: Record<string, string | number>,
) {
  const have = new Set(list.map((a) => a.key));
  for (const [key, value] of Object.entries(add))
    if (!have.has(key))
      list.push({
        key,
        value:
          typeof value === "number"
            ? { intValue: String(value) }
            : { stringValue: value },
      });
  return list;
}

// One span attached to its turn (and masked).
function attachSpan(link: AgentLink, span: Json): void {
  const mask = (t: string) => link.mask(t);
  const traceId = String(span["traceId"] ?? "");
  const turn = turnOf(link, traceId);
  if (typeof span["name"] === "string") span["name"] = mask(span["name"]);
  const status = span["status"] as Json | undefined;
  if (typeof status?.["message"] === "string")
    status["message"] = mask(status["message"]);
  if (Array.isArray(span["events"]))
    for (const e of span["events"] as Json[])
      e["attributes"] = maskList(e["attributes"], mask);
  const attrs = maskList(span["attributes"], mask);
  span["attributes"] = withAttributes(attrs, {
    "gen_ai.agent.name": link.agentName,
    ...(turn
      ? {
          "gen_ai.conversation.id": turn.sessionId,
          "acphub.prompt.seq": turn.promptSeq,
          ...(turn.author ? { "enduser.id": turn.author } : {}),
        }
      : {}),
  });
  if (!turn?.traceId || !turn.spanId || turn.traceId === traceId) return;
  // Another trace of the agent's own: moved into the turn's, its roots under the turn's span.
  span["traceId"] = turn.traceId;
  if (!span["parentSpanId"]) span["parentSpanId"] = turn.spanId;
}

// The export request with every span attached and masked; resources masked too.
export function attachAgentSpans(link: AgentLink, doc: Json): Json {
  const mask = (t: string) => link.mask(t);
  const resourceSpans = Array.isArray(doc["resourceSpans"])
    ? (doc["resourceSpans"] as Json[])
    : [];
  for (const rs of resourceSpans) {
    const resource = rs["resource"] as Json | undefined;
    if (resource)
      resource["attributes"] = maskList(resource["attributes"], mask);
    for (const ss of (rs["scopeSpans"] as Json[] | undefined) ?? [])
      for (const span of (ss["spans"] as Json[] | undefined) ?? [])
        attachSpan(link, span);
  }
  return { ...doc, resourceSpans };
}
