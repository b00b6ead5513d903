// Maps a scripted action onto whichever tool the agent offered, by reading the tools' JSON
// schemas: names and argument names differ per agent (Write{file_path}, write{path}, shell{command[]}).

/**
 * @typedef {{ name: string, description?: string, schema?: any, freeform?: boolean }} Tool
 * @typedef {{ name: string, args: Record<string, unknown> | string }} Call
 *   A freeform (custom) tool takes a plain string.
 */

const PATH_KEYS = ["file_path", "path", "filePath", "filename", "file"];
const CONTENT_KEYS = ["content", "contents", "text", "file_text"];
const COMMAND_KEYS = ["command", "cmd", "script"];

// The properties object of a tool's JSON schema (empty when it has none).
function props(tool) {
  const p = tool.schema?.properties;
  return p && typeof p === "object" ? p : {};
}

// The first of `keys` that the tool's schema declares.
function keyOf(tool, keys) {
  return keys.find((k) => k in props(tool));
}

// The tool whose name matches and whose schema has every needed key group, best name first.
function pick(tools, names, keyGroups) {
  const fits = tools.filter(
    (t) => !t.freeform && keyGroups.every((g) => keyOf(t, g)),
  );
  for (const re of names) {
    const hit = fits.find((t) => re.test(t.name));
    if (hit) return hit;
  }
  return undefined;
}

// A shell call: the command as a string, or as argv (`["bash","-lc",line]`) when the schema says array.
function shellCall(tools, line) {
  const tool = pick(
    tools,
    [/^(bash|shell|run_shell_command)$/i, /shell|bash|exec|terminal/i],
    [COMMAND_KEYS],
  );
  if (!tool) return undefined;
  const key = /** @type {string} */ (keyOf(tool, COMMAND_KEYS));
  const isArray = props(tool)[key]?.type === "array";
  /** @type {Record<string, unknown>} */
  const args = { [key]: isArray ? ["bash", "-lc", line] : line };
  if ("description" in props(tool)) args["description"] = "scripted command";
  return { name: tool.name, args };
}

// Single-quotes a string for sh.
function sq(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// A plausible value for a required argument the script does not set (Bash's `timeout`).
function filler(name, schema) {
  if (schema && "default" in schema) return schema.default;
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === "number" || type === "integer")
    return /timeout/i.test(name) ? 60000 : 1;
  if (type === "boolean") return false;
  if (type === "array") return [];
  return "";
}

// Completes a call with the tool's required arguments the action did not name.
function withRequired(call, tools) {
  const tool = tools.find((t) => t.name === call.name);
  const required = Array.isArray(tool?.schema?.required)
    ? tool.schema.required
    : [];
  const args = /** @type {Record<string, unknown>} */ (call.args);
  for (const key of required)
    if (!(key in args)) args[key] = filler(key, props(tool)[key]);
  return call;
}

/** @param {import("./script.mjs").ToolAction} action @param {Tool[]} tools @returns {Call} */
export function toolCallFor(action, tools) {
  return withRequired(baseCall(action, tools), tools);
}

// The call for an action, with only the arguments the action itself names.
function baseCall(action, tools) {
  if (action.type === "shell") {
    const call = shellCall(tools, action.command);
    if (call) return call;
  } else if (action.type === "read") {
    const tool = pick(
      tools,
      [/^read$/i, /^read_?file$/i, /read/i],
      [PATH_KEYS],
    );
    if (tool)
      return {
        name: tool.name,
        args: { [keyOf(tool, PATH_KEYS) ?? "path"]: action.path },
      };
    const call = shellCall(tools, `cat ${sq(action.path)}`);
    if (call) return call;
  } else {
    const tool = pick(
      tools,
      [/^write$/i, /^write_?file$/i, /write|create/i],
      [PATH_KEYS, CONTENT_KEYS],
    );
    if (tool)
      return {
        name: tool.name,
        args: {
          [keyOf(tool, PATH_KEYS) ?? "path"]: action.path,
          [keyOf(tool, CONTENT_KEYS) ?? "content"]: action.content,
        },
      };
    const call = shellCall(
      tools,
      `printf '%s\\n' ${sq(action.content)} > ${sq(action.path)}`,
    );
    if (call) return call;
  }
  const names = tools.map((t) => t.name).join(", ");
  throw new Error(`no offered tool fits ${action.type} (tools: ${names})`);
}
