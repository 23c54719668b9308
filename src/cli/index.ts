#!/usr/bin/env bun
// The hermes-mcp command line: one subcommand per file, loaded only when used (fast start-up).
import { defineCommand, runMain } from "citty";
import { VERSION } from "../version.ts";

const main = defineCommand({
  meta: { name: "hermes-mcp", version: VERSION, description: "Remote MCP bridge to your Hermes Agent" },
  subCommands: {
    serve: () => import("./serve.ts").then((m) => m.default),
    doctor: () => import("./doctor.ts").then((m) => m.default),
    "mint-client": () => import("./mint-client.ts").then((m) => m.default),
    token: () => import("./token.ts").then((m) => m.default),
    "set-password": () => import("./set-password.ts").then((m) => m.default),
    clients: () => import("./clients.ts").then((m) => m.default),
    jobs: () => import("./jobs.ts").then((m) => m.default),
  },
});

runMain(main);
