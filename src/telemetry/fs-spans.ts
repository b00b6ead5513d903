// The span of an agent's fs/read_text_file or fs/write_text_file: `fs read` / `fs write`, from
// the request to its answer, with the path relative to the session's root (never the absolute
// path: it names the user's home and folders), and its status (an error by its code only).
import { isAbsolute, relative } from "node:path";
import {
  SpanStatusCode,
  type Attributes,
  type Context,
  type Tracer,
} from "@opentelemetry/api";
import type { ClientRequestEvent } from "../contracts/events.js";

const OPERATIONS: Record<string, string> = {
  "fs/read_text_file": "read",
  "fs/write_text_file": "write",
};

// The path relative to the first root holding it; outside them all, only its last part.
export function pathInRoots(path: string, roots: readonly string[]) {
  if (!isAbsolute(path)) return { path };
  for (const root of roots) {
    const rel = relative(root, path);
    if (!rel.startsWith("..") && !isAbsolute(rel)) return { path: rel || "." };
  }
  return { path: path.split(/[\\/]/).pop() ?? "", outside: true };
}

// Ends an fs span at once (the request is answered when its event arrives).
export function fsSpan(
  tracer: Tracer,
  parent: Context,
  e: ClientRequestEvent,
  roots: readonly string[],
): void {
  const operation = OPERATIONS[e.method];
  if (!operation) return;
  const params = (e.params ?? {}) as Record<string, unknown>;
  const where = pathInRoots(String(params["path"] ?? ""), roots);
  const attributes: Attributes = {
    "acphub.fs.operation": operation,
    "acphub.fs.path": where.path,
  };
  if (where.outside) attributes["acphub.fs.outside_roots"] = true;
  if (typeof params["content"] === "string")
    attributes["acphub.fs.bytes"] = Buffer.byteLength(params["content"]);
  for (const key of ["line", "limit"])
    if (typeof params[key] === "number")
      attributes[`acphub.fs.${key}`] = params[key];
  const span = tracer.startSpan(
    `fs ${operation}`,
    { attributes, ...(e.startedAt ? { startTime: e.startedAt } : {}) },
    parent,
  );
  // The error's code only: its message names absolute paths.
  if (!e.ok) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    if (e.error) span.setAttribute("error.type", String(e.error.code));
  }
  span.end();
}
