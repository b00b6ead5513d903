// The `mock-agent` command for acphub's command line (its flags and entry live with the mock).
export { mockAgentCommand } from "../mock-agent/command.js";
