// Fails when a tracked file still holds merge-conflict markers, including the quoted form
// Prettier makes of a `>>>>>>>` line in Markdown (which no other check would notice).
import { execFileSync } from "node:child_process";

const marks = ["<".repeat(7) + " ", ">".repeat(7) + " ", "> ".repeat(7)];
const pattern = marks.map((m) => `^${m}`).join("|");
let found = "";
try {
  found = execFileSync("git", ["grep", "-n", "-E", pattern, "--", "."], {
    encoding: "utf8",
  });
} catch (error) {
  // git grep exits 1 when nothing matches; anything else is a real failure.
  if (error.status !== 1) throw error;
}
if (found) {
  process.stderr.write(`merge-conflict markers left in:\n${found}`);
  process.exit(1);
}
