#!/usr/bin/env bun
// The hermes-mcp command line: one subcommand per file.
import { defineCommand, runMain } from "citty";
import { VERSION } from "../version.ts";
import doctor from "./doctor.ts";
import mintClient from "./mint-client.ts";
import serve from "./serve.ts";
import token from "./token.ts";

const main = defineCommand({
  meta: { name: "hermes-mcp", version: VERSION, description: "Remote MCP bridge to your Hermes Agent" },
  subCommands: { serve, "mint-client": mintClient, doctor, token },
});

runMain(main);
