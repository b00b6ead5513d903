// Runs every benchmark in turn; never part of the pass/fail test run.
await import("./throughput.mjs");
console.log();
await import("./pool.mjs");
console.log();
await import("./ledger.mjs");
console.log();
await import("./acp.mjs");
console.log();
await import("./startup.mjs");
console.log();
await import("./terminal.mjs");
console.log();
await import("./flow-steps.mjs");
console.log();
await import("./web.mjs");
process.exit(0);
