// The built-in mock agent's entry and its scenario help, for `acphub mock-agent`.
export { runMockAgent } from "../mock-agent/agent.js";
export { helpText } from "../mock-agent/scenario.js";
